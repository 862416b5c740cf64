// Unit tests of the report's text forms: the compact JSON layout and the HTML page skeleton.
#include <gtest/gtest.h>

#include <string>

#include "report/html_page.h"
#include "report/json_text.h"
#include "report/report_assets.h"
#include "report/report_model.h"
#include "report_docs_util.h"

namespace fabperf {
namespace {

using nlohmann::json;

TEST(JsonText, RoundTripsWithPairsOnOneLine) {
  json doc = {{"name", "x"},
              {"empty", json::object()},
              {"list", {1, 2, 3}},
              {"counts", {{10, 1}, {12, 5}}},
              {"nested", {{{"a", 1}}, {{"b", 2}}}},
              {"matrix", {{1, 2, 3, 4, 5}, {6, 7, 8, 9, 10}}}};
  const std::string text = json_text(doc);
  EXPECT_EQ(json::parse(text), doc);
  EXPECT_NE(text.find("\"counts\": [[10,1],[12,5]]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"list\": [1,2,3]"), std::string::npos);
  EXPECT_NE(text.find("\n  \"name\": \"x\""), std::string::npos);
  // Rows longer than a pair each get a line of their own.
  EXPECT_NE(text.find("\n    [1,2,3,4,5],\n    [6,7,8,9,10]\n"), std::string::npos) << text;
  EXPECT_EQ(text.back(), '\n');
}

TEST(JsonText, InvalidUtf8IsReplacedNotThrown) {
  json doc = {{"host", std::string("bad\xff name")}};
  std::string text;
  EXPECT_NO_THROW(text = json_text(doc));
  EXPECT_TRUE(json::accept(text));
}

TEST(ReportPage, EmbedsTheLibraryAndTheModelSafely) {
  EXPECT_NE(report::report_asset("chart.umd.min.js").find("Chart.js v4"), std::string::npos);
  EXPECT_FALSE(report::report_asset("chartjs-chart-matrix.min.js").empty());
  EXPECT_NE(report::report_asset("LICENSE-chart.js.md").find("MIT"), std::string::npos);
  EXPECT_FALSE(report::report_asset("report.js").empty());
  EXPECT_TRUE(report::report_asset("no-such-file").empty());

  // A host name that tries to close the script element stays inside the JSON.
  json doc = testdocs::run_doc({testdocs::latency_result("tcp_lat", 1, {5000, 6000}, 0.5)});
  doc["client"]["node"] = "</script><script>alert(1)</script>";
  auto model = report::build_report_model({{"<b>run</b>.json", doc}});
  ASSERT_TRUE(model.ok());
  const std::string page = report::render_html(*model);
  EXPECT_EQ(page.find("<script>alert(1)"), std::string::npos);
  EXPECT_NE(page.find("\\u003c/script>\\u003cscript>alert(1)"), std::string::npos);
  // The model parses back from the page unchanged.
  const std::string open = "<script id=\"fabperf-model\" type=\"application/json\">";
  const size_t start = page.find(open) + open.size();
  const size_t end = page.find("</script>", start);
  EXPECT_EQ(json::parse(page.substr(start, end - start)), *model);
  // Nothing is fetched: no external script, stylesheet or image.
  EXPECT_EQ(page.find("src=\""), std::string::npos);
  EXPECT_EQ(page.find("href=\"http"), std::string::npos);
  EXPECT_EQ(page.find("<link"), std::string::npos);
  EXPECT_EQ(report::html_escape("a<b & \"c\"'"), "a&lt;b &amp; &quot;c&quot;&#39;");
}

}  // namespace
}  // namespace fabperf
