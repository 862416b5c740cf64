// End-to-end: --streams N for the socket bandwidth tests (per-stream and aggregate figures),
// busy-poll mode, and CPU affinity recorded in JSON.
#include <gtest/gtest.h>
#include <sched.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

json run_json(const std::vector<std::string>& args) {
  std::vector<std::string> all = args;
  all.insert(all.end(), {"--json", "-"});
  RunOutput r = run(all);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.out);
}

class Streams : public ::testing::TestWithParam<const char*> {};

TEST_P(Streams, EveryStreamCountsAndTheAggregateIsTheirSum) {
  ServerProcess server;
  json doc =
      run_json({"localhost", "-lp", server.port_arg(), "-t", "0.5", "--streams", "3", GetParam()});
  ASSERT_EQ(doc["results"].size(), 1u);
  const json& r = doc["results"][0];
  ASSERT_EQ(r["status"], "ok") << r;
  ASSERT_EQ(r["streams"].size(), 3u) << r;
  uint64_t sent = 0, received = 0;
  for (const json& s : r["streams"]) {
    EXPECT_GT(s["send_bytes"].get<uint64_t>(), 0u) << s;
    EXPECT_GT(s["recv_bytes"].get<uint64_t>(), 0u) << s;
    EXPECT_GT(s["recv_Bps"].get<double>(), 0) << s;
    sent += s["send_bytes"].get<uint64_t>();
    received += s["recv_bytes"].get<uint64_t>();
  }
  EXPECT_EQ(sent, r["counters"]["loc"]["send_bytes"].get<uint64_t>());
  EXPECT_EQ(received, r["counters"]["rem"]["recv_bytes"].get<uint64_t>());
  EXPECT_GT(r["bandwidth"]["recv_Bps"].get<double>(), 0);
  if (std::string(GetParam()) == "tcp_bw") {
    EXPECT_EQ(sent, received);
  }
  EXPECT_EQ(r["params"]["streams"], 3);
}

INSTANTIATE_TEST_SUITE_P(Sockets, Streams, ::testing::Values("tcp_bw", "udp_bw"));

// --stream_sender round_robin: one thread writes every stream in turn; each stream still
// counts its own bytes, both ends agree, and the run says which sender it took.
TEST_P(Streams, OneRoundRobinSenderCountsEveryStream) {
  json doc = run_json(
      {"--loopback", "-t", "0.3", "--streams", "3", "--stream_sender", "round_robin", GetParam()});
  ASSERT_EQ(doc["results"].size(), 1u);
  const json& r = doc["results"][0];
  ASSERT_EQ(r["status"], "ok") << r;
  ASSERT_EQ(r["streams"].size(), 3u) << r;
  uint64_t sent = 0;
  for (const json& s : r["streams"]) {
    EXPECT_GT(s["send_bytes"].get<uint64_t>(), 0u) << s;
    EXPECT_GT(s["recv_bytes"].get<uint64_t>(), 0u) << s;
    sent += s["send_bytes"].get<uint64_t>();
  }
  EXPECT_EQ(sent, r["counters"]["loc"]["send_bytes"].get<uint64_t>());
  if (std::string(GetParam()) == "tcp_bw") {
    EXPECT_EQ(sent, r["counters"]["rem"]["recv_bytes"].get<uint64_t>());
  }
  EXPECT_EQ(r["info"]["loc"]["stream_sender"], "round_robin (--stream_sender)") << r["info"];
}

// -n counts per stream in either sender.
TEST(Streams, RoundRobinSendsTheCountOnEveryStream) {
  json doc = run_json({"--loopback", "-n", "500", "-m", "1024", "--streams", "2", "--stream_sender",
                       "round_robin", "tcp_bw"});
  const json& r = doc["results"][0];
  ASSERT_EQ(r["status"], "ok") << r;
  ASSERT_EQ(r["streams"].size(), 2u) << r;
  for (const json& s : r["streams"]) {
    EXPECT_EQ(s["send_bytes"], 500 * 1024) << s;
    EXPECT_EQ(s["recv_bytes"], 500 * 1024) << s;
  }
}

// auto takes round_robin where the sending threads would share a CPU (a one-CPU mask, as
// taskset gives), a thread per stream where each has a CPU of its own (-ca N pins stream i to
// CPU N+i), and says which and why.
TEST(Streams, AutoSenderFollowsTheCpus) {
  cpu_set_t saved;
  ASSERT_EQ(sched_getaffinity(0, sizeof saved, &saved), 0);
  cpu_set_t one;
  CPU_ZERO(&one);
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (CPU_ISSET(cpu, &saved)) {
      CPU_SET(cpu, &one);
      break;
    }
  }
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);  // the child inherits the mask
  json pinned = run_json({"--loopback", "-t", "0.2", "--streams", "2", "tcp_bw"});
  ASSERT_EQ(sched_setaffinity(0, sizeof saved, &saved), 0);
  ASSERT_EQ(pinned["results"][0]["status"], "ok") << pinned;
  EXPECT_EQ(pinned["results"][0]["info"]["loc"]["stream_sender"],
            "round_robin (auto: 2 streams on 1 CPU)");
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU online: no spread case";
  json spread = run_json({"--loopback", "-t", "0.2", "--streams", "2", "-ca", "0", "tcp_bw"});
  ASSERT_EQ(spread["results"][0]["status"], "ok") << spread;
  EXPECT_EQ(spread["results"][0]["info"]["loc"]["stream_sender"],
            "threads (auto: 2 streams on 2 CPUs)");
}

TEST(Streams, TextShowsPerStreamLinesWithVerboseOnly) {
  RunOutput plain = run({"--loopback", "-t", "0.3", "--streams", "2", "tcp_bw"});
  ASSERT_EQ(plain.exit_code, 0) << plain.err;
  EXPECT_TRUE(contains(plain.out, "    bw  =")) << plain.out;
  EXPECT_FALSE(contains(plain.out, "stream0_bw")) << plain.out;
  RunOutput verbose = run({"--loopback", "-t", "0.3", "-vs", "--streams", "2", "tcp_bw"});
  ASSERT_EQ(verbose.exit_code, 0) << verbose.err;
  EXPECT_TRUE(contains(verbose.out, "stream0_bw")) << verbose.out;
  EXPECT_TRUE(contains(verbose.out, "stream1_bw")) << verbose.out;
}

TEST(Streams, FixedPortIsTheFirstOfARange) {
  int port = free_port_range(2);
  RunOutput r = run({"--loopback", "-t", "0.2", "--streams", "2", "-ip", std::to_string(port),
                     "udp_bw", "tcp_bw"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Streams, LatencyTestsDoNotTakeStreams) {
  RunOutput r = run({"--loopback", "-n", "10", "--streams", "2", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "--streams set but not used in test tcp_lat")) << r.err;
}

TEST(SocketModes, BusyPollAndBlockingBothMeasureAndAreRecorded) {
  for (const char* poll : {"--poll", "-cp1"}) {
    json doc = run_json({"--loopback", "-n", "2000", poll, "tcp_lat", "udp_lat", "tcp_bw"});
    ASSERT_EQ(doc["results"].size(), 3u);
    for (const json& r : doc["results"]) {
      EXPECT_EQ(r["status"], "ok") << r;
      EXPECT_EQ(r["mode"], "poll") << poll << " " << r["test"];
    }
    EXPECT_EQ(doc["results"][0]["latency_ns"]["samples"], 2000);
  }
  json block = run_json({"--loopback", "-n", "500", "-rcp1", "tcp_lat"});
  EXPECT_EQ(block["results"][0]["mode"], "block");
  EXPECT_EQ(block["results"][0]["rem_mode"], "poll");
}

TEST(Affinity, PinnedAndAnyAreAppliedAndRecorded) {
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  std::string last = std::to_string(cpus - 1);
  json doc = run_json({"--loopback", "-n", "200", "-lca", "0", "-rca", last, "tcp_lat"});
  ASSERT_EQ(doc["results"].size(), 1u);
  const json& r = doc["results"][0];
  EXPECT_EQ(r["affinity"]["loc"], "0") << r;
  EXPECT_EQ(r["affinity"]["rem"], last) << r;
  EXPECT_EQ(r["params"]["cpu_affinity"], "0");
  EXPECT_EQ(r["params"]["rem_cpu_affinity"], last);
  json any = run_json({"--loopback", "-n", "200", "-ca", "any", "tcp_lat"});
  std::string all = cpus > 1 ? "0-" + last : "0";
  EXPECT_EQ(any["results"][0]["affinity"]["loc"], all) << any;
  // Streams spread from the given CPU: the run works and each stream counts.
  json spread = run_json({"--loopback", "-t", "0.2", "-ca", "0", "--streams", "2", "tcp_bw"});
  EXPECT_EQ(spread["results"][0]["streams"].size(), 2u);
  RunOutput bad = run({"--loopback", "-n", "10", "-ca", "zero", "tcp_lat"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
}

}  // namespace
}  // namespace fabperf::testing
