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

// The target's pace: shm's measured gap for its one-sided targets (atomics, reads, writes), and
// nothing anywhere it was not measured to help (sends over shm, the other providers, an
// unknown provider).
TEST(FabricWindowDefaults, OnlyShmOneSidedTargetsTakeAPace) {
  for (WindowedOp op : {WindowedOp::kAtomic, WindowedOp::kRead, WindowedOp::kWrite}) {
    TargetPace shm = target_pace("shm", op);
    EXPECT_EQ(shm.gap_ns, 2000);
    EXPECT_EQ(shm.why, "a progress call every 2000 ns (shm's measured default: bench/README.md)");
  }
  EXPECT_EQ(target_pace("shm", WindowedOp::kSend).gap_ns, 0);
  for (const char* provider : {"tcp;ofi_rxm", "udp;ofi_rxd", "verbs;ofi_rxm", "cxi", ""}) {
    for (WindowedOp op : {WindowedOp::kAtomic, WindowedOp::kRead, WindowedOp::kWrite}) {
      TargetPace p = target_pace(provider, op);
      EXPECT_EQ(p.gap_ns, 0) << provider;
      EXPECT_EQ(p.why, "progress calls without pause") << provider;
    }
  }
}

}  // namespace
}  // namespace fabperf
