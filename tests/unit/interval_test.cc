// Tests for the interval meter (--interval): boundaries, counts that sum to the total, interval
// histograms that merge to the run's histogram, and the figures derived from a record.
#include "engine/interval.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace fabperf {
namespace {

constexpr int64_t kMs = 1'000'000;

// What a sink saw: the records, with each interval's histogram copied (the meter reuses its).
struct Seen {
  std::vector<IntervalRecord> records;
  std::vector<Histogram> histograms;
  IntervalMeter::Sink sink() {
    return [this](const IntervalRecord& r) {
      records.push_back(r);
      histograms.push_back(r.latency != nullptr ? *r.latency : Histogram());
    };
  }
};

IntervalCounts sum(const std::vector<IntervalRecord>& records) {
  IntervalCounts total;
  for (const IntervalRecord& r : records) {
    total.send_bytes += r.counts.send_bytes;
    total.send_msgs += r.counts.send_msgs;
    total.recv_bytes += r.counts.recv_bytes;
    total.recv_msgs += r.counts.recv_msgs;
    total.lost += r.counts.lost;
  }
  return total;
}

TEST(IntervalMeter, OffByDefault) {
  IntervalMeter meter;
  EXPECT_FALSE(meter.enabled());
  LatencyRecorder latency;
  meter.start(0, {}, &latency);
  EXPECT_FALSE(meter.due(INT64_MAX - 1));
  meter.finish(10 * kMs, {}, &latency);
  EXPECT_EQ(meter.intervals(), 0u);
  meter.configure(0, [](const IntervalRecord&) { FAIL() << "a meter at 0 s reported"; });
  EXPECT_FALSE(meter.enabled());
}

TEST(IntervalMeter, NothingBeforeStartOrAfterFinish) {
  Seen seen;
  IntervalMeter meter;
  meter.configure(0.1, seen.sink());
  EXPECT_FALSE(meter.due(1'000'000 * kMs));  // not started
  meter.finish(5 * kMs, {}, nullptr);        // not started: nothing to close
  EXPECT_TRUE(seen.records.empty());
  meter.start(1000 * kMs, {}, nullptr);
  meter.finish(1050 * kMs, {1, 1, 0, 0, 0}, nullptr);
  ASSERT_EQ(seen.records.size(), 1u);
  EXPECT_TRUE(seen.records[0].last);
  meter.tick(5000 * kMs, {9, 9, 0, 0, 0}, nullptr);  // finished: later ticks do nothing
  EXPECT_EQ(seen.records.size(), 1u);
}

// Boundaries sit on the start + k * period grid; a record's times are the real ones. A closed
// interval reaches the sink half a period after its end.
TEST(IntervalMeter, BoundariesAndRealTimes) {
  Seen seen;
  IntervalMeter meter;
  meter.configure(0.1, seen.sink());
  const int64_t t0 = 5000 * kMs;
  meter.start(t0, {}, nullptr);
  EXPECT_FALSE(meter.due(t0 + 99 * kMs));
  EXPECT_TRUE(meter.due(t0 + 100 * kMs));
  meter.tick(t0 + 99 * kMs, {10, 1, 0, 0, 0}, nullptr);
  EXPECT_TRUE(seen.records.empty());
  meter.tick(t0 + 103 * kMs, {20, 2, 0, 0, 0}, nullptr);  // a little late: real end 0.103
  EXPECT_TRUE(seen.records.empty());                      // held for a sliver to fold in
  EXPECT_EQ(meter.next_due_ns(), t0 + 153 * kMs);
  meter.tick(t0 + 160 * kMs, {25, 3, 0, 0, 0}, nullptr);
  ASSERT_EQ(seen.records.size(), 1u);
  EXPECT_DOUBLE_EQ(seen.records[0].start_s, 0);
  EXPECT_NEAR(seen.records[0].end_s, 0.103, 1e-12);
  EXPECT_EQ(seen.records[0].counts.send_bytes, 20u);
  EXPECT_FALSE(seen.records[0].last);
  EXPECT_FALSE(meter.due(t0 + 199 * kMs));  // the next boundary stays at 0.2, not 0.203
  EXPECT_TRUE(meter.due(t0 + 200 * kMs));
  // A loop that was away for several periods closes one interval spanning them all.
  meter.tick(t0 + 450 * kMs, {50, 5, 0, 0, 0}, nullptr);
  meter.tick(t0 + 499 * kMs, {55, 5, 0, 0, 0}, nullptr);  // not yet half a period after it
  ASSERT_EQ(seen.records.size(), 1u);
  meter.tick(t0 + 500 * kMs, {60, 6, 0, 0, 0}, nullptr);  // released, and 0.45-0.50 closed
  ASSERT_EQ(seen.records.size(), 2u);
  EXPECT_NEAR(seen.records[1].start_s, 0.103, 1e-12);
  EXPECT_NEAR(seen.records[1].end_s, 0.45, 1e-12);
  EXPECT_EQ(seen.records[1].counts.send_bytes, 30u);
  EXPECT_EQ(seen.records[1].index, 1u);
  // The run ends 0.07 s (over half a period) after the boundary at 0.5: its own record.
  meter.finish(t0 + 570 * kMs, {70, 7, 0, 0, 0}, nullptr);
  ASSERT_EQ(seen.records.size(), 4u);
  EXPECT_NEAR(seen.records[2].start_s, 0.45, 1e-12);
  EXPECT_NEAR(seen.records[2].end_s, 0.5, 1e-12);
  EXPECT_FALSE(seen.records[2].last);
  EXPECT_TRUE(seen.records[3].last);
  EXPECT_NEAR(seen.records[3].start_s, 0.5, 1e-12);
  EXPECT_NEAR(seen.records[3].end_s, 0.57, 1e-12);
  EXPECT_EQ(seen.records[3].counts.send_bytes, 10u);
  EXPECT_EQ(seen.records[3].latency, nullptr);
}

// The run's end a sliver after a boundary (a -t 1 --interval 0.25 run ending at 1.02 s, or
// 52 us after 1.0) is folded into the interval before: no record shorter than half a period,
// and the counts still sum to the run's.
TEST(IntervalMeter, FinalSliverFoldedIntoThePreviousInterval) {
  for (int64_t tail_us : {0, 52, 20'000, 124'000}) {
    Seen seen;
    IntervalMeter meter;
    meter.configure(0.25, seen.sink());
    LatencyRecorder latency;
    meter.start(0, {}, &latency);
    uint64_t bytes = 0;
    int64_t now = 0;
    for (; now < 1000 * kMs; now += kMs) {  // a message every millisecond
      bytes += 65536;
      latency.record(1000);
      meter.tick(now + kMs, {bytes, bytes / 65536, 0, 0, 0}, &latency);
    }
    bytes += 65536;  // one more message in the tail
    latency.record(1000);
    meter.finish(now + tail_us * 1000, {bytes, bytes / 65536, 0, 0, 0}, &latency);
    ASSERT_EQ(seen.records.size(), 4u) << tail_us;
    const IntervalRecord& last = seen.records.back();
    EXPECT_TRUE(last.last);
    EXPECT_NEAR(last.start_s, 0.75, 1e-9);
    EXPECT_NEAR(last.end_s, 1.0 + tail_us * 1e-6, 1e-9);
    EXPECT_EQ(sum(seen.records).send_bytes, bytes) << tail_us;
    for (const IntervalRecord& r : seen.records) {
      EXPECT_GE(r.end_s - r.start_s, 0.125) << tail_us;
      EXPECT_LT(interval_figures(r).send_Bps, 70e6) << tail_us;  // never a 1.2 GB/s sliver
    }
    uint64_t samples = 0;
    for (const Histogram& h : seen.histograms) samples += h.count();
    EXPECT_EQ(samples, latency.count()) << tail_us;
  }
}

// A latency loop's run: intervals' counts sum to the total counted after the start (warm-up
// left out), and their histograms merged are the run's histogram, bucket for bucket.
TEST(IntervalMeter, SumsAndMergedHistogramEqualTheRun) {
  Seen seen;
  IntervalMeter meter;
  meter.configure(0.05, seen.sink());
  LatencyRecorder latency(0.5);
  SideStats stats;
  // Warm-up: counted by the test, not by the intervals.
  stats.send_msgs = stats.recv_msgs = 10;
  stats.send_bytes = stats.recv_bytes = 640;
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> dist(9.0, 1.0);
  int64_t now = 1'000 * kMs;
  meter.start(now, IntervalCounts::of(stats), &latency);
  for (int i = 0; i < 20000; ++i) {
    uint64_t ns = static_cast<uint64_t>(dist(rng)) + 1;
    if (i % 97 == 0) {
      stats.lost_msgs++;  // a lost reply: counted, never timed
    } else {
      latency.record(ns);
      stats.recv_msgs++;
      stats.recv_bytes += 64;
    }
    stats.send_msgs++;
    stats.send_bytes += 64;
    now += static_cast<int64_t>(ns);
    meter.tick(now, IntervalCounts::of(stats), &latency);
  }
  meter.finish(now, IntervalCounts::of(stats), &latency);
  ASSERT_GE(seen.records.size(), 4u);
  IntervalCounts total = sum(seen.records);
  EXPECT_EQ(total.send_msgs, stats.send_msgs - 10);
  EXPECT_EQ(total.send_bytes, stats.send_bytes - 640);
  EXPECT_EQ(total.recv_msgs, stats.recv_msgs - 10);
  EXPECT_EQ(total.recv_bytes, stats.recv_bytes - 640);
  EXPECT_EQ(total.lost, stats.lost_msgs);
  Histogram merged;
  uint64_t samples = 0;
  for (size_t i = 0; i < seen.records.size(); ++i) {
    const IntervalRecord& r = seen.records[i];
    EXPECT_EQ(r.index, i);
    EXPECT_DOUBLE_EQ(r.latency_scale, 0.5);
    EXPECT_EQ(r.last, i + 1 == seen.records.size());
    if (i > 0) {
      EXPECT_DOUBLE_EQ(r.start_s, seen.records[i - 1].end_s);  // contiguous
    }
    merged.merge(seen.histograms[i]);
    samples += seen.histograms[i].count();
  }
  EXPECT_EQ(samples, latency.count());
  ASSERT_EQ(merged.count(), latency.histogram().count());
  for (size_t b = 0; b < Histogram::kBucketCount; ++b) {
    ASSERT_EQ(merged.count_at(b), latency.histogram().count_at(b)) << "bucket " << b;
  }
}

// Nothing after the last boundary: no empty record of no length.
TEST(IntervalMeter, NoEmptyRecordAtTheEnd) {
  Seen seen;
  IntervalMeter meter;
  meter.configure(0.1, seen.sink());
  LatencyRecorder latency;
  meter.start(0, {}, &latency);
  latency.record(100);
  meter.tick(100 * kMs, {64, 1, 64, 1, 0}, &latency);
  meter.finish(100 * kMs, {64, 1, 64, 1, 0}, &latency);
  ASSERT_EQ(seen.records.size(), 1u);
  EXPECT_TRUE(seen.records[0].last);  // the held interval, released as the run's last
  // A run with nothing at all still gets its one (empty) record.
  Seen empty;
  IntervalMeter idle;
  idle.configure(0.1, empty.sink());
  idle.start(0, {}, nullptr);
  idle.finish(50 * kMs, {}, nullptr);
  ASSERT_EQ(empty.records.size(), 1u);
  EXPECT_TRUE(empty.records[0].last);
}

TEST(IntervalMeter, RestartForgetsTheEarlierPhase) {
  Seen seen;
  IntervalMeter meter;
  meter.configure(1, seen.sink());
  meter.start(0, {5, 5, 0, 0, 0}, nullptr);
  meter.start(10 * kMs, {7, 7, 0, 0, 0}, nullptr);
  meter.finish(20 * kMs, {9, 9, 0, 0, 0}, nullptr);
  ASSERT_EQ(seen.records.size(), 1u);
  EXPECT_EQ(seen.records[0].counts.send_bytes, 2u);
  EXPECT_NEAR(seen.records[0].end_s, 0.01, 1e-12);
}

TEST(IntervalFigures, RatesOverTheRealDurationAndScaledLatency) {
  Histogram h;
  for (int i = 0; i < 99; ++i) h.record(1000);
  h.record(100000);
  IntervalRecord r;
  r.start_s = 1.0;
  r.end_s = 1.5;
  r.counts = {1'000'000, 100, 2'000, 4, 1};
  r.latency = &h;
  r.latency_scale = 0.5;
  IntervalFigures f = interval_figures(r);
  EXPECT_DOUBLE_EQ(f.seconds, 0.5);
  EXPECT_DOUBLE_EQ(f.send_Bps, 2'000'000);
  EXPECT_DOUBLE_EQ(f.recv_Bps, 4'000);
  EXPECT_DOUBLE_EQ(f.msg_rate, 200);  // sent messages, where there are any
  EXPECT_EQ(f.samples, 100u);
  EXPECT_NEAR(f.mean_ns, (99 * 1000 + 100000) / 100.0 * 0.5, 0.001 * f.mean_ns);
  EXPECT_NEAR(f.p99_ns, 500, 1);
  r.counts = {0, 0, 8'000, 8, 0};  // a receiver's interval
  EXPECT_DOUBLE_EQ(interval_figures(r).msg_rate, 16);
  EXPECT_TRUE(interval_figures(r).rated);
  r.end_s = r.start_s;  // no time: no rate, never a division by zero
  EXPECT_DOUBLE_EQ(interval_figures(r).recv_Bps, 0);
  r.end_s = r.start_s + 52e-6;  // a 52 us span: too short for a rate to mean anything
  EXPECT_FALSE(interval_figures(r).rated);
  EXPECT_DOUBLE_EQ(interval_figures(r).recv_Bps, 0);
  EXPECT_DOUBLE_EQ(interval_figures(r).msg_rate, 0);
}

}  // namespace
}  // namespace fabperf
