// The fabric bandwidth tests' window and inject size per provider (fabric/window_defaults.h).
#include <gtest/gtest.h>

#include "fabric/window_defaults.h"

namespace fabperf {
namespace {

TEST(FabricWindowDefaults, AGivenTxDepthWins) {
  WindowChoice c = window_choice("shm", WindowedOp::kSend, 64, true, 16);
  EXPECT_EQ(c.window, 16u);
  EXPECT_EQ(c.inject_max, 0u);
  EXPECT_EQ(c.why, "--tx_depth");
}

TEST(FabricWindowDefaults, AProviderWithoutAMeasuredDefaultTakesTheOption) {
  WindowChoice c = window_choice("verbs;ofi_rxm", WindowedOp::kWrite, 4096, false, 128);
  EXPECT_EQ(c.window, 128u);
  EXPECT_EQ(c.inject_max, 0u);
  EXPECT_EQ(c.why, "the default --tx_depth (no measured default for verbs;ofi_rxm)");
}

TEST(FabricWindowDefaults, EveryMeasuredProviderHasAWindowForEverySizeAndOp) {
  for (const char* provider : {"shm", "tcp;ofi_rxm", "udp;ofi_rxd"}) {
    for (WindowedOp op : {WindowedOp::kSend, WindowedOp::kWrite}) {
      for (uint64_t size : {uint64_t{1}, uint64_t{64}, uint64_t{4096}, uint64_t{65536},
                            uint64_t{1} << 20, uint64_t{1} << 30}) {
        WindowChoice c = window_choice(provider, op, size, false, 128);
        EXPECT_GE(c.window, 1u) << provider << " " << size;
        EXPECT_NE(c.why.find(std::string(provider) + "'s default"), std::string::npos) << c.why;
        // Writes never inject: a write counts once it has left (FI_TRANSMIT_COMPLETE).
        if (op == WindowedOp::kWrite) {
          EXPECT_EQ(c.inject_max, 0u) << provider;
        }
        // An inject size covers the sizes the row holds for, no more.
        if (c.inject_max > 0) {
          EXPECT_LE(size, c.inject_max) << provider << " " << size;
        }
      }
    }
  }
}

}  // namespace
}  // namespace fabperf
