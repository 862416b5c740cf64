// End-to-end: what users of qperf and iperf3 bring and see: interval tails folded, the
// receiver's message rate, TCP's counters, a paced UDP stream's loss and jitter, --omit, -t
// beside -n, conf's "set but not used", the sweep table, positional -v, and no false "waiting
// for another client's test" after a failed run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "e2e_robust_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

std::vector<json> json_lines(const std::string& text) {
  std::vector<json> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    json j = json::parse(text.substr(start, nl - start), nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << text.substr(start, nl - start);
    if (!j.is_discarded()) out.push_back(std::move(j));
    start = nl + 1;
  }
  return out;
}

std::vector<json> records(const std::vector<json>& lines, const std::string& kind) {
  std::vector<json> out;
  for (const json& j : lines) {
    if (j.value("record", "") == kind) out.push_back(j);
  }
  return out;
}

// A run ending a sliver after a boundary (-t 1 --interval 0.25 ends at 1.00x s) folds the sliver
// into the last interval: no interval under half a period, no impossible rate, and the text
// lines, the JSON lines and the result's intervals (the HTML report's) say the same.
TEST(HabitsE2e, IntervalTailIsFoldedAndEveryOutputAgrees) {
  TempDir dir;
  const std::string stream = dir.file("s.jsonl");
  RunOutput r = run({"--loopback", "-t", "1", "--interval", "0.25", "--json-stream", stream,
                     "tcp_bw", "-n", "3000", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = json_lines(read_file(stream));
  std::vector<json> intervals = records(lines, "interval");
  std::vector<json> results = records(lines, "result");
  ASSERT_EQ(results.size(), 2u);
  for (size_t run = 0; run < 2; ++run) {
    std::vector<json> mine;
    for (const json& i : intervals) {
      if (i["run"] == run) mine.push_back(i);
    }
    const json& kept = results[run]["result"]["intervals"];
    ASSERT_EQ(kept.size(), mine.size());
    ASSERT_FALSE(mine.empty());
    const std::string test = results[run]["result"]["test"];
    for (size_t k = 0; k < mine.size(); ++k) {
      const double span = mine[k]["end_s"].get<double>() - mine[k]["start_s"].get<double>();
      if (mine.size() > 1) {
        EXPECT_GE(span, 0.125) << test << " interval " << k;
      }
      EXPECT_EQ(mine[k]["last"], k + 1 == mine.size());
      // The text line of this interval, with the same span.
      char label[96];
      std::snprintf(label, sizeof label, "%s [%.2f-%.2f s]", test.c_str(),
                    mine[k]["start_s"].get<double>(), mine[k]["end_s"].get<double>());
      EXPECT_TRUE(contains(r.out, label)) << label << "\n" << r.out;
      // The result's copy (what the HTML draws) with the same rate.
      EXPECT_DOUBLE_EQ(kept[k]["t_s"].get<double>(), mine[k]["end_s"].get<double>());
      EXPECT_DOUBLE_EQ(kept[k]["msg_rate"].get<double>(), mine[k]["msg_rate"].get<double>());
    }
    EXPECT_EQ(count_of(r.out, test + " ["), mine.size()) << r.out;
  }
}

// A receiving client (-R) counts a stream's messages, not its recv() calls: each interval's
// msgs match its bytes (in the sender's message size).
TEST(HabitsE2e, ReceiverIntervalsCountMessagesNotRecvCalls) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-R", "-t", "0.5", "--interval", "0.1",
                     "-m", "64K", "--json", "-", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  const json& intervals = doc["results"][0]["intervals"];
  ASSERT_FALSE(intervals.empty());
  uint64_t msgs = 0, bytes = 0;
  for (const json& i : intervals) {
    const uint64_t b = i["recv_bytes"], m = i["recv_msgs"];
    EXPECT_LE(m, b / 65536 + 1) << i.dump();
    EXPECT_GE(m + 1, b / 65536) << i.dump();
    msgs += m;
    bytes += b;
  }
  EXPECT_EQ(msgs, bytes / 65536);
}

// TCP's own counters (TCP_INFO): per interval, in -v, in JSON.
TEST(HabitsE2e, TcpCountersInIntervalsVerboseAndJson) {
  ServerProcess server;
  TempDir dir;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.4", "--interval", "0.1", "-v",
                     "--json", dir.file("r.json"), "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::regex line(R"(tcp_bw \[0\.\d\d-0\.\d\d s\].*retr = \d+  cwnd = .*  rtt = )");
  EXPECT_TRUE(std::regex_search(r.out, line)) << r.out;
  EXPECT_TRUE(contains(r.out, "send_tcp_retransmits")) << r.out;
  EXPECT_TRUE(contains(r.out, "send_tcp_cwnd")) << r.out;
  EXPECT_TRUE(contains(r.out, "send_tcp_rtt")) << r.out;
  json doc = json::parse(read_file(dir.file("r.json")));
  const json& res = doc["results"][0];
  ASSERT_TRUE(res.contains("tcp")) << res.dump().substr(0, 400);
  EXPECT_TRUE(res["tcp"]["loc"]["retransmits"].is_number());
  EXPECT_GT(res["tcp"]["loc"]["cwnd_bytes"].get<uint64_t>(), 0u);
  EXPECT_TRUE(res["tcp"].contains("rem"));
  for (const json& i : res["intervals"]) EXPECT_TRUE(i.contains("tcp")) << i.dump();
  // UDP has no TCP_INFO: none shown.
  RunOutput u = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.2", "-v", "udp_lat"});
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_FALSE(contains(u.out, "tcp_")) << u.out;
}

// --udp_rate paces the sender (never above the rate); a receiving client's intervals show loss
// and jitter, and a receiving server's come back with its result.
TEST(HabitsE2e, PacedUdpShowsLossAndJitter) {
  ServerProcess server;
  // 8 Mbit/s of 1000-byte datagrams: 1,000 a second.
  RunOutput rev = run({"127.0.0.1", "-lp", server.port_arg(), "-R", "--udp_rate", "8m", "-m",
                       "1000", "-t", "0.5", "--interval", "0.1", "--json", "-", "udp_bw"});
  ASSERT_EQ(rev.exit_code, 0) << rev.err;
  json doc = json::parse(rev.out);
  const json& res = doc["results"][0];
  EXPECT_LE(res["messages"]["sent"].get<uint64_t>(), 600u) << res.dump().substr(0, 400);
  EXPECT_GT(res["messages"]["sent"].get<uint64_t>(), 0u);
  ASSERT_TRUE(res.contains("jitter_ns")) << res.dump().substr(0, 400);
  for (const json& i : res["intervals"]) {
    EXPECT_TRUE(i.contains("jitter_ns")) << i.dump();
    EXPECT_TRUE(i.contains("lost")) << i.dump();
  }
  RunOutput fwd = run({"127.0.0.1", "-lp", server.port_arg(), "--udp_rate", "8m", "-m", "1000",
                       "-t", "0.5", "--interval", "0.1", "udp_bw"});
  ASSERT_EQ(fwd.exit_code, 0) << fwd.err;
  const std::regex server_line(R"(udp_bw server \[0\.\d\d-0\.\d\d s\].*lost = \d+  jitter = )");
  EXPECT_TRUE(std::regex_search(fwd.out, server_line)) << fwd.out;
  EXPECT_TRUE(contains(fwd.out, "    jitter")) << fwd.out;
  // udp_rate is udp's: elsewhere, "set but not used".
  RunOutput tcp =
      run({"127.0.0.1", "-lp", server.port_arg(), "--udp_rate", "8m", "-t", "0.1", "tcp_bw"});
  EXPECT_TRUE(contains(tcp.err, "warning: --udp_rate set but not used in test tcp_bw")) << tcp.err;
}

// --omit S: the first S seconds run but are left out, and the output says so.
TEST(HabitsE2e, OmitLeavesTheRampOut) {
  RunOutput r = run({"--loopback", "--omit", "0.4", "-t", "0.3", "--interval", "0.1",
                     "--json-stream", "-", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<json> lines = json_lines(r.out);
  std::vector<json> intervals = records(lines, "interval");
  ASSERT_FALSE(intervals.empty());
  // Intervals of the measured 0.3 s only (0.7 s ran): three, or fewer once folded.
  EXPECT_LE(intervals.size(), 4u);
  EXPECT_DOUBLE_EQ(intervals[0]["start_s"].get<double>(), 0);
  const json res = records(lines, "result").at(0)["result"];
  EXPECT_DOUBLE_EQ(res["omitted_s"].get<double>(), 0.4);
  uint64_t sent = 0;
  for (const json& i : intervals) sent += i["send_bytes"].get<uint64_t>();
  EXPECT_EQ(sent, res["counters"]["loc"]["send_bytes"].get<uint64_t>());
  RunOutput text = run({"--loopback", "--omit", "0.1", "-t", "0.1", "tcp_bw"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(std::regex_search(text.out, std::regex(R"(\n    omitted  = +100 ms\n)"))) << text.out;
}

TEST(HabitsE2e, TimeBesideCountIsShownUnused) {
  TempDir dir;
  RunOutput r =
      run({"--loopback", "-t", "3", "-n", "300", "-vu", "--json", dir.file("r.json"), "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: -t set but not used in test tcp_lat: -n 300 governs"))
      << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(\n    time +=  not used \(-n governs\)\n)")))
      << r.out;
  EXPECT_FALSE(contains(r.out, "3 sec")) << r.out;
  json doc = json::parse(read_file(dir.file("r.json")));
  EXPECT_EQ(doc["results"][0]["unused_params"], json::parse(R"(["time"])"));
}

TEST(HabitsE2e, ConfSaysWhatItDoesNotUse) {
  RunOutput r = run({"--loopback", "-n", "5", "conf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: -n set but not used in test conf")) << r.err;
}

TEST(HabitsE2e, SweepIsOneTableUnlessVu) {
  RunOutput r = run({"--loopback", "-t", "0.05", "-oo", "msg_size:1:16:*4", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(count_of(r.out, "tcp_lat:"), 1u) << r.out;
  const std::regex table(
      R"(tcp_lat:\n +msg_size +latency\n +1 +[\d.]+ \w+\n +4 +[\d.]+ \w+\n +16 +[\d.]+ \w+\n)");
  EXPECT_TRUE(std::regex_search(r.out, table)) << r.out;
  RunOutput vu = run({"--loopback", "-t", "0.05", "-oo", "msg_size:1:16:*4", "-vu", "tcp_lat"});
  ASSERT_EQ(vu.exit_code, 0) << vu.err;
  EXPECT_EQ(count_of(vu.out, "tcp_lat:"), 3u) << vu.out;
  EXPECT_EQ(count_of(vu.out, "msg_size"), 3u) << vu.out;
}

TEST(HabitsE2e, VerboseIsPositional) {
  RunOutput r = run({"--loopback", "-t", "0.1", "tcp_lat", "-v", "udp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const size_t second = r.out.find("udp_lat:");
  ASSERT_NE(second, std::string::npos) << r.out;
  EXPECT_EQ(r.out.substr(0, second).find("msg_rate"), std::string::npos) << r.out;
  EXPECT_NE(r.out.substr(second).find("msg_rate"), std::string::npos) << r.out;
}

TEST(HabitsE2e, Iperf3SpellingsGetAHint) {
  RunOutput p = run({"127.0.0.1", "-P", "4", "-t", "0.3", "tcp_bw"});
  EXPECT_EQ(p.exit_code, 2);
  EXPECT_TRUE(contains(p.err, "did you mean --streams 4? (-P is the libfabric provider)")) << p.err;
  RunOutput j = run({"127.0.0.1", "-J", "tcp_bw"});
  EXPECT_EQ(j.exit_code, 2);
  EXPECT_TRUE(contains(j.err, "did you mean --json -?")) << j.err;
}

// A run right after a failed one (the server still ending that session) waits a moment for
// nobody else's test, and is not told it does (user review, item 13).
TEST(HabitsE2e, NoFalseWaitAfterAFailedRun) {
  ServerProcess server;
  for (int i = 0; i < 3; ++i) {
    RunOutput failed =
        run({"127.0.0.1", "-lp", server.port_arg(), "-m", "100K", "-t", "0.2", "udp_lat"});
    EXPECT_NE(failed.exit_code, 0);
    EXPECT_TRUE(contains(failed.err, "EMSGSIZE")) << failed.err;
    RunOutput next = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.2", "tcp_lat"});
    EXPECT_EQ(next.exit_code, 0) << next.err;
    EXPECT_FALSE(contains(next.err, "waiting for another client")) << next.err;
  }
}

}  // namespace
}  // namespace fabperf::testing
