// StridedClock: the amortised clock of the socket send and receive loops; SampleClock: the
// latency loops' clock (--clock).
#include "core/clock.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "core/cycle_clock.h"

namespace fabperf {
namespace {

// Spins until `ns` have passed: an iteration that is certainly slower than the target.
void spin_for(int64_t ns) {
  const int64_t until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

TEST(StridedClock, FastIterationsReadTheClockRarelyAndNeverAheadOfIt) {
  StridedClock clock(now_ns());
  uint32_t widest = 1;
  int64_t previous = clock.last();
  for (int i = 0; i < 200000; ++i) {
    const int64_t t = clock.tick();
    EXPECT_GE(t, previous);
    previous = t;
    widest = std::max(widest, clock.stride());
  }
  // Empty iterations take nanoseconds: the stride grows to its cap (a preempted read may
  // halve it again, so the widest seen is what is certain).
  EXPECT_EQ(widest, StridedClock::kMaxStride);
  // Sequenced: as two arguments of one call, now_ns() may run first (it did under ASan), and a
  // tick that reads the clock afresh is then later than it.
  const int64_t last = clock.tick();
  EXPECT_LE(last, now_ns());
}

TEST(StridedClock, SlowIterationsReadTheClockEveryTime) {
  StridedClock clock(now_ns());
  for (int i = 0; i < 1000; ++i) clock.tick();  // wide stride first
  ASSERT_GT(clock.stride(), 1u);
  // Iterations longer than twice the target: each read halves the stride, down to one.
  for (int i = 0; i < 200; ++i) {
    spin_for(3 * StridedClock::kTargetNs);
    clock.tick();
  }
  EXPECT_EQ(clock.stride(), 1u);
  // With a stride of one every tick is a fresh read: its value is after the spin began.
  const int64_t before = now_ns();
  spin_for(3 * StridedClock::kTargetNs);
  EXPECT_GE(clock.tick(), before + 3 * StridedClock::kTargetNs);
}

TEST(StridedClock, AfterARestartTheNextTickIsAFreshRead) {
  StridedClock clock(now_ns());
  for (int i = 0; i < 1000; ++i) clock.tick();  // wide stride: most ticks return the last read
  ASSERT_GT(clock.stride(), 1u);
  // A receive loop that waited restarts the clock: the message after the wait is timed by a
  // read of its own, not by the read before the wait.
  const int64_t waited_at = now_ns();
  clock.restart(waited_at);
  EXPECT_EQ(clock.last(), waited_at);
  EXPECT_EQ(clock.stride(), 1u);
  spin_for(3 * StridedClock::kTargetNs);
  EXPECT_GE(clock.tick(), waited_at + 3 * StridedClock::kTargetNs);
}

TEST(StridedClock, ABatchReadsTheClockWhereItsSingleTicksWould) {
  StridedClock clock(now_ns());
  for (int i = 0; i < 1000; ++i) clock.tick();  // wide stride
  for (int i = 0; i < 1000 && clock.left() < 3; ++i) clock.tick();
  ASSERT_GE(clock.left(), 3u);
  // A batch short of the stride's end reads nothing, and leaves what is left of the stride.
  const int64_t last = clock.last();
  const uint32_t left = clock.left();
  spin_for(3 * StridedClock::kTargetNs);
  EXPECT_EQ(clock.tick_n(left - 2), last);
  EXPECT_EQ(clock.left(), 2u);
  // The batch that reaches the stride's end reads the clock, as its last single tick would.
  const int64_t before = now_ns();
  EXPECT_GE(clock.tick_n(2), before);
  // A batch past the end (a caller that did not ask left()) reads it too.
  for (int i = 0; i < 1000 && clock.left() < 2; ++i) clock.tick();
  const int64_t again = now_ns();
  EXPECT_GE(clock.tick_n(clock.left() + 5), again);
}

// --clock clock_gettime (and the empty default) is CLOCK_MONOTONIC_RAW itself; an unknown name
// is a usage error that names it.
TEST(SampleClock, ClockGettimeIsTheMonotonicClockAndAnUnknownNameIsRefused) {
  for (const char* name : {"clock_gettime", ""}) {
    auto clock = SampleClock::named(name);
    ASSERT_TRUE(clock.ok()) << clock.status().message();
    EXPECT_FALSE(clock->on_cycles());
    EXPECT_EQ(clock->describe(), "CLOCK_MONOTONIC_RAW");
    const int64_t before = now_ns();
    const int64_t t = clock->now();
    EXPECT_LE(before, t);
    EXPECT_LE(t, now_ns());
  }
  auto bad = SampleClock::named("sundial");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), Code::kUsage);
  EXPECT_NE(bad.status().message().find("sundial"), std::string::npos);
}

// --clock cycles reads the calibrated counter on CLOCK_MONOTONIC_RAW's timebase, so a loop may
// compare its times with the monotonic clock's (deadlines, the peer check), and they advance
// together over a spin.
TEST(SampleClock, CyclesReadsTheCounterOnTheMonotonicTimebase) {
  if (!cycles_available()) GTEST_SKIP() << "no cycle counter on this CPU";
  auto clock = SampleClock::named("cycles");
  ASSERT_TRUE(clock.ok()) << clock.status().message();
  EXPECT_TRUE(clock->on_cycles());
  EXPECT_NE(clock->describe().find("cycles ("), std::string::npos) << clock->describe();
  const int64_t mono0 = now_ns(), c0 = clock->now();
  spin_for(20'000'000);
  const int64_t c1 = clock->now(), mono1 = now_ns();
  EXPECT_LT(std::llabs(c0 - mono0), 1'000'000) << "a millisecond is generous";
  // 20 ms measured by both, within 10% (a preemption between two reads can only add to both).
  EXPECT_NEAR(static_cast<double>(c1 - c0), static_cast<double>(mono1 - mono0),
              0.1 * static_cast<double>(mono1 - mono0));
}

}  // namespace
}  // namespace fabperf
