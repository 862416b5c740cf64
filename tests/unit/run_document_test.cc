// Tests of the one reader of saved documents (report/run_document.h): text to a checked
// document, every failure a message naming the file; inputs as typed and their labels.
#include "report/run_document.h"

#include <gtest/gtest.h>

#include <string>

#include "report_docs_util.h"

namespace fabperf::report {
namespace {

std::string why(std::string_view text) {
  auto doc = parse_run_document(text, "f.json", "f");
  return doc.ok() ? "" : doc.status().message();
}

TEST(RunDocument, ParsesAndChecks) {
  const std::string text = testdocs::run_doc({}).dump();
  auto doc = parse_run_document(text, "f.json", "before");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->label, "before");
  EXPECT_EQ(doc->doc["tool"], "fabperf");
}

TEST(RunDocument, EveryFailureNamesTheFile) {
  const std::string text = testdocs::run_doc({}).dump();
  EXPECT_EQ(
      why(text.substr(0, text.size() / 2)).rfind("f.json: truncated: the JSON ends after ", 0), 0u);
  EXPECT_EQ(why("").rfind("f.json: truncated", 0), 0u);
  EXPECT_EQ(why("{\"tool\": \"fabperf\", \"schema\": 1e999999}").rfind("f.json: not valid JSON", 0),
            0u);
  EXPECT_EQ(why("{\"a\": 1}} trailing").rfind("f.json: not valid JSON", 0), 0u);
  EXPECT_EQ(why("[1, 2]"), "f.json: not a fabperf document (not a JSON object)");
  EXPECT_EQ(why("{\"tool\": \"iperf3\"}"),
            "f.json: not a fabperf document (\"tool\" is \"iperf3\")");
  EXPECT_NE(why("{\"tool\": \"fabperf\", \"schema\": 7, \"results\": []}")
                .find("f.json: schema 7 comes from a newer fabperf"),
            std::string::npos);
  EXPECT_EQ(why("{\"tool\": \"fabperf\", \"schema\": 2, \"results\": [3]}"),
            "f.json: results[0] is not an object");
  auto missing = read_run_document("/nonexistent/dir/x.json", "x");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().message().rfind("/nonexistent/dir/x.json: cannot read the file", 0),
            0u);
}

// A copy cut inside a number (a digit, a point, an exponent or a sign the last byte) is the
// same truncation as one cut anywhere else, not a syntax error in the number.
TEST(RunDocument, ACutInsideANumberIsATruncation) {
  const std::string head = "{\"tool\": \"fabperf\", \"schema\": 2, \"results\": [{\"x\": ";
  for (const char* cut : {"12", "1.", "1.5e", "1e-", "-"}) {
    EXPECT_EQ(why(head + cut).rfind("f.json: truncated: the JSON ends after ", 0), 0u)
        << cut << ": " << why(head + cut);
  }
}

TEST(RunDocument, InputsAndTheirLabels) {
  EXPECT_EQ(parse_input_arg("before=a.json").label, "before");
  EXPECT_EQ(parse_input_arg("before=a.json").path, "a.json");
  EXPECT_EQ(parse_input_arg("dir/a=b.json").path, "dir/a=b.json");  // '/' before '=': a path
  EXPECT_EQ(parse_input_arg("dir/a=b.json").label, "");
  EXPECT_EQ(parse_input_arg("=a.json").path, "=a.json");
  EXPECT_EQ(run_labels({{"x/run.json", ""}, {"y/run.json", ""}, {"z/other.json", ""}}),
            (std::vector<std::string>{"x/run.json", "y/run.json", "other.json"}));
  EXPECT_EQ(run_labels({{"-", ""}, {"a.json", "new"}}), (std::vector<std::string>{"stdin", "new"}));
}

}  // namespace
}  // namespace fabperf::report
