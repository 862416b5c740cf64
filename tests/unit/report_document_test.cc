// Unit tests of the one reader of saved run documents: every bad input named by file and field,
// never an abort (review N6: "1e999999" ended `fabperf report` with SIGABRT).
#include <gtest/gtest.h>

#include <string>

#include "report/run_document.h"
#include "report_docs_util.h"

namespace fabperf::report {
namespace {

std::string error_of(const std::string& text) {
  auto doc = parse_run_document(text, "run.json", "run");
  return doc.ok() ? std::string("(accepted)") : doc.status().message();
}

TEST(ReportDocumentTest, AValidDocumentIsRead) {
  auto doc = parse_run_document(testdocs::run_doc({}).dump(), "run.json", "run");
  ASSERT_TRUE(doc.ok()) << doc.status().message();
  EXPECT_EQ(doc->doc["tool"], "fabperf");
  EXPECT_EQ(doc->label, "run");
}

TEST(ReportDocumentTest, ANumberNoDoubleHoldsIsNamedByItsField) {
  const std::string head = R"({"tool": "fabperf", "schema": 2, "results": [)";
  EXPECT_EQ(error_of(head + R"({"test": "tcp_lat", "latency_ns": {"mean": 1e999999}}]})"),
            "run.json: not valid JSON: field results[0].latency_ns.mean: the number 1e999999 is "
            "out of range (a double holds at most about 1.8e308)");
  EXPECT_EQ(error_of(head + R"({}, {"intervals": [{"t_s": 1}, {"t_s": -2E+400}]}]})"),
            "run.json: not valid JSON: field results[1].intervals[1].t_s: the number -2E+400 is "
            "out of range (a double holds at most about 1.8e308)");
  EXPECT_EQ(error_of(head + R"({"loop": [[1, 2], [3, 1e309]]}]})"),
            "run.json: not valid JSON: field results[0].loop[1][1]: the number 1e309 is out of "
            "range (a double holds at most about 1.8e308)");
  EXPECT_EQ(error_of("1e999"),
            "run.json: not valid JSON: field (the top level): the number 1e999 is out of range (a "
            "double holds at most about 1.8e308)");
  // In range, however large or small: read (the model draws only finite values).
  EXPECT_EQ(error_of(head + R"({"test": "x", "elapsed_s": 1e308, "min": 4.9e-324}]})"),
            "(accepted)");
}

TEST(ReportDocumentTest, OtherErrorsNameTheFileAndWhere) {
  EXPECT_EQ(error_of(R"({"tool": "fabperf", "schema": 2, "results": [)")
                .rfind("run.json: truncated: the JSON ends after ", 0),
            0u);
  EXPECT_NE(error_of(R"({"tool": "fabperf", "results": [1, }")").find("(field results[1])"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"tool": "qperf"})"),
            R"(run.json: not a fabperf document ("tool" is "qperf"))");
  EXPECT_EQ(error_of(R"([1, 2])"), "run.json: not a fabperf document (not a JSON object)");
}

TEST(ReportDocumentTest, AFileThatCannotBeReadIsNamed) {
  auto doc = read_run_document("/nonexistent/dir/run.json", "run");
  ASSERT_FALSE(doc.ok());
  EXPECT_EQ(doc.status().message().rfind("/nonexistent/dir/run.json: cannot read the file", 0), 0u);
}

}  // namespace
}  // namespace fabperf::report
