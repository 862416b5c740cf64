// End-to-end: open-loop latency (--rate) against a server that stalls once on purpose
// (the FABPERF_TEST_STALL_MS test hook): the open loop's tail shows the stall, the closed
// loop's percentiles hide it.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <memory>
#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// A server that sleeps 200 ms once, at its 1000th echo.
std::unique_ptr<ServerProcess> stalling_server() {
  setenv("FABPERF_TEST_STALL_MS", "200", 1);
  setenv("FABPERF_TEST_STALL_AT", "1000", 1);
  auto server = std::make_unique<ServerProcess>();
  unsetenv("FABPERF_TEST_STALL_MS");
  unsetenv("FABPERF_TEST_STALL_AT");
  return server;
}

json latency_of(const ServerProcess& server, const std::string& test, const std::string& rate,
                const std::string& count) {
  RunOutput r = run({"localhost", "-lp", server.port_arg(), "-n", count, "-m", "8", "--rate", rate,
                     "--json", "-", test});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return json::object();
  json result = json::parse(r.out)["results"][0];
  EXPECT_EQ(result["latency_mode"], rate == "0" ? "closed_loop" : "open_loop");
  return result;
}

class OpenLoop : public ::testing::TestWithParam<const char*> {};

TEST_P(OpenLoop, StallShowsInTheOpenLoopPercentilesNotInTheClosedLoop) {
  // UDP at 1 K/s: the messages due during the stall (200) fit the server's receive buffer,
  // so the test sees delay, not loss. TCP at 10 K/s queues 2,000.
  bool udp = std::string(GetParam()) == "udp_lat";
  std::string rate = udp ? "1000" : "10000", count = udp ? "3000" : "10000";
  auto server = stalling_server();
  json closed = latency_of(*server, GetParam(), "0", count);
  json open = latency_of(*server, GetParam(), rate, count);
  ASSERT_TRUE(closed.contains("latency_ns") && open.contains("latency_ns"));
  const json& c = closed["latency_ns"];
  const json& o = open["latency_ns"];
  EXPECT_EQ(c["samples"].dump(), count);
  EXPECT_EQ(o["samples"].dump(), count);
  // Both saw the stall once: 200 ms round trip, 100 ms one way.
  EXPECT_GE(c["max"].get<double>(), 90e6) << c;
  EXPECT_GE(o["max"].get<double>(), 90e6) << o;
  // Closed loop: one sample of thousands; the 99th percentile stays with the ordinary ones.
  EXPECT_LT(c["p99"].get<double>(), 10e6) << c;
  // Open loop: every message due during the stall (7% of UDP's, 20% of TCP's) waited up to
  // 200 ms, so the top 1% read close to 100 ms one way, and the mean moves with them.
  EXPECT_GE(o["p99"].get<double>(), 50e6) << o;
  EXPECT_GT(o["mean"].get<double>(), 20 * c["mean"].get<double>()) << o << c;
  double want = std::stod(rate);
  EXPECT_NEAR(open["msg_rate"].get<double>(), want, want * 0.15) << open;
}

INSTANTIATE_TEST_SUITE_P(Sockets, OpenLoop, ::testing::Values("tcp_lat", "udp_lat"));

TEST(OpenLoop, DatagramsTooSmallForASequenceNumberAreRefused) {
  RunOutput r = run({"--loopback", "-n", "100", "--rate", "1000", "udp_lat"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "-m 8")) << r.err;
}

TEST(OpenLoop, RateIsUnusedByBandwidthTests) {
  RunOutput r = run({"--loopback", "-t", "0.1", "--rate", "1000", "tcp_bw"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "--rate set but not used in test tcp_bw")) << r.err;
}

}  // namespace
}  // namespace fabperf::testing
