// The ring of buffer slots an operation's index wraps into (fabric/slot_ring.h): a mask for
// powers of two, a divide elsewhere, every index in slot 0 for a ring of one or none.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "fabric/slot_ring.h"

namespace fabperf {
namespace {

TEST(FabricSlotRing, WrapsEveryIndexAsTheRemainderWould) {
  const std::vector<uint64_t> indexes = {
      0, 1, 2, 3, 7, 8, 15, 16, 17, 127, 128, 129, 1000, 4095, 65537, 1ull << 32, ~0ull - 1, ~0ull};
  for (uint64_t n : {1u, 2u, 3u, 5u, 8u, 12u, 16u, 100u, 128u, 1000u, 1024u}) {
    const SlotRing ring = SlotRing::of(n);
    EXPECT_EQ(ring.n, n);
    for (uint64_t i : indexes) {
      EXPECT_EQ(ring.wrap(i), i % n) << "index " << i << " in a ring of " << n;
    }
  }
}

TEST(FabricSlotRing, MasksOnlyWherePowersOfTwo) {
  EXPECT_EQ(SlotRing::of(128).mask, 127u);
  EXPECT_EQ(SlotRing::of(16).mask, 15u);
  EXPECT_EQ(SlotRing::of(100).mask, 0u);  // not a power of two: the divide
  EXPECT_EQ(SlotRing::of(3).mask, 0u);
}

TEST(FabricSlotRing, ARingOfNoneIsOneSlot) {
  const SlotRing ring = SlotRing::of(0);
  EXPECT_EQ(ring.n, 1u);
  for (uint64_t i : {0ull, 1ull, 12345ull, ~0ull}) EXPECT_EQ(ring.wrap(i), 0u);
}

}  // namespace
}  // namespace fabperf
