// End-to-end regressions from a new user's review (issue 15, "Everyday use"): what a user sees
// when a connection cannot succeed, an error the server echoes, an open loop above capacity,
// help that fits a terminal.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <regex>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// An address this host does not have (TEST-NET-3) cannot become bindable by waiting: the
// client fails at once, well inside a long -ws, instead of retrying for all of it.
TEST(E2eEveryday, BindToAForeignAddressFailsWithoutRetrying) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-ws", "120", "--bind", "203.0.113.7",
                     "-t", "0.2", "udp_bw"},
                    60);
  EXPECT_FALSE(r.timed_out) << "retried an address the host does not have";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "Cannot assign requested address")) << r.err;
}

TEST(E2eEveryday, LinkLocalWithoutInterfaceSaysAScopeIsNeeded) {
  RunOutput r = run(
      {"fe80::1", "-lp", std::to_string(free_port()), "-ws", "120", "-t", "0.2", "tcp_lat"}, 60);
  EXPECT_FALSE(r.timed_out) << "retried a link-local address without its interface";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "link-local address needs its interface: HOST%IFACE")) << r.err;
}

// The server names the test in its error (for its log); the client's line names it once.
TEST(E2eEveryday, AServerErrorNamesTheTestOnce) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "uc_bw"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "uc_bw: server: uc_bw needs")) << r.err;
  EXPECT_FALSE(contains(r.err, "server: uc_bw: ")) << r.err;
}

// With --loopback the in-process server's log and the client share a terminal: the error
// is printed once.
TEST(E2eEveryday, LoopbackPrintsAnErrorOnce) {
  RunOutput r = run({"--loopback", "uc_bw"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.find("needs an unreliable connected"),
            r.err.rfind("needs an unreliable connected"))
      << r.err;
}

TEST(E2eEveryday, HostForgottenSaysSoAsQperf) {
  RunOutput r = run({"-lp", "45011", "-t", "1", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "must specify host name first")) << r.err;
}

TEST(E2eEveryday, MessageSizeZeroIsRefused) {
  RunOutput r = run({"--loopback", "-m", "0", "-t", "0.2", "tcp_bw"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "-m 0")) << r.err;
}

TEST(E2eEveryday, UnifiedNodesKeepQperfsCostNames) {
  RunOutput r = run({"--loopback", "-un", "-v", "-t", "0.2", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "    send_cost ")) << r.out;
  EXPECT_TRUE(contains(r.out, "    loc_cpus_used ")) << r.out;
  EXPECT_FALSE(contains(r.out, "loc_cost")) << r.out;
}

TEST(E2eEveryday, OddOptionsDrawNoSillySuggestion) {
  for (const char* option : {"-g", "-Q"}) {
    RunOutput r = run({"127.0.0.1", option, "tcp_lat"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_FALSE(contains(r.err, "did you mean")) << r.err;
  }
}

TEST(E2eEveryday, GpuErrorNamesFabperfsOwnSpelling) {
  // No GPU device nodes under an empty root: the error names --gpu, not the fab_* tools' -g.
  RunOutput r = run({"--loopback", "-n", "10", "--gpu", "0", "-P", "shm", "rdm_write_lat"});
  if (r.exit_code == 0) GTEST_SKIP() << "this host has a GPU";
  if (contains(r.err, "no GPU found")) {
    EXPECT_TRUE(contains(r.err, "--gpu TYPE:N; in the fab_* tools -g TYPE")) << r.err;
  }
}

TEST(E2eEveryday, JsonOpenErrorsSayWhy) {
  RunOutput r = run({"--loopback", "-t", "0.2", "--json", "/nonexistent/dir/run.json", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "No such file or directory")) << r.err;
}

// An open loop asked for more than the client reaches ends at -t (its backlog is bounded)
// and says what it reached beside what was asked.
TEST(E2eEveryday, OpenLoopAboveCapacityEndsOnTimeAndSaysItFellShort) {
  RunOutput r =
      run({"--loopback", "--rate", "100000000", "-t", "0.2", "--json", "-", "tcp_lat"}, 120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "tcp_lat: warning: asked 100 M/sec, reached ")) << r.err;
  json result = json::parse(r.out)["results"][0];
  // Before the bound a 10 M/sec run of -t 0.1 took 6 s and this one minutes.
  EXPECT_LT(result["elapsed_s"].get<double>(), 5.0);
  EXPECT_EQ(result["open_loop"]["fell_short"], true);
  EXPECT_EQ(result["open_loop"]["asked_rate"].get<double>(), 1e8);
  EXPECT_GT(result["open_loop"]["reached_rate"].get<double>(), 0);
  RunOutput text = run({"--loopback", "--rate", "100000000", "-t", "0.2", "tcp_lat"}, 120);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "    msg_rate ")) << text.out;
  // The value column is as wide as the block's widest value (under ASan: "57 ms", "188 K/sec").
  EXPECT_TRUE(std::regex_search(text.out, std::regex("\n    msg_rate_asked  = +100 M/sec\n")))
      << text.out;
}

TEST(E2eEveryday, OpenLoopThatKeepsItsScheduleDoesNotWarn) {
  RunOutput r =
      run({"--loopback", "--rate", "500", "-m", "8", "-t", "0.3", "--json", "-", "udp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(contains(r.err, "warning: asked")) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["open_loop"]["fell_short"], false);
}

// A plain RDMA write gives the target no notice per write: --verify checks the written
// buffers' final contents, counts those, and says so (it once read as if every write were
// checked: verify_checked = 1 of 558 K writes).
TEST(E2eEveryday, VerifyOnPlainWritesSaysWhatItChecked) {
  RunOutput r =
      run({"--loopback", "-n", "200", "-P", "shm", "--verify", "--json", "-", "rdm_write_lat"});
  if (r.exit_code != 0 && contains(r.err, "shm")) GTEST_SKIP() << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json result = json::parse(r.out)["results"][0];
  EXPECT_EQ(result["verify"]["checked"], 1);  // one buffer, not one per write
  EXPECT_EQ(result["verify"]["errors"], 0);
  EXPECT_EQ(result["info"]["rem"]["verify_checks"],
            "final contents of 1 target buffer(s), once (a plain write: no notice per write)");
  RunOutput text = run({"--loopback", "-n", "200", "-P", "shm", "--verify", "-v", "rdm_write_bw"});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_TRUE(contains(text.out, "verify_checks")) << text.out;
  EXPECT_TRUE(contains(text.out, "target buffer(s), once")) << text.out;
}

}  // namespace
}  // namespace fabperf::testing
