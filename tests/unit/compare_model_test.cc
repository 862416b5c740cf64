// Tests of `fabperf compare`'s data step and text: rows by test, size, stream and direction,
// the basis of each row (repetitions, samples, one figure), verdicts and regressions,
// parameter differences, rows that cannot be compared, and the table layout.
#include "report/compare_model.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "report_docs_util.h"

namespace fabperf::report {
namespace {

using nlohmann::json;
using testdocs::latency_result;
using testdocs::run_doc;

// `n` latency samples around `center_ns` (spread 10%), the same stream of noise for a seed.
std::vector<uint64_t> samples(double center_ns, size_t n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(center_ns, center_ns * 0.1);
  std::vector<uint64_t> out;
  for (size_t i = 0; i < n; ++i) out.push_back(static_cast<uint64_t>(std::max(1.0, d(rng))));
  return out;
}

json compare(std::vector<RunDocument> runs, CompareOptions o = {}) {
  auto c = build_comparison(runs, o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  return c.ok() ? *c : json();
}

const json* table_of(const json& c, const std::string& metric) {
  for (const json& t : c["tables"]) {
    if (t["metric"] == metric) return &t;
  }
  return nullptr;
}

const json* row_of(const json& table, const std::string& key) {
  for (const json& r : table["rows"]) {
    if (r["key"] == key) return &r;
  }
  return nullptr;
}

json bw_result(const std::string& test, double bps,
               const std::string& direction = "client_to_server") {
  return {{"test", test},
          {"status", "ok"},
          {"params", {{"msg_size", 65536}, {"cq_poll", false}}},
          {"bandwidth", {{"send_Bps", bps}, {"recv_Bps", bps}, {"direction", direction}}},
          {"msg_rate", bps / 65536}};
}

TEST(CompareModel, ShiftedHistogramsAreAWorseSignificantRegression) {
  const json a = run_doc({latency_result("tcp_lat", 64, samples(10000, 20000, 1), 0.5)});
  const json b = run_doc({latency_result("tcp_lat", 64, samples(12000, 20000, 2), 0.5)});
  const json c = compare({{"a.json", a}, {"b.json", b}});
  const json* p50 = table_of(c, "latency_p50");
  ASSERT_NE(p50, nullptr) << c.dump(1);
  const json& row = (*p50)["rows"][0];
  EXPECT_EQ(row["key"], "tcp_lat 64");
  EXPECT_EQ(row["basis"], "samples");
  EXPECT_EQ(row["cells"][0]["n"], 20000);
  // Half round trips: the centre is the JSON's p50, its interval around it.
  EXPECT_EQ(row["cells"][0]["value"], a["results"][0]["latency_ns"]["p50"]);
  EXPECT_LT(row["cells"][0]["lo"].get<double>(), row["cells"][0]["value"].get<double>());
  EXPECT_GT(row["cells"][0]["hi"].get<double>(), row["cells"][0]["value"].get<double>());
  const json& d = row["deltas"][0];
  EXPECT_EQ(d["method"], "mann_whitney_samples");
  EXPECT_EQ(d["verdict"], "worse");
  EXPECT_NEAR(d["delta_pct"].get<double>(), 20, 1.5);
  EXPECT_LT(d["p"].get<double>(), 1e-6);
  EXPECT_TRUE(d["regressed"].get<bool>());
  const json* p99 = table_of(c, "latency_p99");
  ASSERT_NE(p99, nullptr);
  EXPECT_EQ((*p99)["rows"][0]["deltas"][0]["method"], "quantile_difference");
  ASSERT_EQ(c["regressions"].size(), 2u);
  EXPECT_EQ(c["regressions"][0]["key"], "tcp_lat 64");
  // A higher threshold: still worse, no longer a regression.
  CompareOptions lax;
  lax.threshold_pct = 50;
  EXPECT_TRUE(compare({{"a.json", a}, {"b.json", b}}, lax)["regressions"].empty());
}

// --confidence is the level of the intervals shown, never a verdict's: a p99 row's test
// takes its standard errors from intervals at one fixed level, so its p is the same whatever
// level is shown (intervals read off buckets widen in steps, which moved p; CI once saw a
// regression at 99% that 80% did not call).
TEST(CompareModel, TheShownLevelMovesIntervalsNeverAP99Verdict) {
  const json a = run_doc({latency_result("tcp_lat", 64, samples(10000, 600, 21), 0.5)});
  const json b = run_doc({latency_result("tcp_lat", 64, samples(10400, 600, 22), 0.5)});
  CompareOptions narrow, wide;
  narrow.confidence = 0.8;
  wide.confidence = 0.99;
  const json n = compare({{"a.json", a}, {"b.json", b}}, narrow);
  const json w = compare({{"a.json", a}, {"b.json", b}}, wide);
  const json &rn = (*table_of(n, "latency_p99"))["rows"][0],
             &rw = (*table_of(w, "latency_p99"))["rows"][0];
  EXPECT_EQ(rn["deltas"][0]["method"], "quantile_difference");
  EXPECT_GT(rw["cells"][0]["hi"].get<double>() - rw["cells"][0]["lo"].get<double>(),
            rn["cells"][0]["hi"].get<double>() - rn["cells"][0]["lo"].get<double>());
  EXPECT_EQ(rn["deltas"][0]["p"], rw["deltas"][0]["p"]) << rn.dump() << "\n" << rw.dump();
  EXPECT_EQ(rn["deltas"][0]["verdict"], rw["deltas"][0]["verdict"]);
  EXPECT_EQ(n["regressions"], w["regressions"]);
}

TEST(CompareModel, TheSameRunTwiceIsNoDifference) {
  const json a = run_doc({latency_result("tcp_lat", 1, samples(8000, 5000, 3), 0.5)});
  const json c = compare({{"a.json", a}, {"again.json", a}});
  for (const json& t : c["tables"]) {
    const json& d = t["rows"][0]["deltas"][0];
    EXPECT_EQ(d["verdict"], "~") << t["metric"];
    EXPECT_EQ(d["p"], 1) << t["metric"];
    EXPECT_FALSE(d["regressed"].get<bool>());
  }
  EXPECT_TRUE(c["regressions"].empty());
  EXPECT_TRUE(c["parameters"].empty());
}

TEST(CompareModel, RepetitionsAreTheUnitWhereEveryRunHasThem) {
  std::vector<json> ra, rb;
  for (int rep = 1; rep <= 5; ++rep) {
    // Repetitions 500 ns apart (their medians cannot tie), every one of b above a's.
    json x = latency_result("tcp_lat", 64, samples(10000 + 500 * rep, 2000, rep), 0.5);
    json y = latency_result("tcp_lat", 64, samples(20000 + 500 * rep, 2000, 10 + rep), 0.5);
    for (json* r : {&x, &y}) {
      (*r)["repetition"] = rep;
      (*r)["repetitions"] = 5;
    }
    ra.push_back(x);
    rb.push_back(y);
  }
  const json c = compare({{"a", run_doc(ra)}, {"b", run_doc(rb)}});
  const json& row = (*table_of(c, "latency_p50"))["rows"][0];
  EXPECT_EQ(row["basis"], "repetitions");
  EXPECT_EQ(row["cells"][0]["n"], 5);
  // Five against five, all of b above: the exact U test's smallest p, 2/252.
  EXPECT_EQ(row["deltas"][0]["method"], "mann_whitney_repetitions");
  EXPECT_NEAR(row["deltas"][0]["p"].get<double>(), 2.0 / 252, 1e-9);
  // Five repetitions cannot give a 95% interval for a median: the range, at 93.75%.
  EXPECT_NEAR(row["cells"][0]["confidence"].get<double>(), 0.9375, 1e-9);
  const std::string text = comparison_text(c);
  EXPECT_NE(text.find("too few repetitions for a 95% interval"), std::string::npos) << text;
  EXPECT_NE(text.find("n: repetitions a run"), std::string::npos) << text;
}

TEST(CompareModel, SchemaOneHasNoHistogramSoNoTest) {
  json old_result = latency_result("tcp_lat", 64, samples(10000, 1000, 4), 0.5);
  old_result.erase("latency_histogram");
  json old = run_doc({old_result});
  old["schema"] = 1;
  const json now = run_doc({latency_result("tcp_lat", 64, samples(10000, 1000, 5), 0.5)});
  const json c = compare({{"old.json", old}, {"new.json", now}});
  const json& row = (*table_of(c, "latency_p50"))["rows"][0];
  EXPECT_EQ(row["basis"], "single");
  EXPECT_EQ(row["deltas"][0]["verdict"], "?");
  EXPECT_NE(row["deltas"][0]["why"].get<std::string>().find("schema 1"), std::string::npos);
  EXPECT_TRUE(row["deltas"][0].contains("delta_pct"));  // the figures still compare
}

TEST(CompareModel, BandwidthRowsPerDirectionAndStreamAndWhatCannotBeCompared) {
  json bi = bw_result("tcp_bi_bw", 2e9, "both");
  bi["bandwidth"]["client_to_server_Bps"] = 1.2e9;
  bi["bandwidth"]["server_to_client_Bps"] = 0.8e9;
  json streams = bw_result("tcp_bw", 3e9);
  streams["streams"] = {{{"stream", 0}, {"recv_Bps", 1.6e9}}, {{"stream", 1}, {"recv_Bps", 1.4e9}}};
  json reversed = bw_result("tcp_bw", 3e9, "server_to_client");
  json failed = {{"test", "udp_bw"},
                 {"status", "error"},
                 {"error", "connection refused"},
                 {"params", {{"msg_size", 65536}}}};
  json ok_udp = bw_result("udp_bw", 1e9);
  json b_streams = streams;
  b_streams["params"]["cq_poll"] = true;
  const json c = compare(
      {{"a.json", run_doc({bi, streams, ok_udp})}, {"b.json", run_doc({bi, reversed, failed})}});
  const json* bw = table_of(c, "bandwidth");
  ASSERT_NE(bw, nullptr);
  for (const char* key :
       {"tcp_bi_bw 64K", "tcp_bi_bw 64K client->server", "tcp_bi_bw 64K server->client",
        "tcp_bw 64K", "tcp_bw 64K stream 0", "tcp_bw 64K stream 1", "udp_bw 64K"}) {
    EXPECT_NE(row_of(*bw, key), nullptr) << key;
  }
  EXPECT_EQ(row_of(*bw, "tcp_bi_bw 64K client->server")->at("deltas")[0]["verdict"], "?");
  EXPECT_NE(row_of(*bw, "tcp_bw 64K")
                ->at("deltas")[0]["why"]
                .get<std::string>()
                .find("client_to_server vs server_to_client"),
            std::string::npos);
  EXPECT_EQ(row_of(*bw, "tcp_bw 64K stream 1")->at("cells")[1]["why"], "not measured");
  EXPECT_EQ(row_of(*bw, "udp_bw 64K")->at("cells")[1]["why"], "failed: connection refused");
  EXPECT_EQ(table_of(c, "msg_rate"), nullptr);  // a rate only where nothing else applies
}

TEST(CompareModel, ParametersThatDifferAreNamedSweptOnesAreNot) {
  json a1 = latency_result("tcp_lat", 1, samples(9000, 500, 6), 0.5);
  json a2 = latency_result("tcp_lat", 4096, samples(12000, 500, 7), 0.5);
  for (json* r : {&a1, &a2}) (*r)["params"]["cq_poll"] = false;
  json b1 = a1, b2 = a2;
  b1["params"]["cq_poll"] = b2["params"]["cq_poll"] = true;
  json b = run_doc({b1, b2});
  b["server"]["node"] = "gamma";
  const json c = compare({{"block.json", run_doc({a1, a2})}, {"poll.json", b}});
  ASSERT_EQ(c["parameters"].size(), 2u) << c["parameters"].dump();
  EXPECT_EQ(c["parameters"][0], json({{"name", "server"}, {"values", {"beta", "gamma"}}}));
  EXPECT_EQ(c["parameters"][1], json({{"name", "cq_poll"}, {"values", {"0", "1"}}}));
  const std::string text = comparison_text(c);
  EXPECT_NE(text.find("cq_poll:  0 -> 1"), std::string::npos) << text;
  EXPECT_LT(text.find("cq_poll"), text.find("latency p50")) << "parameters come first";
  EXPECT_NE(text.find("tcp_lat 4K"), std::string::npos) << text;
}

TEST(CompareModel, MatrixDocumentsAreRefusedByName) {
  auto c = build_comparison({{"m.json", testdocs::matrix_doc()}, {"a.json", run_doc({})}}, {});
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("m.json: a cluster matrix document"), std::string::npos);
}

TEST(CompareText, OneUnitPerColumnFromItsBulkAndTheVerdicts) {
  // Three sizes near 10 us and one far outlier: the column stays in microseconds.
  std::vector<json> ra, rb;
  const uint64_t sizes[] = {1, 64, 1024, 65536};
  for (size_t i = 0; i < 4; ++i) {
    const double center = i == 3 ? 3e6 : 10000;
    ra.push_back(latency_result("tcp_lat", sizes[i], samples(center, 3000, 20 + i), 0.5));
    rb.push_back(latency_result("tcp_lat", sizes[i], samples(center, 3000, 20 + i), 0.5));
  }
  rb[1] = latency_result("tcp_lat", 64, samples(15000, 3000, 99), 0.5);
  const json c = compare({{"a.json", run_doc(ra)}, {"b.json", run_doc(rb)}});
  const std::string text = comparison_text(c);
  EXPECT_NE(text.find("p50 (\u00b5s)"), std::string::npos) << text;
  EXPECT_EQ(text.find("p50 (ms)"), std::string::npos) << text;
  EXPECT_NE(text.find("~ (p=1.000 n=3k)"), std::string::npos) << text;
  EXPECT_NE(text.find("+50."), std::string::npos) << text;
  EXPECT_NE(text.find("geomean"), std::string::npos) << text;
  EXPECT_NE(text.find("regressions past 5%:\n  latency p50 tcp_lat 64: b.json +"),
            std::string::npos)
      << text;
}

TEST(CompareText, DeltaText) {
  EXPECT_EQ(delta_text(12.345), "+12.3%");
  EXPECT_EQ(delta_text(-0.514), "-0.51%");
  EXPECT_EQ(delta_text(250), "+250%");
  EXPECT_EQ(delta_text(0), "+0.00%");
}

}  // namespace
}  // namespace fabperf::report
