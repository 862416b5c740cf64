// End-to-end regressions from a new user's review (issue 15, "Everyday use"): what a user sees
// when a connection cannot succeed, an error the server echoes, an open loop above capacity,
// help that fits a terminal.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// An address this host does not have (TEST-NET-3) cannot become bindable by waiting: the
// client fails at once, well inside a long -ws, instead of retrying for all of it.
TEST(E2eEveryday, BindToAForeignAddressFailsWithoutRetrying) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-ws", "120", "--bind",
                     "203.0.113.7", "-t", "0.2", "udp_bw"},
                    60);
  EXPECT_FALSE(r.timed_out) << "retried an address the host does not have";
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "Cannot assign requested address")) << r.err;
}

TEST(E2eEveryday, LinkLocalWithoutInterfaceSaysAScopeIsNeeded) {
  RunOutput r = run({"fe80::1", "-lp", std::to_string(free_port()), "-ws", "120", "-t", "0.2",
                     "tcp_lat"},
                    60);
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
  EXPECT_EQ(r.err.find("needs an unreliable connected"), r.err.rfind("needs an unreliable connected"))
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

}  // namespace
}  // namespace fabperf::testing
