// End-to-end: the data sockets' Nagle setting, as each side's kernel reports it, per test and
// per --nodelay side, in the JSON (params and info) and in -vv output.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// The one result of a JSON run of `args`; fails the test on a bad exit or document.
json one_result(const std::vector<std::string>& args) {
  RunOutput r = run(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  if (r.exit_code != 0) return json::object();
  json doc = json::parse(r.out);
  EXPECT_EQ(doc["results"].size(), 1u);
  return doc["results"][0];
}

std::string nodelay(const json& result, const char* side) {
  const json& info = result["info"][side];
  return info.contains("tcp_nodelay") ? info["tcp_nodelay"].get<std::string>() : "(none)";
}

TEST(E2eNodelay, BandwidthLeavesNagleOnLikeQperf) {
  json r = one_result({"--loopback", "-n", "200", "-m", "1K", "--json", "-", "tcp_bw"});
  EXPECT_EQ(r["status"], "ok");
  EXPECT_EQ(r["params"]["nodelay"], false);
  EXPECT_EQ(nodelay(r, "loc"), "off");
  EXPECT_EQ(nodelay(r, "rem"), "off");
}

TEST(E2eNodelay, OptionTurnsItOffOnBothSides) {
  json r =
      one_result({"--loopback", "-n", "200", "-m", "1K", "--nodelay", "--json", "-", "tcp_bw"});
  EXPECT_EQ(r["params"]["nodelay"], true);
  EXPECT_EQ(nodelay(r, "loc"), "on");
  EXPECT_EQ(nodelay(r, "rem"), "on");
}

TEST(E2eNodelay, PerSideAgainstASeparateServerWithStreams) {
  ServerProcess server;
  for (const char* spelling : {"--rem_nodelay", "--loc_nodelay"}) {
    bool remote = std::string(spelling) == "--rem_nodelay";
    json r = one_result({"127.0.0.1", "-lp", server.port_arg(), "-n", "200", "-m", "1K",
                         "--streams", "2", spelling, "--json", "-", "tcp_bw"});
    EXPECT_EQ(r["status"], "ok") << spelling;
    EXPECT_EQ(nodelay(r, "loc"), remote ? "off" : "on") << spelling;
    EXPECT_EQ(nodelay(r, "rem"), remote ? "on" : "off") << spelling;
    EXPECT_EQ(r["params"]["nodelay"], !remote) << spelling;
    EXPECT_EQ(r["params"]["rem_nodelay"], remote) << spelling;
  }
  EXPECT_TRUE(server.running());
}

TEST(E2eNodelay, PingPongTurnsNagleOffWithoutBeingAsked) {
  // The parameter keeps its default (false), unused by a ping-pong; the socket is what counts.
  json r = one_result({"--loopback", "-n", "200", "-m", "4K", "--json", "-", "tcp_lat"});
  EXPECT_EQ(nodelay(r, "loc"), "on");
  EXPECT_EQ(nodelay(r, "rem"), "on");
}

TEST(E2eNodelay, UdpRecordsNothingAndWarnsOfTheOption) {
  RunOutput r = run({"--loopback", "-n", "200", "--nodelay", "--json", "-", "udp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: --nodelay set but not used in test udp_bw")) << r.err;
  json result = json::parse(r.out)["results"][0];
  EXPECT_FALSE(result.contains("info") && result["info"]["loc"].contains("udp_nodelay"));
}

TEST(E2eNodelay, VerboseShowsTheOptionAndEachSidesSocket) {
  RunOutput r = run({"--loopback", "-n", "200", "-m", "1K", "--rem_nodelay", "-vv", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"loc_nodelay +=  0\n", "rem_nodelay +=  1\n",
                           "loc_tcp_nodelay +=  off\n", "rem_tcp_nodelay +=  on\n"}) {
    EXPECT_TRUE(std::regex_search(r.out, std::regex(std::string("\n    ") + line)))
        << line << r.out;
  }
}

TEST(E2eNodelay, BadValueNamesTheOption) {
  RunOutput r = run({"--loopback", "--nodelay=maybe", "tcp_bw"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--nodelay")) << r.err;
}

}  // namespace
}  // namespace fabperf::testing
