// The cxi switches as the cxi provider's controls: each switch, the exact FI_CXI_* variable
// and value, auth key, transmit attribute or flag it becomes; the warnings off cxi.
#include "fabric/cxi_controls.h"

#include <gtest/gtest.h>
#include <rdma/fabric.h>

#include <cstdlib>

#include "options/option_table.h"

namespace fabperf {
namespace {

RunOptions with(std::initializer_list<std::pair<const char*, OptionValue>> set) {
  RunOptions o = default_run_options(Dialect::kCxi);
  for (const auto& [name, value] : set) store(o, *find_option(name), value, true);
  return o;
}

using Env = std::vector<CxiEnvSetting>;

TEST(CxiControls, NoSwitchesAppliesOnlyTheOriginalsDefaults) {
  RunOptions o = default_run_options(Dialect::kCxi);
  CxiControls lat = cxi_controls(o, CxiOp::kWrite, false);
  EXPECT_TRUE(lat.env.empty());
  EXPECT_FALSE(lat.svc_id.has_value());  // no -v: the provider's own service
  EXPECT_EQ(lat.tx_op_flags, 0u);
  EXPECT_EQ(lat.tx_msg_order, 0u);
  EXPECT_FALSE(lat.no_inject);
  EXPECT_TRUE(lat.given.empty());
  // cxi_write_bw and cxi_atomic_bw use high rate puts, restricted, by default.
  EXPECT_EQ(cxi_controls(o, CxiOp::kWrite, true).tx_op_flags, kFiCxiHrp);
  EXPECT_EQ(cxi_controls(o, CxiOp::kAtomic, true).tx_op_flags, kFiCxiHrp | kFiCxiUnreliable);
  EXPECT_EQ(cxi_controls(o, CxiOp::kAtomic, false).tx_op_flags, kFiCxiUnreliable);
  // Fetching atomics, reads and sends have neither.
  EXPECT_EQ(cxi_controls(o, CxiOp::kFetchingAtomic, true).tx_op_flags, 0u);
  EXPECT_EQ(cxi_controls(o, CxiOp::kRead, true).tx_op_flags, 0u);
  EXPECT_EQ(cxi_controls(o, CxiOp::kSend, true).tx_op_flags, 0u);
}

TEST(CxiControls, SvcIdBecomesTheAuthKeyUnlessTheDefaultService) {
  CxiControls c = cxi_controls(with({{"svc_id", uint64_t{5}}}), CxiOp::kWrite, false);
  ASSERT_TRUE(c.svc_id.has_value());
  EXPECT_EQ(*c.svc_id, 5u);
  EXPECT_EQ(c.given, std::vector<std::string>{"-v/--svc-id"});
  EXPECT_TRUE(c.env.empty());
  // Values as a server's session process receives them (nothing marked given): the same.
  RunOptions o = default_run_options(Dialect::kCxi);
  o.svc_id = 7;
  EXPECT_EQ(cxi_controls(o, CxiOp::kWrite, false).svc_id, std::optional<uint32_t>(7));
  // Service 1, the default service, is the provider's own choice.
  EXPECT_FALSE(
      cxi_controls(with({{"svc_id", uint64_t{1}}}), CxiOp::kWrite, false).svc_id.has_value());
  EXPECT_EQ(sizeof(CxiAuthKey), 8u);  // struct cxi_auth_key { uint32_t; uint16_t; }
}

TEST(CxiControls, VniFromLauncherThenNicThenOne) {
  EXPECT_EQ(cxi_vni("234,235", 10u), 234);
  EXPECT_EQ(cxi_vni("77", std::nullopt), 77);
  EXPECT_EQ(cxi_vni(nullptr, 10u), 10);
  EXPECT_EQ(cxi_vni("", 12u), 12);
  EXPECT_EQ(cxi_vni("junk", 12u), 12);
  EXPECT_EQ(cxi_vni("70000", std::nullopt), 1);
  EXPECT_EQ(cxi_vni(nullptr, std::nullopt), 1);
}

TEST(CxiControls, NoIdcSetsTheVariableOfTheOperationAndStopsInject) {
  RunOptions o = with({{"no_idc", true}});
  CxiControls w = cxi_controls(o, CxiOp::kWrite, false);
  EXPECT_EQ(w.env, (Env{{"FI_CXI_DISABLE_NON_INJECT_RMA_IDC", "1"}}));
  EXPECT_TRUE(w.no_inject);
  EXPECT_EQ(w.given, std::vector<std::string>{"--no-idc"});
  EXPECT_EQ(cxi_controls(o, CxiOp::kSend, false).env,
            (Env{{"FI_CXI_DISABLE_NON_INJECT_MSG_IDC", "1"}}));
  EXPECT_EQ(cxi_controls(o, CxiOp::kAtomic, false).env,
            (Env{{"FI_CXI_DISABLE_NON_INJECT_AMO_IDC", "1"}}));
  EXPECT_EQ(cxi_controls(o, CxiOp::kFetchingAtomic, false).env,
            (Env{{"FI_CXI_DISABLE_NON_INJECT_AMO_IDC", "1"}}));
}

TEST(CxiControls, NoLlNeverUsesTheLowLatencyRing) {
  CxiControls c = cxi_controls(with({{"no_ll", true}}), CxiOp::kWrite, false);
  EXPECT_EQ(c.env, (Env{{"FI_CXI_LLRING_MODE", "never"}}));
  EXPECT_FALSE(c.no_inject);
}

TEST(CxiControls, NoHrpDropsTheHighRatePutFlag) {
  RunOptions o = with({{"no_hrp", true}});
  EXPECT_EQ(cxi_controls(o, CxiOp::kWrite, true).tx_op_flags, 0u);
  EXPECT_EQ(cxi_controls(o, CxiOp::kAtomic, true).tx_op_flags, kFiCxiUnreliable);
  EXPECT_TRUE(cxi_controls(o, CxiOp::kWrite, true).env.empty());
}

TEST(CxiControls, UnrestrictedAsksWriteOrderingAndReliableAtomics) {
  RunOptions o = with({{"unrestricted", true}});
  CxiControls w = cxi_controls(o, CxiOp::kWrite, true);
  EXPECT_EQ(w.tx_msg_order, static_cast<uint64_t>(FI_ORDER_RMA_WAW));
  EXPECT_EQ(w.tx_op_flags, 0u);  // HRP needs restricted writes
  CxiControls a = cxi_controls(o, CxiOp::kAtomic, true);
  EXPECT_EQ(a.tx_op_flags, 0u);
  EXPECT_EQ(a.tx_msg_order, 0u);
}

TEST(CxiControls, MatchingUsesStandardMrsUnrestrictedWithoutIdc) {
  CxiControls c = cxi_controls(with({{"matching", true}}), CxiOp::kAtomic, true);
  EXPECT_EQ(c.env,
            (Env{{"FI_CXI_OPTIMIZED_MRS", "0"}, {"FI_CXI_DISABLE_NON_INJECT_AMO_IDC", "1"}}));
  EXPECT_TRUE(c.no_inject);
  EXPECT_EQ(c.tx_op_flags, 0u);
}

TEST(CxiControls, RendezvousSendsHaveNoEagerPartAndNoIdc) {
  CxiControls c = cxi_controls(with({{"rdzv", true}}), CxiOp::kSend, true);
  EXPECT_EQ(c.env, (Env{{"FI_CXI_DISABLE_NON_INJECT_MSG_IDC", "1"},
                        {"FI_CXI_RDZV_THRESHOLD", "0"},
                        {"FI_CXI_RDZV_GET_MIN", "0"},
                        {"FI_CXI_RDZV_EAGER_SIZE", "0"}}));
  EXPECT_TRUE(c.no_inject);
  EXPECT_EQ(c.given, std::vector<std::string>{"-R/--rdzv"});
}

TEST(CxiControls, NoPleHasNoControlAndSaysSoEvenOnCxi) {
  CxiControls c = cxi_controls(with({{"no_ple", true}}), CxiOp::kWrite, true);
  EXPECT_TRUE(c.env.empty());
  EXPECT_EQ(c.not_applied, std::vector<std::string>{"--no-ple"});
  EXPECT_EQ(cxi_switch_warning(c, "cxi"),
            "--no-ple: no libfabric control exists for this on provider cxi; not applied");
}

TEST(CxiControls, WarningsNameTheSwitchesAndTheProvider) {
  RunOptions o = with({{"svc_id", uint64_t{3}}, {"no_idc", true}, {"no_ll", true}});
  CxiControls c = cxi_controls(o, CxiOp::kWrite, false);
  EXPECT_EQ(cxi_switch_warning(c, "tcp;ofi_rxm"),
            "-v/--svc-id, --no-idc, --no-ll: cxi provider only; not applied on provider "
            "tcp;ofi_rxm");
  EXPECT_EQ(cxi_switch_warning(c, "cxi"), "");
  EXPECT_EQ(cxi_switch_warning(
                cxi_controls(default_run_options(Dialect::kCxi), CxiOp::kWrite, true), "shm"),
            "");  // nothing given, nothing said
}

TEST(CxiControls, EnvironmentIsSetBeforeTheProviderReadsItAndRefusedAfter) {
  unsetenv("FI_CXI_LLRING_MODE");
  CxiControls c = cxi_controls(with({{"no_ll", true}}), CxiOp::kWrite, false);
  ASSERT_TRUE(apply_cxi_environment(c, false).ok());
  ASSERT_NE(std::getenv("FI_CXI_LLRING_MODE"), nullptr);
  EXPECT_STREQ(std::getenv("FI_CXI_LLRING_MODE"), "never");
  // Already in force: fine after initialisation too.
  EXPECT_TRUE(apply_cxi_environment(c, true).ok());
  unsetenv("FI_CXI_LLRING_MODE");
  Status late = apply_cxi_environment(c, true);
  EXPECT_FALSE(late.ok());
  EXPECT_NE(late.message().find("FI_CXI_LLRING_MODE=never cannot take effect"), std::string::npos)
      << late.message();
  EXPECT_EQ(std::getenv("FI_CXI_LLRING_MODE"), nullptr);
}

}  // namespace
}  // namespace fabperf
