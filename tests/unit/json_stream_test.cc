// Unit tests of --json-stream's record writer and records, the result's "intervals", the
// interval text line and the terminal progress line.
#include "report/json_stream.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/interval.h"
#include "engine/test_result.h"
#include "engine/test_spec.h"
#include "options/option_table.h"
#include "report/progress.h"
#include "report/reporter.h"

namespace fabperf {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

TestSpec spec_of(const char* name, TestKind kind, bool reliable = true) {
  TestSpec s{.name = name,
             .family = TransportFamily::kSocket,
             .kind = kind,
             .transport = "tcp",
             .summary = "",
             .options = {},
             .default_msg_size = 1,
             .client = nullptr,
             .server = nullptr};
  s.reliable = reliable;
  return s;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// Every record is one line, readable before the file is closed (flushed as written).
TEST(JsonLineWriter, OneFlushedLinePerRecord) {
  fs::path path = fs::temp_directory_path() / ("fabperf_jsonl_" + std::to_string(getpid()));
  std::FILE* f = std::fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  JsonLineWriter writer(f);
  ASSERT_TRUE(writer.write({{"record", "start"}, {"text", "a\nb"}}).ok());
  // Read through another handle while this one is still open and unflushed by fclose.
  auto lines = lines_of(path);
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(json::parse(lines[0])["text"], "a\nb");
  ASSERT_TRUE(writer.write({{"record", "end"}, {"bad", std::string("\xff\xfe")}}).ok());
  lines = lines_of(path);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(json::parse(lines[1])["record"], "end");  // invalid UTF-8 replaced, not thrown
  std::fclose(f);
  fs::remove(path);
}

TEST(JsonLineWriter, AFailedWriteSticks) {
  std::FILE* f = std::fopen("/dev/null", "r");  // not writable
  ASSERT_NE(f, nullptr);
  JsonLineWriter writer(f);
  EXPECT_FALSE(writer.write({{"record", "start"}}).ok());
  EXPECT_FALSE(writer.status().ok());
  EXPECT_FALSE(writer.write({{"record", "end"}}).ok());
  std::fclose(f);
}

TEST(JsonStreamRecords, StartRunResultEnd) {
  RunInfo info;
  info.started = "2026-01-01T00:00:00Z";
  info.argv = {"fabperf", "--interval", "0.5", "tcp_bw"};
  info.percentiles = {50, 99};
  json start = stream_start_record(info, 0.5);
  EXPECT_EQ(start["record"], "start");
  EXPECT_EQ(start["interval_s"], 0.5);
  EXPECT_EQ(start["command"], json(info.argv));
  EXPECT_TRUE(start["server"].is_object());

  const TestSpec spec = spec_of("tcp_bw", TestKind::kBandwidth);
  TestResult r;
  r.spec = &spec;
  r.test = "tcp_bw";
  r.local_opts = default_run_options();
  r.remote_opts = r.local_opts;
  r.loc.send_bytes = 1000;
  r.loc.real_time_ns = 1'000'000'000;
  IntervalRecord ir;
  ir.end_s = 0.5;
  ir.counts = {600, 6, 0, 0, 0};
  r.intervals.push_back(IntervalSummary::of(ir));
  derive_figures(r, LatencyRecorder(), {50});
  json run = stream_run_record(3, r);
  EXPECT_EQ(run["record"], "run");
  EXPECT_EQ(run["run"], 3);
  EXPECT_EQ(run["test"], "tcp_bw");
  EXPECT_TRUE(run["params"].contains("msg_size"));
  json result = stream_result_record(3, r);
  EXPECT_EQ(result["record"], "result");
  EXPECT_EQ(result["result"], result_to_json(r));  // the --json document's object
  ASSERT_TRUE(result["result"].contains("intervals"));
  const json& iv = result["result"]["intervals"][0];
  EXPECT_EQ(iv["t_s"], 0.5);
  EXPECT_EQ(iv["bytes"], 600);
  EXPECT_EQ(iv["msgs"], 6);
  EXPECT_FALSE(iv.contains("latency_ns"));
  json end = stream_end_record(4, 1, true);
  EXPECT_EQ(end["record"], "end");
  EXPECT_EQ(end["results"], 4);
  EXPECT_EQ(end["errors"], 1);
  EXPECT_EQ(end["interrupted"], true);
}

TEST(JsonStreamRecords, IntervalCarriesCountsRatesAndItsHistogram) {
  const TestSpec spec = spec_of("udp_lat", TestKind::kLatency, false);
  TestResult pending;
  pending.spec = &spec;
  pending.test = "udp_lat";
  Histogram h;
  for (uint64_t v = 1000; v < 3000; v += 10) h.record(v);
  IntervalRecord r;
  r.index = 2;
  r.start_s = 0.2;
  r.end_s = 0.3;
  r.counts = {6400, 201, 6400, 200, 1};
  r.latency = &h;
  r.latency_scale = 0.5;
  json j = stream_interval_record(1, pending, r);
  EXPECT_EQ(j["record"], "interval");
  EXPECT_EQ(j["run"], 1);
  EXPECT_EQ(j["interval"], 2);
  EXPECT_EQ(j["send_msgs"], 201);
  EXPECT_EQ(j["recv_bytes"], 6400);
  EXPECT_EQ(j["lost"], 1);
  EXPECT_NEAR(j["msg_rate"].get<double>(), 2010, 1e-6);
  EXPECT_EQ(j["latency_ns"]["samples"], 200);
  auto back = Histogram::from_json(j["latency_histogram"]);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->count(), 200u);
  EXPECT_EQ(j["latency_histogram"]["scale"], 0.5);
  // The text line shows rate, mean, p99 and the loss of an unreliable ping-pong.
  std::string line = interval_line("udp_lat", pending, r, DisplayOptions{});
  EXPECT_NE(line.find("udp_lat [0.20-0.30 s]"), std::string::npos) << line;
  EXPECT_NE(line.find("msg_rate = 2.01 K/sec"), std::string::npos) << line;
  EXPECT_NE(line.find("latency = "), std::string::npos) << line;
  EXPECT_NE(line.find("p99 = "), std::string::npos) << line;
  EXPECT_NE(line.find("lost = 1"), std::string::npos) << line;
  EXPECT_EQ(line.back(), '\n');
}

TEST(IntervalLine, BandwidthShowsTheDirectionCounted) {
  const TestSpec spec = spec_of("tcp_bw", TestKind::kBandwidth);
  TestResult pending;
  pending.spec = &spec;
  IntervalRecord r;
  r.end_s = 1;
  r.counts = {2'000'000'000, 1000, 0, 0, 0};
  std::string line = interval_line("tcp_bw", pending, r, DisplayOptions{});
  EXPECT_NE(line.find("send_bw = 2 GB/sec"), std::string::npos) << line;
  EXPECT_NE(line.find("msg_rate = 1 K/sec"), std::string::npos) << line;
  EXPECT_EQ(line.find("recv_bw"), std::string::npos) << line;
  EXPECT_EQ(line.find("latency"), std::string::npos) << line;
  EXPECT_EQ(line.find("lost"), std::string::npos) << line;
}

TEST(TerminalProgress, LineAndLabel) {
  EXPECT_EQ(TerminalProgress::line(2, 17, "tcp_lat msg_size=4 KiB", 12.04),
            "[3/17] tcp_lat msg_size=4 KiB  12.0 s");
  TestResult r;
  r.test = "tcp_lat";
  // Filled in place: GCC 12 takes a pushed {spec, variant} temporary's string member for
  // maybe-uninitialized (-Wmaybe-uninitialized, an error in the CI build).
  r.loop_values.resize(1);
  r.loop_values[0].first = &option_of(&RunOptions::msg_size);
  r.loop_values[0].second = OptionValue(uint64_t{4096});
  EXPECT_EQ(progress_label(r), "tcp_lat msg_size=4 KiB");
  r.loop_values[0].second = OptionValue(uint64_t{1000});
  EXPECT_EQ(progress_label(r), "tcp_lat msg_size=1000 bytes");
}

TEST(TerminalProgress, OnlyOnATerminal) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  EXPECT_EQ(make_terminal_progress(fds[1]), nullptr);
  close(fds[0]);
  close(fds[1]);
  int master = posix_openpt(O_RDWR | O_NOCTTY);
  ASSERT_GE(master, 0);
  ASSERT_EQ(grantpt(master), 0);
  ASSERT_EQ(unlockpt(master), 0);
  int slave = open(ptsname(master), O_RDWR | O_NOCTTY);
  ASSERT_GE(slave, 0);
  {
    auto progress = make_terminal_progress(slave);
    ASSERT_NE(progress, nullptr);
    progress->begin(0, 3, "tcp_lat msg_size=1 bytes");  // a sweep: drawn at once
    progress->end();
  }
  std::string got;
  char buf[256];
  fcntl(master, F_SETFL, O_NONBLOCK);
  for (ssize_t n; (n = read(master, buf, sizeof buf)) > 0;) got.append(buf, static_cast<size_t>(n));
  EXPECT_NE(got.find("\r[1/3] tcp_lat msg_size=1 bytes  0.0 s"), std::string::npos) << got;
  EXPECT_NE(got.find("\r\x1b[K"), std::string::npos) << got;  // cleared at the end
  close(slave);
  close(master);
}

}  // namespace
}  // namespace fabperf
