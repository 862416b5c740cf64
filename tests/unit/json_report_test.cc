// Unit tests of the JSON document (schema 2): what --json writes for a run, the histogram that
// lets reports redraw and merge a latency distribution, and the file written whole at finish.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "engine/test_result.h"
#include "engine/test_spec.h"
#include "report/reporter.h"
#include "stats/histogram.h"
#include "stats/latency.h"

namespace fabperf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TestSpec spec_of(const char* name, TestKind kind) {
  return TestSpec{.name = name,
                  .family = TransportFamily::kSocket,
                  .kind = kind,
                  .transport = "tcp",
                  .summary = "",
                  .options = {},
                  .default_msg_size = 1,
                  .client = nullptr,
                  .server = nullptr};
}

// A result as the client derives it: the recorder's samples, scaled by `scale`.
TestResult latency_result(const TestSpec& spec, double scale) {
  TestResult r;
  r.spec = &spec;
  r.test = spec.name;
  LatencyRecorder latency(scale);
  for (uint64_t v = 2000; v < 40000; v += 13) latency.record(v);
  derive_figures(r, latency, default_percentiles());
  return r;
}

TEST(JsonReport, LatencyHistogramRedrawsTheReportedFigures) {
  const TestSpec spec = spec_of("tcp_lat", TestKind::kLatency);
  const TestResult r = latency_result(spec, 0.5);
  const json j = result_to_json(r);
  ASSERT_TRUE(j.contains("latency_histogram")) << j.dump();
  const json& hj = j["latency_histogram"];
  EXPECT_DOUBLE_EQ(hj["scale"].get<double>(), 0.5);
  auto h = Histogram::from_json(hj);
  ASSERT_TRUE(h.ok()) << h.status().message();
  EXPECT_EQ(h->count(), j["latency_ns"]["samples"].get<uint64_t>());
  // A reported percentile is the histogram's value times the scale (within a bucket's width).
  const double p50 = j["latency_ns"]["p50"].get<double>();
  const double redrawn = static_cast<double>(h->value_at_percentile(50)) * 0.5;
  EXPECT_NEAR(redrawn, p50, p50 * 0.01);
  // Sparse: far fewer pairs than the layout has buckets.
  ASSERT_TRUE(hj.contains("counts")) << hj.dump().substr(0, 300);
  EXPECT_LT(hj["counts"].size(), 5000u);
}

TEST(JsonReport, BandwidthResultsCarryNoHistogram) {
  const TestSpec spec = spec_of("tcp_bw", TestKind::kBandwidth);
  TestResult r;
  r.spec = &spec;
  r.test = "tcp_bw";
  r.loc.send_bytes = 1 << 20;
  r.loc.real_time_ns = 1000000;
  derive_figures(r, LatencyRecorder(), default_percentiles());
  const json j = result_to_json(r);
  EXPECT_FALSE(j.contains("latency_histogram"));
  EXPECT_TRUE(j.contains("bandwidth"));
}

TEST(JsonReport, DocumentIsSchemaTwoAndWrittenWholeAtFinish) {
  const fs::path path =
      fs::temp_directory_path() / ("fabperf-json-test-" + std::to_string(getpid()) + ".json");
  fs::remove(path);
  auto reporter = make_json_reporter(path.string());
  ASSERT_TRUE(reporter.ok()) << reporter.status().message();
  RunInfo info;
  info.started = "2026-01-02T03:04:05Z";
  info.argv = {"fabperf", "--loopback", "tcp_lat"};
  info.client = {{"node", "alpha"}};
  info.percentiles = default_percentiles();
  const TestSpec spec = spec_of("tcp_lat", TestKind::kLatency);
  (*reporter)->on_result(info, latency_result(spec, 1.0));
  EXPECT_FALSE(fs::exists(path));  // nothing until finish: never half a document
  ASSERT_TRUE((*reporter)->finish(info).ok());
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  fs::remove(path);
  const json doc = json::parse(text.str());
  EXPECT_EQ(doc["tool"], "fabperf");
  EXPECT_EQ(doc["schema"], 2);
  EXPECT_EQ(doc["schema"], kJsonSchema);
  ASSERT_EQ(doc["results"].size(), 1u);
  EXPECT_TRUE(doc["results"][0].contains("latency_histogram"));
  // Pairs stay on one line each (json_text), so a histogram does not take a line per number.
  EXPECT_NE(text.str().find("\"counts\": [["), std::string::npos) << text.str().substr(0, 2000);
}

TEST(JsonReport, UnwritablePathIsRefusedBeforeTheRun) {
  auto reporter = make_json_reporter("/nonexistent-dir/x.json");
  ASSERT_FALSE(reporter.ok());
  EXPECT_NE(reporter.status().message().find("--json"), std::string::npos)
      << reporter.status().message();
  auto html = make_html_reporter("/nonexistent-dir/x.html");
  ASSERT_FALSE(html.ok());
  EXPECT_NE(html.status().message().find("--html"), std::string::npos) << html.status().message();
}

}  // namespace
}  // namespace fabperf
