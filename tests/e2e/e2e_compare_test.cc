// End-to-end tests of `fabperf compare` and `--repeat`: real loopback runs saved with --json,
// compared in the terminal, as JSON and as a page; the exit status a CI gate reads; bad
// input named with exit status 2 and nothing written.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "report_docs_util.h"

namespace fabperf::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string run_text(const RunOutput& r) {
  return "exit " + std::to_string(r.exit_code) + "\nstdout: " + r.out + "\nstderr: " + r.err;
}

// A real run's document, once for the whole suite (runs cost seconds on a loaded machine):
// tcp_lat and tcp_bw at two sizes each, measured twice (--repeat 2).
class CompareTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    RunOutput r = run({"--loopback", "-n", "2000", "--repeat", "2", "-oo", "msg_size:1:1K:*1024",
                       "--json", dir_->file("a.json"), "tcp_lat", "-n", "200", "tcp_bw"},
                      180);
    ASSERT_EQ(r.exit_code, 0) << run_text(r);
    run_output_ = new RunOutput(r);
  }
  static void TearDownTestSuite() {
    delete dir_;
    delete run_output_;
  }
  static json doc() { return json::parse(read_file(dir_->file("a.json"))); }
  static std::string file(const std::string& name) { return dir_->file(name); }
  static void write(const std::string& name, const json& j) {
    write_file(file(name), j.dump(), 0644);
  }
  static TempDir* dir_;
  static RunOutput* run_output_;
};
TempDir* CompareTest::dir_ = nullptr;
RunOutput* CompareTest::run_output_ = nullptr;

TEST_F(CompareTest, RepeatRecordsEveryRepetition) {
  const json d = doc();
  // Two rounds of tcp_lat 1, tcp_lat 1K, tcp_bw 1, tcp_bw 1K.
  ASSERT_EQ(d["results"].size(), 8u) << d.dump().substr(0, 2000);
  for (size_t i = 0; i < 8; ++i) {
    const json& r = d["results"][i];
    EXPECT_EQ(r["repetitions"], 2) << i;
    EXPECT_EQ(r["repetition"], i < 4 ? 1 : 2) << i;
    EXPECT_EQ(r["test"], d["results"][i % 4]["test"]) << i;
    EXPECT_EQ(r["params"]["msg_size"], d["results"][i % 4]["params"]["msg_size"]) << i;
  }
  // The text output prints every repetition: a sweep table per test and repetition, a row
  // per size (`-vu` would print a block per size).
  const std::string& out = run_output_->out;
  size_t tables = 0;
  for (size_t at = 0; (at = out.find("tcp_lat:", at)) != std::string::npos; ++at) {
    ++tables;
    const size_t end = out.find("tcp_bw:", at);
    const std::string table = out.substr(at, end == std::string::npos ? end : end - at);
    EXPECT_NE(table.find("\n           1 "), std::string::npos) << table;
    EXPECT_NE(table.find("\n        1024 "), std::string::npos) << table;
  }
  EXPECT_EQ(tables, 2u) << out;
}

TEST_F(CompareTest, ARunAgainstItselfChangesNothingAndExitsZero) {
  RunOutput r = run({"compare", "before=" + file("a.json"), "after=" + file("a.json")});
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  for (const char* expect :
       {"runs:\n  before", "parameters: the same in every run", "latency p50", "latency p99",
        "bandwidth", "tcp_lat 1 ", "tcp_lat 1K", "tcp_bw 1K", "vs before", "~ (p=1.000 n=2)",
        "n: repetitions a run", "regressions past 5%: none"}) {
    EXPECT_TRUE(contains(r.out, expect)) << expect << "\n" << r.out;
  }
}

// A copy of the run whose latencies are all twice as long and whose bandwidth halved: every
// row worse, significantly and past the threshold, so the exit status is 1 (a CI gate).
TEST_F(CompareTest, ARegressionPastTheThresholdExitsOne) {
  json slow = doc();
  for (json& r : slow["results"]) {
    if (r.contains("latency_histogram")) {
      r["latency_histogram"]["scale"] = r["latency_histogram"]["scale"].get<double>() * 2;
      for (const char* k : {"p50", "p99"})
        r["latency_ns"][k] = r["latency_ns"][k].get<double>() * 2;
    }
    if (r.contains("bandwidth"))
      r["bandwidth"]["recv_Bps"] = r["bandwidth"]["recv_Bps"].get<double>() / 2;
    r["params"]["warmup"] = 99;
  }
  write("slow.json", slow);
  RunOutput r = run({"compare", file("a.json"), file("slow.json")});
  ASSERT_EQ(r.exit_code, 1) << run_text(r);
  EXPECT_TRUE(contains(r.out, "warmup:  10 -> 99")) << r.out;
  EXPECT_TRUE(contains(r.out, "+100%")) << r.out;
  EXPECT_TRUE(contains(r.out, "regressions past 5%:\n  latency p50 tcp_lat 1: slow.json +100%"))
      << r.out;
  // Latency rows are tested on every sample of the histograms; bandwidth rows have only the
  // two repetitions a run, which no test can call different (2 of C(4, 2) orderings): "~".
  const size_t bw_row = r.out.find("\ntcp_bw 1 ");
  ASSERT_NE(bw_row, std::string::npos) << r.out;
  const std::string bw_line = r.out.substr(bw_row + 1, r.out.find('\n', bw_row + 1) - bw_row - 1);
  EXPECT_TRUE(contains(bw_line, "~ (p=")) << bw_line;
  EXPECT_TRUE(contains(bw_line, " n=2)")) << bw_line;
  EXPECT_TRUE(contains(r.out, "n: samples (every one, from the histogram)")) << r.out;
  // A threshold past the change: exit 0.
  r = run({"compare", file("a.json"), file("slow.json"), "--threshold", "150"});
  EXPECT_EQ(r.exit_code, 0) << run_text(r);

  // --json: the same comparison as a document, the text moved to standard error.
  r = run({"compare", file("a.json"), file("slow.json"), "--json", "-"});
  ASSERT_EQ(r.exit_code, 1) << run_text(r);
  const json c = json::parse(r.out);
  EXPECT_EQ(c["kind"], "compare");
  EXPECT_EQ(c["runs"][1]["label"], "slow.json");
  EXPECT_FALSE(c["regressions"].empty());
  EXPECT_TRUE(contains(r.err, "latency p50")) << r.err;
}

// The first delta of the row `key` in `metric`'s table of a --json comparison.
const json& delta_of(const json& c, const std::string& metric, const std::string& key) {
  static const json none;
  for (const json& t : c["tables"]) {
    if (t["metric"] != metric) continue;
    for (const json& row : t["rows"]) {
      if (row["key"] == key) return row["deltas"][0];
    }
  }
  return none;
}

// The cell of run `run` in that row.
const json& cell_of(const json& c, const std::string& metric, const std::string& key, int run) {
  static const json none;
  for (const json& t : c["tables"]) {
    if (t["metric"] != metric) continue;
    for (const json& row : t["rows"]) {
      if (row["key"] == key) return row["cells"][run];
    }
  }
  return none;
}

// --alpha sets what counts as significant: bandwidth cut a hundredfold, two repetitions
// against two (the exact U test's smallest p, 1/3: a shared host's repetitions can differ by
// 2x, not by 100x), is "~" at 0.05 and worse at 0.4. --confidence
// sets the level of the intervals, not the verdicts (the tests' p does not depend on it).
TEST_F(CompareTest, AlphaDecidesAVerdictAndConfidenceTheIntervals) {
  json slow = doc();
  for (json& r : slow["results"]) {
    if (r.contains("bandwidth"))
      r["bandwidth"]["recv_Bps"] = r["bandwidth"]["recv_Bps"].get<double>() / 100;
  }
  write("cut.json", slow);
  // The intervals come from the histogram's buckets (0.1% wide): a quiet run's 4,000 samples
  // can put both levels' ranks around the median in one bucket, so equal widths are right
  // there (CI saw 8 ns and 8 ns). A run whose every sample has a bucket of its own must widen.
  json spread = doc();
  for (json& r : spread["results"]) {
    if (r["test"] != "tcp_lat" || !r.contains("latency_histogram")) continue;
    json& h = r["latency_histogram"];
    const uint64_t first = h["counts"][0][0].get<uint64_t>();
    h["counts"] = json::array();
    for (uint64_t i = 0; i < 4000; ++i) h["counts"].push_back({first + i, 1});
    h["count"] = 4000;
  }
  write("spread.json", spread);
  auto compared = [&](std::vector<std::string> extra, const char* first = "a.json") {
    std::vector<std::string> args = {"compare", file(first), file("cut.json"), "--json", "-"};
    args.insert(args.end(), extra.begin(), extra.end());
    RunOutput r = run(args);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << run_text(r);
    json c = json::parse(r.out, nullptr, false);
    EXPECT_FALSE(c.is_discarded()) << run_text(r);
    return std::pair{r.exit_code, c};
  };
  const auto [strict_exit, strict] = compared({});
  const json& d = delta_of(strict, "bandwidth", "tcp_bw 1");
  ASSERT_TRUE(d.is_object()) << strict.dump().substr(0, 3000);
  EXPECT_EQ(d["verdict"], "~") << d.dump();
  EXPECT_NEAR(d["p"].get<double>(), 1.0 / 3, 1e-9) << d.dump();
  EXPECT_EQ(strict_exit, 0);
  const auto [lax_exit, lax] = compared({"--alpha", "0.4"});
  EXPECT_EQ(lax["alpha"], 0.4);
  EXPECT_EQ(delta_of(lax, "bandwidth", "tcp_bw 1")["verdict"], "worse");
  EXPECT_EQ(lax_exit, 1) << "a significant cut is a regression";

  // The latency p50 cells (every sample): a wider interval at 99% than at 80%, the verdicts
  // the same.
  const auto [narrow_exit, narrow] = compared({"--confidence", "0.8"}, "spread.json");
  const auto [wide_exit, wide] = compared({"--confidence", "0.99"}, "spread.json");
  EXPECT_EQ(narrow_exit, wide_exit);
  EXPECT_EQ(wide["confidence"], 0.99);
  const json &n = cell_of(narrow, "latency_p50", "tcp_lat 1", 0),
             &w = cell_of(wide, "latency_p50", "tcp_lat 1", 0);
  ASSERT_TRUE(n.contains("lo") && w.contains("lo")) << narrow.dump().substr(0, 3000);
  EXPECT_NEAR(w["confidence"].get<double>(), 0.99, 0.01);
  EXPECT_LE(w["lo"].get<double>(), n["lo"].get<double>());
  EXPECT_GE(w["hi"].get<double>(), n["hi"].get<double>());
  EXPECT_GT(w["hi"].get<double>() - w["lo"].get<double>(),
            n["hi"].get<double>() - n["lo"].get<double>());
  EXPECT_EQ(delta_of(narrow, "latency_p50", "tcp_lat 1")["verdict"],
            delta_of(wide, "latency_p50", "tcp_lat 1")["verdict"]);
}

TEST_F(CompareTest, HtmlDrawsTheComparisonAndItsRuns) {
  const std::string page = file("compare.html");
  RunOutput r = run({"compare", file("a.json"), file("a.json"), "--html", page});
  ASSERT_EQ(r.exit_code, 0) << run_text(r);
  const std::string html = read_file(page);
  EXPECT_TRUE(contains(html, "fabperf compare: 2 runs against")) << html.substr(0, 400);
  EXPECT_TRUE(contains(html, "\"id\":\"compare\"")) << html.substr(0, 400);
  EXPECT_TRUE(contains(html, "\"differences\":[]"));
}

TEST_F(CompareTest, BadInputIsNamedExitsTwoAndWritesNothing) {
  const std::string html = file("bad.html"), out = file("bad.json");
  auto expect_refused = [&](std::vector<std::string> args, const std::string& message) {
    args.insert(args.begin(), "compare");
    for (const std::string& extra : {std::string("--html"), html, std::string("--json"), out})
      args.push_back(extra);
    RunOutput r = run(args);
    EXPECT_EQ(r.exit_code, 2) << run_text(r);
    EXPECT_TRUE(contains(r.err, message)) << message << "\n" << r.err;
    EXPECT_FALSE(fs::exists(html)) << message;
    EXPECT_FALSE(fs::exists(out)) << message;
  };
  const std::string whole = read_file(file("a.json"));
  write_file(file("cut.json"), whole.substr(0, whole.size() / 2), 0644);
  expect_refused({file("a.json"), file("cut.json")}, "cut.json: truncated: the JSON ends after");
  json newer = doc();
  newer["schema"] = 99;
  write("newer.json", newer);
  expect_refused({file("a.json"), file("newer.json")},
                 "newer.json: schema 99 comes from a newer fabperf (this one reads schemas 1 to");
  write("iperf.json", json{{"start", json::object()}, {"intervals", json::array()}});
  expect_refused({file("iperf.json"), file("a.json")}, "iperf.json: not a fabperf document");
  write_file(file("text.json"), "tcp_lat:\n    latency = 10 us\n", 0644);
  expect_refused({file("a.json"), file("text.json")}, "text.json: not valid JSON");
  write_file(file("huge.json"), "{\"tool\": \"fabperf\", \"schema\": 1e999999}", 0644);
  expect_refused({file("a.json"), file("huge.json")}, "huge.json: not valid JSON");
  expect_refused({file("a.json"), file("missing.json")}, "missing.json: cannot read the file");
  write("matrix.json", testdocs::matrix_doc());
  expect_refused({file("a.json"), file("matrix.json")}, "matrix.json: a cluster matrix document");
  expect_refused({file("a.json")}, "one run: compare needs two or more");
  expect_refused({file("a.json"), file("a.json"), "--alpha", "2"}, "--alpha 2: give a number");
  expect_refused({file("a.json"), file("a.json"), "--bogus"}, "unknown option --bogus");
  RunOutput r =
      run({"compare", file("a.json"), file("a.json"), "--html", file("no-dir") + "/x.html"});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "x.html")) << r.err;
  // An output that is also an input: refused, the run left as it was.
  const std::string before = read_file(file("a.json"));
  r = run({"compare", "--json", file("a.json"), file("a.json"), file("a.json")});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "that is one of the runs to compare")) << r.err;
  EXPECT_EQ(read_file(file("a.json")), before);
  r = run({"compare", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--threshold PCT")) << r.out;
}

TEST(CompareRepeat, RepeatIsRefusedWithMatrixAndOutOfRange) {
  RunOutput r = run({"--loopback", "--repeat", "0", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "--repeat")) << r.err;
  // Refused before any rank starts (no mpirun needed to see it).
  r = run({"--matrix", "--repeat", "2", "-t", "0.2", "tcp_lat"}, 30);
  EXPECT_EQ(r.exit_code, 2) << run_text(r);
  EXPECT_TRUE(contains(r.err, "--repeat does not apply to --matrix")) << r.err;
}

}  // namespace
}  // namespace fabperf::testing
