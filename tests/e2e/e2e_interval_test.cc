// End-to-end tests of --interval, --json-stream and the terminal progress line: a real server
// and client on loopback, checked as a user (and a script reading the JSON lines) sees them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A file name in the temporary directory, removed at the end of the test.
class TempFile {
 public:
  explicit TempFile(const std::string& tag)
      : path_((fs::temp_directory_path() /
               ("fabperf_" + tag + "_" + std::to_string(getpid()) + ".jsonl"))
                  .string()) {
    fs::remove(path_);
  }
  ~TempFile() { fs::remove(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::string read_all(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// The records of a --json-stream file, each line parsed (a line that does not parse fails).
std::vector<json> records_of(const std::string& text) {
  std::vector<json> out;
  for (const std::string& line : lines_of(text)) {
    json j = json::parse(line, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << "not JSON: " << line.substr(0, 200);
    if (!j.is_discarded()) out.push_back(std::move(j));
  }
  return out;
}

// One run's records: its intervals and its result.
struct RunRecords {
  std::vector<json> intervals;
  json result;
};

// Checks the order (start, then per run: run, intervals, result; end last) and returns the
// runs in plan order.
std::vector<RunRecords> check_order(const std::vector<json>& records) {
  std::vector<RunRecords> runs;
  EXPECT_GE(records.size(), 2u);
  if (records.size() < 2) return runs;
  EXPECT_EQ(records.front()["record"], "start");
  EXPECT_EQ(records.back()["record"], "end");
  bool in_run = false;
  for (size_t i = 1; i + 1 < records.size(); ++i) {
    const json& r = records[i];
    const std::string kind = r.value("record", "");
    if (kind == "run") {
      EXPECT_FALSE(in_run) << "a run record inside a run";
      EXPECT_EQ(r["run"], runs.size());
      runs.emplace_back();
      in_run = true;
    } else if (kind == "interval") {
      EXPECT_TRUE(in_run) << "an interval outside a run";
      if (runs.empty()) continue;
      EXPECT_EQ(r["run"], runs.size() - 1);
      EXPECT_EQ(r["interval"], runs.back().intervals.size());  // 0, 1, 2 ... in order
      runs.back().intervals.push_back(r);
    } else if (kind == "result") {
      EXPECT_TRUE(in_run) << "a result without its run record";
      if (runs.empty()) continue;
      EXPECT_EQ(r["run"], runs.size() - 1);
      runs.back().result = r["result"];
      in_run = false;
    } else {
      ADD_FAILURE() << "unexpected record " << r.dump().substr(0, 200);
    }
  }
  EXPECT_FALSE(in_run) << "the last run has no result";
  EXPECT_EQ(records.back()["results"], runs.size());
  return runs;
}

uint64_t sum_of(const std::vector<json>& intervals, const char* key) {
  uint64_t total = 0;
  for (const json& i : intervals) total += i[key].get<uint64_t>();
  return total;
}

// index -> count of a latency_histogram object.
std::map<uint64_t, uint64_t> buckets_of(const json& histogram) {
  std::map<uint64_t, uint64_t> out;
  for (const json& pair : histogram["counts"])
    out[pair[0].get<uint64_t>()] += pair[1].get<uint64_t>();
  return out;
}

// A latency run: the intervals' histograms merged are the result's, bucket for bucket, and
// their samples sum to its samples.
void expect_histograms_merge(const RunRecords& run) {
  ASSERT_TRUE(run.result.contains("latency_histogram")) << run.result.dump().substr(0, 300);
  std::map<uint64_t, uint64_t> merged;
  uint64_t samples = 0;
  for (const json& i : run.intervals) {
    ASSERT_TRUE(i.contains("latency_histogram"));
    EXPECT_EQ(i["latency_histogram"]["scale"], run.result["latency_histogram"]["scale"]);
    for (const auto& [index, count] : buckets_of(i["latency_histogram"])) merged[index] += count;
    samples += i["latency_ns"]["samples"].get<uint64_t>();
  }
  EXPECT_EQ(samples, run.result["latency_ns"]["samples"].get<uint64_t>());
  EXPECT_EQ(merged, buckets_of(run.result["latency_histogram"]));
}

TEST(IntervalTest, TcpBwIntervalLinesAndStreamSumToTheClientsSends) {
  ServerProcess server;
  TempFile file("tcp_bw");
  RunOutput r = run({"localhost", "-lp", server.port_arg(), "--interval", "0.1", "-t", "0.5",
                     "--json-stream", file.path(), "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Lines as the run goes, then the final block as without --interval.
  EXPECT_GE(count_of(r.out, "tcp_bw [0."), 2u) << r.out;
  EXPECT_TRUE(contains(r.out, "send_bw = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "tcp_bw:\n    bw  =")) << r.out;
  EXPECT_LT(r.out.find("tcp_bw [0.00-"), r.out.find("tcp_bw:\n")) << r.out;
  auto runs = check_order(records_of(read_all(file.path())));
  ASSERT_EQ(runs.size(), 1u);
  const RunRecords& run0 = runs[0];
  ASSERT_GE(run0.intervals.size(), 2u);
  // The intervals count the client's sends: exactly the client's counters in the result.
  const json& loc = run0.result["counters"]["loc"];
  EXPECT_EQ(sum_of(run0.intervals, "send_bytes"), loc["send_bytes"].get<uint64_t>());
  EXPECT_EQ(sum_of(run0.intervals, "send_msgs"), loc["send_msgs"].get<uint64_t>());
  EXPECT_GT(loc["send_bytes"].get<uint64_t>(), 0u);
  // The result object carries the intervals too (what the HTML report draws).
  ASSERT_TRUE(run0.result.contains("intervals"));
  EXPECT_EQ(run0.result["intervals"].size(), run0.intervals.size());
  for (size_t i = 1; i < run0.intervals.size(); ++i) {
    EXPECT_DOUBLE_EQ(run0.intervals[i]["start_s"].get<double>(),
                     run0.intervals[i - 1]["end_s"].get<double>());
  }
}

TEST(IntervalTest, StreamsIntervalsSumEveryStream) {
  ServerProcess server;
  TempFile file("streams");
  RunOutput r = run({"localhost", "-lp", server.port_arg(), "--interval", "0.1", "-t", "0.4",
                     "--streams", "2", "--json-stream", file.path(), "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count_of(r.out, "tcp_bw [0."), 2u) << r.out;
  auto runs = check_order(records_of(read_all(file.path())));
  ASSERT_EQ(runs.size(), 1u);
  const json& loc = runs[0].result["counters"]["loc"];
  EXPECT_EQ(sum_of(runs[0].intervals, "send_bytes"), loc["send_bytes"].get<uint64_t>());
  EXPECT_EQ(sum_of(runs[0].intervals, "send_msgs"), loc["send_msgs"].get<uint64_t>());
}

TEST(IntervalTest, TcpLatIntervalHistogramsMergeToTheResult) {
  ServerProcess server;
  TempFile file("tcp_lat");
  RunOutput r = run({"localhost", "-lp", server.port_arg(), "--interval", "0.1", "-t", "0.5",
                     "--json-stream", file.path(), "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count_of(r.out, "tcp_lat [0."), 2u) << r.out;
  EXPECT_TRUE(contains(r.out, "msg_rate = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "p99 = ")) << r.out;
  EXPECT_TRUE(contains(r.out, "tcp_lat:\n    latency  =")) << r.out;
  auto runs = check_order(records_of(read_all(file.path())));
  ASSERT_EQ(runs.size(), 1u);
  expect_histograms_merge(runs[0]);
  // The client's sends less the warm-up ones (the measured phase begins after them).
  const json& res = runs[0].result;
  EXPECT_EQ(sum_of(runs[0].intervals, "send_msgs"),
            res["counters"]["loc"]["send_msgs"].get<uint64_t>() -
                res["params"]["warmup"].get<uint64_t>());
}

TEST(IntervalTest, FabricLatencyAndBandwidthOverTcp) {
  TempFile file("fabric");
  RunOutput r = run({"--loopback", "-P", "tcp", "--interval", "0.1", "-t", "0.5", "--json-stream",
                     file.path(), "rdm_send_lat", "rdm_write_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_GE(count_of(r.out, "rdm_send_lat [0."), 2u) << r.out;
  EXPECT_GE(count_of(r.out, "rdm_write_bw [0."), 2u) << r.out;
  auto runs = check_order(records_of(read_all(file.path())));
  ASSERT_EQ(runs.size(), 2u);
  expect_histograms_merge(runs[0]);
  // The writer's measured writes: the client's send counters.
  const json& loc = runs[1].result["counters"]["loc"];
  EXPECT_EQ(sum_of(runs[1].intervals, "send_bytes"), loc["send_bytes"].get<uint64_t>());
  EXPECT_EQ(sum_of(runs[1].intervals, "send_msgs"), loc["send_msgs"].get<uint64_t>());
  EXPECT_GT(loc["send_msgs"].get<uint64_t>(), 0u);
}

// A sweep on standard output as JSON lines only: no text, every line parses, one run each.
TEST(IntervalTest, JsonStreamOnStandardOutput) {
  RunOutput r =
      run({"--loopback", "-t", "0.2", "-oo", "msg_size:1:4:*2", "--json-stream", "-", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto runs = check_order(records_of(r.out));
  ASSERT_EQ(runs.size(), 3u);
  EXPECT_EQ(runs[2].result["loop"]["msg_size"], 4);
  for (const RunRecords& run : runs) EXPECT_TRUE(run.intervals.empty());  // no --interval
}

TEST(IntervalTest, JsonStreamRefusals) {
  RunOutput both = run({"--loopback", "--json-stream", "-", "--json", "-", "tcp_lat"});
  EXPECT_EQ(both.exit_code, 2);
  EXPECT_TRUE(contains(both.err, "--json-stream")) << both.err;
  RunOutput nodir = run({"--loopback", "--json-stream", "/nonexistent_dir/x.jsonl", "tcp_lat"});
  EXPECT_EQ(nodir.exit_code, 2);
  EXPECT_TRUE(contains(nodir.err, "--json-stream /nonexistent_dir/x.jsonl")) << nodir.err;
  EXPECT_EQ(nodir.out, "");  // refused before any test ran
}

TEST(IntervalTest, BadIntervalsAreRefused) {
  for (const char* bad : {"0", "0s", "-1", "abc", ""}) {
    RunOutput r = run({"--loopback", "--interval", bad, "-t", "0.2", "tcp_lat"});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_TRUE(contains(r.err, "--interval")) << bad << ": " << r.err;
    EXPECT_EQ(r.out, "") << bad;
  }
  RunOutput missing = run({"--loopback", "tcp_lat", "--interval"});
  EXPECT_EQ(missing.exit_code, 2) << missing.err;
}

// Progress only on a terminal: never in a pipe, drawn and cleared under a pseudo-terminal.
TEST(IntervalTest, ProgressOnlyOnATerminal) {
  RunOutput piped = run({"--loopback", "-t", "0.2", "-oo", "msg_size:1:4:*2", "tcp_lat"});
  ASSERT_EQ(piped.exit_code, 0) << piped.err;
  EXPECT_FALSE(contains(piped.err, "[1/3]")) << piped.err;
  EXPECT_FALSE(contains(piped.out, "[1/3]")) << piped.out;
  EXPECT_FALSE(contains(piped.err, "\r")) << piped.err;
  if (access("/usr/bin/script", X_OK) != 0) GTEST_SKIP() << "no util-linux script";
  // script(1) gives the command a pseudo-terminal for standard output and error alike.
  const std::string command = fabperf_bin() + " --loopback -t 0.3 -oo msg_size:1:4:*2 tcp_lat";
  RunOutput tty = run({"-qec", command, "/dev/null"}, 60, "/usr/bin/script");
  ASSERT_EQ(tty.exit_code, 0) << tty.out << tty.err;
  EXPECT_TRUE(contains(tty.out, "[1/3] tcp_lat msg_size=1 bytes")) << tty.out;
  EXPECT_TRUE(contains(tty.out, "[3/3] tcp_lat msg_size=4 bytes")) << tty.out;
  EXPECT_TRUE(contains(tty.out, "\r\x1b[K")) << tty.out;  // cleared before the results
  // The sweep's one table (a loaded host's noise warnings start "tcp_lat: warning" too).
  EXPECT_EQ(count_of(tty.out, "tcp_lat:\r\n") + count_of(tty.out, "tcp_lat:\n"), 1u) << tty.out;
  // Each result block starts on a cleared line: the progress never sits before its title.
  EXPECT_FALSE(contains(tty.out,
                        " s"
                        "tcp_lat:"))
      << tty.out;
}

}  // namespace
}  // namespace fabperf::testing
