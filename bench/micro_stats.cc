// Micro-benchmarks for the per-sample hot path: recording a latency and reading the clock.
#include <benchmark/benchmark.h>
#include <time.h>

#include <atomic>
#include <cstdint>
#include <random>
#include <vector>

#include "core/clock.h"
#include "engine/side_stats.h"
#include "stats/histogram.h"
#include "stats/latency.h"

namespace fabperf {
namespace {

// Pre-generated samples so the benchmark times record(), not the random number generator; the
// spread (about 1 us .. 1 ms) touches many buckets, as a real latency run does.
const std::vector<uint64_t>& Samples() {
  static const std::vector<uint64_t> samples = [] {
    std::mt19937_64 rng(1);
    std::lognormal_distribution<double> dist(9.0, 1.2);
    std::vector<uint64_t> v(4096);
    for (auto& x : v) x = static_cast<uint64_t>(dist(rng));
    return v;
  }();
  return samples;
}

void BM_HistogramRecord(benchmark::State& state) {
  Histogram h;
  const std::vector<uint64_t>& samples = Samples();
  size_t i = 0;
  for (auto _ : state) {
    h.record(samples[i]);
    i = (i + 1) & (samples.size() - 1);
  }
  benchmark::DoNotOptimize(h.count());
}
BENCHMARK(BM_HistogramRecord);

void BM_LatencyRecorderRecord(benchmark::State& state) {
  LatencyRecorder r(0.5);
  const std::vector<uint64_t>& samples = Samples();
  size_t i = 0;
  for (auto _ : state) {
    r.record(samples[i]);
    i = (i + 1) & (samples.size() - 1);
  }
  benchmark::DoNotOptimize(r.summarize({50}).mean);
}
BENCHMARK(BM_LatencyRecorderRecord);

// One fixed value: no cache misses on the buckets, the pure instruction cost.
void BM_LatencyRecorderRecordSameValue(benchmark::State& state) {
  LatencyRecorder r;
  uint64_t v = 12345;
  for (auto _ : state) {
    benchmark::DoNotOptimize(v);
    r.record(v);
  }
  benchmark::DoNotOptimize(r.count());
}
BENCHMARK(BM_LatencyRecorderRecordSameValue);

void BM_ClockGettimeMonotonicRaw(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeMonotonicRaw);

// What a ping-pong iteration adds on top of the transport: two clock reads and one record.
void BM_TimestampPairAndRecord(benchmark::State& state) {
  LatencyRecorder r(0.5);
  timespec a;
  timespec b;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC_RAW, &a);
    clock_gettime(CLOCK_MONOTONIC_RAW, &b);
    r.record(static_cast<uint64_t>((b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec)));
  }
  benchmark::DoNotOptimize(r.count());
}
BENCHMARK(BM_TimestampPairAndRecord);

// One closed-loop ping-pong iteration of tcp_lat's client (src/socket/socket_tests.cc) with the
// two system calls taken out: the loop's end test, the ^C flag, two clock reads, the counters
// and the record. What fabperf adds to each round trip on top of the floor.
void BM_PingPongIterationBookkeeping(benchmark::State& state) {
  LatencyRecorder latency(0.5);
  SideStats stats;
  std::atomic<bool> stop{false};
  const uint64_t count = 0;
  const int64_t end_ns = now_ns() + (int64_t{1} << 62);
  uint64_t measured = 0;
  for (auto _ : state) {
    int64_t t0 = now_ns();
    bool done = count > 0 ? measured >= count : t0 >= end_ns;
    if (done || stop.load(std::memory_order_relaxed)) break;
    stats.send_msgs++;
    stats.send_bytes += 1;
    // (send and recv here)
    int64_t t1 = now_ns();
    stats.recv_msgs++;
    stats.recv_bytes += 1;
    latency.record(static_cast<uint64_t>(t1 - t0));
    ++measured;
  }
  benchmark::DoNotOptimize(latency.count());
  benchmark::DoNotOptimize(stats.recv_msgs);
}
BENCHMARK(BM_PingPongIterationBookkeeping);

}  // namespace
}  // namespace fabperf

BENCHMARK_MAIN();
