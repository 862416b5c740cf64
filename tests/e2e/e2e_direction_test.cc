// End-to-end: which way a socket bandwidth test's data goes. -R/--reverse makes the server
// send and the client receive (as iperf3 -R); tcp_bi_bw and udp_bi_bw send both ways at once
// and report each direction beside their sum. Text and JSON say which way; the counters show
// where the bytes went.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

json one_result(const std::vector<std::string>& args) {
  RunOutput r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return json::object();
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["results"].size(), 1u);
  return doc["results"][0];
}

uint64_t counter(const json& r, const char* side, const char* name) {
  return r["counters"][side][name].get<uint64_t>();
}

// The receiving side's count is the one reported: with -R, the client's.
void expect_reversed(const json& r, bool reliable) {
  ASSERT_EQ(r["status"], "ok") << r.dump();
  EXPECT_EQ(r["params"]["reverse"], true);
  EXPECT_EQ(r["bandwidth"]["direction"], "server_to_client");
  EXPECT_GT(counter(r, "rem", "send_bytes"), 0u);
  EXPECT_EQ(counter(r, "rem", "recv_bytes"), 0u);
  EXPECT_GT(counter(r, "loc", "recv_bytes"), 0u);
  EXPECT_EQ(counter(r, "loc", "send_bytes"), 0u);
  EXPECT_EQ(r["messages"]["sent"].get<uint64_t>(), counter(r, "rem", "send_msgs"));
  EXPECT_EQ(r["messages"]["received"].get<uint64_t>(), counter(r, "loc", "recv_msgs"));
  if (reliable) {
    EXPECT_EQ(counter(r, "loc", "recv_bytes"), counter(r, "rem", "send_bytes"));
  } else {
    EXPECT_LE(counter(r, "loc", "recv_bytes"), counter(r, "rem", "send_bytes"));
  }
  EXPECT_GT(r["bandwidth"]["recv_Bps"].get<double>(), 0);
}

TEST(E2eDirection, ForwardSaysClientToServer) {
  json r = one_result({"--loopback", "-t", "0.2", "--json", "-", "tcp_bw"});
  EXPECT_EQ(r["params"]["reverse"], false);
  EXPECT_EQ(r["bandwidth"]["direction"], "client_to_server");
  EXPECT_GT(counter(r, "loc", "send_bytes"), 0u);
  EXPECT_EQ(counter(r, "loc", "recv_bytes"), 0u);
}

TEST(E2eDirection, ReverseTcpAgainstASeparateServer) {
  ServerProcess server;
  json r = one_result(
      {"127.0.0.1", "-lp", server.port_arg(), "-t", "0.2", "-R", "--json", "-", "tcp_bw"});
  expect_reversed(r, true);
  // The text says it too, and names the sides by what they did: the client received.
  RunOutput t =
      run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.2", "--reverse", "-vv", "tcp_bw"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_TRUE(contains(t.out, "server to client (-R)")) << t.out;
  EXPECT_TRUE(contains(t.out, "recv_bytes")) << t.out;
  EXPECT_TRUE(contains(t.out, "send_bytes")) << t.out;
  EXPECT_TRUE(server.running());
}

TEST(E2eDirection, ReverseUdpCountsWhatTheClientReceived) {
  expect_reversed(one_result({"--loopback", "-t", "0.2", "-R", "--json", "-", "udp_bw"}), false);
}

TEST(E2eDirection, ReverseWithStreams) {
  json r = one_result({"--loopback", "-t", "0.2", "-R", "--streams", "2", "--json", "-", "tcp_bw"});
  expect_reversed(r, true);
  ASSERT_EQ(r["streams"].size(), 2u);
  for (const json& s : r["streams"]) EXPECT_GT(s["recv_bytes"].get<uint64_t>(), 0u);
}

TEST(E2eDirection, ReverseWithACountOfMessages) {
  json r = one_result({"--loopback", "-n", "300", "-m", "1K", "-R", "--json", "-", "tcp_bw"});
  expect_reversed(r, true);
  EXPECT_EQ(counter(r, "rem", "send_msgs"), 300u);
  EXPECT_EQ(counter(r, "loc", "recv_bytes"), 300u * 1024);
}

void expect_two_way(const json& r, bool reliable) {
  ASSERT_EQ(r["status"], "ok") << r.dump();
  EXPECT_EQ(r["bandwidth"]["direction"], "both");
  double to_server = r["bandwidth"]["client_to_server_Bps"].get<double>();
  double to_client = r["bandwidth"]["server_to_client_Bps"].get<double>();
  EXPECT_GT(to_server, 0);
  EXPECT_GT(to_client, 0);
  EXPECT_NEAR(r["bandwidth"]["recv_Bps"].get<double>(), to_server + to_client,
              1e-9 * (to_server + to_client));
  for (const char* side : {"loc", "rem"}) {
    EXPECT_GT(counter(r, side, "send_bytes"), 0u) << side;
    EXPECT_GT(counter(r, side, "recv_bytes"), 0u) << side;
  }
  if (reliable) {
    EXPECT_EQ(counter(r, "loc", "send_bytes"), counter(r, "rem", "recv_bytes"));
    EXPECT_EQ(counter(r, "rem", "send_bytes"), counter(r, "loc", "recv_bytes"));
  }
}

TEST(E2eDirection, TcpBothWays) {
  expect_two_way(one_result({"--loopback", "-t", "0.2", "--json", "-", "tcp_bi_bw"}), true);
}

TEST(E2eDirection, UdpBothWays) {
  expect_two_way(one_result({"--loopback", "-t", "0.2", "--json", "-", "udp_bi_bw"}), false);
}

TEST(E2eDirection, TwoWayTextShowsEachDirectionAndTheSum) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "200", "-m", "4K", "tcp_bi_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line :
       {"tcp_bi_bw:\n", "    bw ", "    client_to_server_bw ", "    server_to_client_bw "}) {
    EXPECT_TRUE(contains(r.out, line)) << line << "\n" << r.out;
  }
  EXPECT_TRUE(server.running());
}

TEST(E2eDirection, HelpListsTheTwoWayTestsAndTheOption) {
  RunOutput tests = run({"--help", "tests"});
  EXPECT_TRUE(contains(tests.out, "tcp_bi_bw")) << tests.out;
  EXPECT_TRUE(contains(tests.out, "udp_bi_bw")) << tests.out;
  RunOutput opts = run({"--help", "options"});
  EXPECT_TRUE(contains(opts.out, "--reverse")) << opts.out;
}

}  // namespace
}  // namespace fabperf::testing
