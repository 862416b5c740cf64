// End-to-end: the fabric bandwidth tests' per-provider window and inject size
// (fabric/window_defaults.h): what a run took shows in its JSON (both sides alike, the
// server following the client), --tx_depth overrides it, and injected sends are all counted.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "fabric/provider.h"
#include "fabric/window_defaults.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// The RDM providers here that run sends and writes (shm, tcp;ofi_rxm, udp;ofi_rxd, ...).
std::vector<std::string> rdm_providers(uint64_t caps) {
  std::vector<std::string> out;
  for (const std::string& p : providers_with(FI_EP_RDM, caps)) {
    if (p == "shm" || p == "tcp;ofi_rxm" || p == "udp;ofi_rxd") out.push_back(p);
  }
  return out;
}

json run_result(const std::vector<std::string>& args, const std::string& provider,
                const std::string& test) {
  RunOutput r = run(args, 60);
  for (int again = 0; again < kProviderFlakeReruns && r.exit_code == 1 &&
                      known_provider_flake(provider, test, r.err);
       ++again) {
    r = run(args, 60);
  }
  EXPECT_EQ(r.exit_code, 0) << provider << " " << test << ": " << r.err;
  if (r.exit_code != 0) return json::object();
  return json::parse(r.out)["results"][0];
}

TEST(E2eFabricWindow, EachProviderTakesItsWindowAndSaysSo) {
  for (const auto& [test, op] : {std::pair{"rdm_send_bw", WindowedOp::kSend},
                                 std::pair{"rdm_write_bw", WindowedOp::kWrite}}) {
    for (const std::string& provider : rdm_providers(op == WindowedOp::kSend ? FI_MSG : FI_RMA)) {
      json r = run_result(
          {"--loopback", "-n", "2000", "-m", "64", "--provider", provider, "--json", "-", test},
          provider, test);
      if (r.empty()) continue;
      WindowChoice want = window_choice(provider, op, 64, false, 128);
      const json& loc = r["info"]["loc"];
      EXPECT_EQ(loc["window"], want.window) << provider << " " << test << ": " << r["info"];
      EXPECT_EQ(loc["window_choice"], want.why) << r["info"];
      EXPECT_EQ(loc["inject"], op == WindowedOp::kSend ? want.inject_max : 0) << r["info"];
      EXPECT_EQ(r["info"]["rem"]["window_choice"], want.why) << r["info"];
      EXPECT_EQ(r["info"]["rem"]["inject"], loc["inject"]) << r["info"];
    }
  }
}

// The one-way read and write runs' target paces its progress calls where the provider's row
// says so (shm), both sides say how, and every operation is still counted; a write that brings
// remote CQ data (rc_rdma_write_bw's target takes it through its receives) is not paced.
TEST(E2eFabricWindow, ReadAndWriteTargetsTakeTheirPaceAndSaySo) {
  for (const auto& [test, op] : {std::pair{"rdm_read_bw", WindowedOp::kRead},
                                 std::pair{"rdm_write_bw", WindowedOp::kWrite}}) {
    for (const std::string& provider : rdm_providers(FI_RMA)) {
      json r = run_result(
          {"--loopback", "-n", "2000", "-m", "64", "--provider", provider, "--json", "-", test},
          provider, test);
      if (r.empty()) continue;
      TargetPace want = target_pace(provider, op);
      for (const char* side : {"loc", "rem"}) {
        EXPECT_EQ(r["info"][side]["target_pace"], want.why) << provider << ": " << r["info"];
        EXPECT_EQ(r["info"][side]["target_gap_ns"], want.gap_ns) << provider << ": " << r["info"];
      }
      EXPECT_EQ(r["messages"]["sent"], 2000) << provider << " " << test << ": " << r;
    }
  }
}

// The atomic rate's target paces its progress calls where the provider's row says so (shm),
// both sides say how, and every operation, fetching or not, is still counted.
TEST(E2eFabricWindow, AtomicTargetsTakeTheirPaceAndSaySo) {
  for (const std::string& provider : rdm_providers(FI_ATOMIC)) {
    for (bool fetching : {false, true}) {
      // libfabric 1.17's ofi_rxd crashes on fetching atomics: fabperf refuses them there.
      if (fetching && provider.find("ofi_rxd") != std::string::npos) continue;
      std::vector<std::string> args = {"--loopback", "-n",     "2000", "--provider",
                                       provider,     "--json", "-",    "rdm_atomic_bw"};
      if (fetching) args.insert(args.begin(), "--fetching");
      json r = run_result(args, provider, "rdm_atomic_bw");
      if (r.empty()) continue;
      TargetPace want = target_pace(provider, WindowedOp::kAtomic);
      for (const char* side : {"loc", "rem"}) {
        EXPECT_EQ(r["info"][side]["target_pace"], want.why) << provider << ": " << r["info"];
        EXPECT_EQ(r["info"][side]["target_gap_ns"], want.gap_ns) << provider << ": " << r["info"];
      }
      EXPECT_EQ(r["messages"]["sent"], 2000) << provider << " fetching " << fetching << ": " << r;
    }
  }
}

TEST(E2eFabricWindow, TxDepthOverridesTheProviderDefault) {
  for (const std::string& provider : rdm_providers(FI_MSG)) {
    json r = run_result({"--loopback", "-n", "500", "-m", "64", "--tx_depth", "16", "--provider",
                         provider, "--json", "-", "rdm_send_bw"},
                        provider, "rdm_send_bw");
    if (r.empty()) continue;
    EXPECT_EQ(r["info"]["loc"]["window"], 16) << r["info"];
    EXPECT_EQ(r["info"]["loc"]["window_choice"], "--tx_depth") << r["info"];
  }
}

// --bw_method lists (the fab_* tools' method) posts lists of --tx_depth (-l), as the
// originals do: the per-provider window is the stream method's (tcp;ofi_rxm's 64-byte writes
// would take 1024), so the list stays 128 and the JSON says why.
TEST(E2eFabricWindow, ListsKeepTheListSize) {
  for (const std::string& provider : rdm_providers(FI_RMA)) {
    json r = run_result({"--loopback", "-n", "512", "-m", "64", "--bw_method", "lists",
                         "--provider", provider, "--json", "-", "rdm_write_bw"},
                        provider, "rdm_write_bw");
    if (r.empty()) continue;
    const json& loc = r["info"]["loc"];
    EXPECT_EQ(loc["window_choice"], "the list size (--tx_depth, -l) of --bw_method lists")
        << provider << ": " << r["info"];
    EXPECT_EQ(loc["bw_method"]["list_size"], 128) << provider << ": " << r["info"];
    EXPECT_LE(loc["window"].get<uint64_t>(), 128u) << provider << ": " << r["info"];
  }
}

// Small sends inject where the provider's default says so: every one still arrives, is
// counted and checks out (the receiver counts; the sender's injected sends complete as posted).
TEST(E2eFabricWindow, SmallSendsAreAllCountedAndChecked) {
  for (const std::string& provider : rdm_providers(FI_MSG)) {
    json r = run_result({"--loopback", "-n", "5000", "-m", "64", "--verify", "--provider", provider,
                         "--json", "-", "rdm_send_bw"},
                        provider, "rdm_send_bw");
    if (r.empty()) continue;
    EXPECT_EQ(r["counters"]["loc"]["send_msgs"], 5000) << r["counters"];
    EXPECT_EQ(r["counters"]["rem"]["recv_msgs"], 5000) << r["counters"];
    EXPECT_EQ(r["verify"]["errors"], 0) << r["verify"];
  }
}

}  // namespace
}  // namespace fabperf::testing
