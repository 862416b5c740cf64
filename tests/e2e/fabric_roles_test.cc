// Runs every fabric test's client and server roles in one process over a TCP control channel,
// for each provider here that can run it, and checks the figures and verification counts.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e_util.h"
#include "engine/test_context.h"
#include "fabric/fabric_tests.h"
#include "fabric/provider.h"
#include "net/control.h"
#include "net/socket.h"
#include "options/option_table.h"

namespace fabperf {
namespace {

struct PairOutcome {
  Status client;
  Status server;
  SideStats client_stats;
  SideStats server_stats;
  uint64_t samples = 0;
};

RunOptions make_params(const std::string& provider, uint64_t msg_size) {
  RunOptions p = default_run_options();
  p.msg_size = msg_size;
  p.time = 0;
  p.no_msgs = 300;
  p.warmup = 5;
  p.timeout = 5;
  p.provider = provider;
  p.tx_depth = 16;
  p.rd_atomic = 8;
  p.access_recv = true;
  p.verify = true;
  return p;
}

// What the engine does around a role: run it, and on failure tell the peer.
Status run_role(const TestSpec& spec, Role role, const RunOptions& params, Fd fd, SideStats* stats,
                uint64_t* samples) {
  ControlChannel channel(fd.release());
  channel.set_peer_label(role == Role::kClient ? "server" : "client");
  TestContext ctx(role, spec, params, channel, channel.peer_host());
  Status status = (role == Role::kClient ? spec.client : spec.server)(ctx);
  if (!status.ok()) channel.send_error(status.message()).ignore_error();
  *stats = ctx.stats;
  if (samples != nullptr) *samples = ctx.latency.count();
  return status;
}

PairOutcome run_pair(const TestSpec& spec, const RunOptions& params) {
  PairOutcome out;
  auto listener = listen_tcp("127.0.0.1", 0, 1);
  if (!listener.ok()) {
    out.client = listener.status();
    return out;
  }
  uint16_t port = local_address(listener->get()).port();
  std::thread server([&] {
    SockAddr peer;
    auto fd = accept_until(listener->get(), Deadline::after(10), &peer);
    if (!fd.ok()) {
      out.server = fd.status();
      return;
    }
    out.server = run_role(spec, Role::kServer, params, std::move(*fd), &out.server_stats, nullptr);
  });
  auto fd = connect_tcp("127.0.0.1", port, ConnectOptions{});
  if (fd.ok()) {
    out.client =
        run_role(spec, Role::kClient, params, std::move(*fd), &out.client_stats, &out.samples);
  } else {
    out.client = fd.status();
  }
  server.join();
  return out;
}

const TestSpec* find_spec(const std::string& name) {
  for (const TestSpec& spec : fabric_tests()) {
    if (name == spec.name) return &spec;
  }
  return nullptr;
}

struct Case {
  const char* test;
  const char* provider;
};

// CTest lists each case by its test and provider, not by its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.test << " over " << c.provider; }

class FabricRolesTest : public ::testing::TestWithParam<Case> {};

TEST_P(FabricRolesTest, RunsAndVerifies) {
  const Case& c = GetParam();
  const TestSpec* spec = find_spec(c.test);
  ASSERT_NE(spec, nullptr) << c.test;
  RunOptions params = make_params(c.provider, spec->default_msg_size);
  PairOutcome out = run_pair(*spec, params);
  // A known provider defect (e2e_util.h) gets a few more runs.
  auto flake = [&](const Status& s) {
    return !s.ok() && testing::known_provider_flake(c.provider, c.test, s.message());
  };
  for (int again = 0;
       again < testing::kProviderFlakeReruns && (flake(out.client) || flake(out.server)); ++again) {
    std::cerr << c.provider
              << " failed (a known provider defect), run again: " << out.client.message() << " / "
              << out.server.message() << "\n";
    out = run_pair(*spec, params);
  }
  ASSERT_TRUE(out.client.ok()) << "client: " << out.client.message();
  ASSERT_TRUE(out.server.ok()) << "server: " << out.server.message();
  EXPECT_EQ(out.client_stats.verify_errors, 0u);
  EXPECT_EQ(out.server_stats.verify_errors, 0u);
  EXPECT_EQ(out.client_stats.info.value("provider", ""),
            out.server_stats.info.value("provider", ""));
  switch (spec->kind) {
    case TestKind::kLatency:
      EXPECT_EQ(out.samples, 300u);
      break;
    case TestKind::kBandwidth:
    case TestKind::kMsgRate:
      EXPECT_EQ(out.client_stats.send_msgs, 300u);
      EXPECT_GT(out.client_stats.send_time_ns, 0);
      break;
    case TestKind::kBiBandwidth:
      EXPECT_EQ(out.client_stats.send_msgs, 300u);
      EXPECT_GT(out.server_stats.send_msgs, 0u);
      break;
    case TestKind::kVerify:
      EXPECT_EQ(out.client_stats.verify_checked, 305u);
      EXPECT_EQ(out.server_stats.verify_checked, 1u);
      break;
    default:
      break;
  }
}

std::vector<Case> all_cases() {
  std::vector<Case> out;
  const char* msg[] = {"tcp", "sockets"};
  const char* rdm[] = {"tcp;ofi_rxm", "shm", "sockets", "udp;ofi_rxd"};
  const char* dgram[] = {"udp", "sockets"};
  for (const TestSpec& spec : fabric_tests()) {
    std::string transport = spec.transport;
    bool atomic = spec.kind == TestKind::kMsgRate || spec.kind == TestKind::kVerify;
    if (transport == "rc") {
      // Of the FI_EP_MSG providers here only sockets has atomics (see the test below).
      for (const char* p : msg) {
        if (!atomic || std::string(p) == "sockets") out.push_back({spec.name, p});
      }
    } else if (transport == "rdm") {
      for (const char* p : rdm) out.push_back({spec.name, p});
    } else if (transport == "ud") {
      for (const char* p : dgram) out.push_back({spec.name, p});
    }
  }
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = std::string(info.param.test) + "_" + info.param.provider;
  for (char& ch : name) {
    if (!isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// A provider lacking a capability fails both sides with an error naming it and the
// providers that have it.
TEST(FabricRolesErrors, MissingAtomicsNameTheProvider) {
  std::vector<std::string> with = providers_with(FI_EP_MSG, FI_ATOMIC);
  if (providers_with(FI_EP_MSG, FI_MSG).empty()) GTEST_SKIP() << "no FI_EP_MSG provider";
  const TestSpec* spec = find_spec("ver_rc_fetch_add");
  ASSERT_NE(spec, nullptr);
  PairOutcome out = run_pair(*spec, make_params("tcp", 8));
  if (out.client.ok()) GTEST_SKIP() << "tcp has FI_EP_MSG atomics here";
  EXPECT_EQ(out.client.code(), Code::kUnsupported);
  EXPECT_NE(out.client.message().find("lacks FI_ATOMIC"), std::string::npos);
  for (const std::string& p : with) EXPECT_NE(out.client.message().find(p), std::string::npos);
  EXPECT_FALSE(out.server.ok());
}

TEST(FabricRolesErrors, UcAndXrcExplainWhy) {
  for (const char* name : {"uc_lat", "uc_rdma_write_bw", "xrc_bw"}) {
    const TestSpec* spec = find_spec(name);
    ASSERT_NE(spec, nullptr) << name;
    PairOutcome out = run_pair(*spec, make_params("", 1));
    EXPECT_EQ(out.client.code(), Code::kUnsupported) << name;
    EXPECT_NE(out.client.message().find("libfabric has no such endpoint type"), std::string::npos)
        << out.client.message();
  }
}

TEST(FabricRolesErrors, EveryTestIsListedOnce) {
  std::set<std::string> names;
  for (const TestSpec& spec : fabric_tests()) {
    EXPECT_TRUE(names.insert(spec.name).second) << spec.name;
    EXPECT_EQ(spec.family, TransportFamily::kFabric);
    EXPECT_NE(spec.client, nullptr);
    EXPECT_NE(spec.server, nullptr);
  }
  EXPECT_EQ(names.size(), 36u);  // 12 rc, 3 ud, 12 rdm, 6 uc, 3 xrc
}

INSTANTIATE_TEST_SUITE_P(AllProviders, FabricRolesTest, ::testing::ValuesIn(all_cases()),
                         case_name);

}  // namespace
}  // namespace fabperf
