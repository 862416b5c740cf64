// The contexts of a fabric session's operations in flight (fabric/completions.h ContextPool).
#include <gtest/gtest.h>

#include <set>

#include "fabric/completions.h"

namespace fabperf {
namespace {

TEST(FabricContextPool, HandsOutEachContextOnceThenNone) {
  ContextPool pool;
  pool.init(OpKind::kTx, 4);
  EXPECT_EQ(pool.capacity(), 4u);
  EXPECT_EQ(pool.in_flight(), 0u);
  std::set<uint32_t> seen;
  for (uint32_t i = 0; i < 4; ++i) {
    OpContext* c = pool.acquire(100 + i);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->kind, OpKind::kTx);
    EXPECT_EQ(c->slot, 100 + i);  // the slot the caller named
    EXPECT_LT(c->index, 4u);
    EXPECT_TRUE(seen.insert(c->index).second) << "context " << c->index << " handed out twice";
    EXPECT_EQ(pool.in_flight(), i + 1);
  }
  EXPECT_EQ(pool.acquire(0), nullptr);  // a full window: none left
  EXPECT_EQ(pool.in_flight(), 4u);
}

TEST(FabricContextPool, ThePeakIsTheMostInFlightAtAnyNoteAndANewRunStartsAtNone) {
  ContextPool pool;
  pool.init(OpKind::kTx, 4);
  EXPECT_EQ(pool.peak(), 0u);
  OpContext* a = pool.acquire(0);
  OpContext* b = pool.acquire(0);
  OpContext* c = pool.acquire(0);
  EXPECT_EQ(pool.peak(), 0u);  // noted where completions may lower it, not on each acquire
  pool.note_peak();
  EXPECT_EQ(pool.peak(), 3u);
  pool.release(a);
  pool.release(b);
  pool.note_peak();
  EXPECT_EQ(pool.peak(), 3u);  // the most, not the latest
  pool.release(c);
  pool.init(OpKind::kTx, 4);
  EXPECT_EQ(pool.peak(), 0u);
}

TEST(FabricContextPool, TheFirstContextIsTheFirstOneAndAReleasedOneComesBackNext) {
  ContextPool pool;
  pool.init(OpKind::kRx, 3);
  OpContext* a = pool.acquire(0);
  OpContext* b = pool.acquire(0);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(a->index, 0u);  // a one-at-a-time test always uses context (and slot) 0
  EXPECT_EQ(b->index, 1u);
  pool.release(a);
  EXPECT_EQ(pool.in_flight(), 1u);
  EXPECT_EQ(pool.acquire(0), a);  // the most recently freed: still in cache
}

TEST(FabricContextPool, AnOperationWithoutASlotOfItsOwnTakesItsContexts) {
  ContextPool pool;
  pool.init(OpKind::kTx, 8);
  std::set<uint32_t> slots;
  for (int i = 0; i < 8; ++i) {
    OpContext* c = pool.acquire(ContextPool::kOwnSlot);
    ASSERT_NE(c, nullptr);
    EXPECT_EQ(c->slot, c->index);  // in flight at once, never one slot for two operations
    slots.insert(c->slot);
  }
  EXPECT_EQ(slots.size(), 8u);
}

TEST(FabricContextPool, AReleaseWithNothingInFlightNeverOverrunsTheFreeList) {
  ContextPool pool;
  pool.init(OpKind::kTx, 2);
  OpContext* a = pool.acquire(0);
  ASSERT_NE(a, nullptr);
  pool.release(a);
  pool.release(a);  // a provider's duplicate completion
  pool.release(a);
  EXPECT_EQ(pool.in_flight(), 0u);
  std::set<uint32_t> seen;
  for (int i = 0; i < 2; ++i) {
    OpContext* c = pool.acquire(0);
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(seen.insert(c->index).second);
  }
  EXPECT_EQ(pool.acquire(0), nullptr);
}

TEST(FabricContextPool, InitAgainStartsOver) {
  ContextPool pool;
  pool.init(OpKind::kTx, 2);
  ASSERT_NE(pool.acquire(0), nullptr);
  pool.init(OpKind::kTx, 5);
  EXPECT_EQ(pool.capacity(), 5u);
  EXPECT_EQ(pool.in_flight(), 0u);
}

}  // namespace
}  // namespace fabperf
