// The one measured loop of every closed-loop latency test, socket and fabric: warm-up
// iterations, then the measured phase from mark_start() to the run limit (-n or -t) or ^C,
// every sample recorded, the peer looked at every kPeerCheckNs, --latency_gap kept between
// iterations, mark_end() at the end. A test supplies only its iteration.
#pragma once

#include <time.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/cycle_clock.h"
#include "core/status.h"
#include "engine/run_limit.h"
#include "engine/test_context.h"

namespace fabperf {

// How often long loops look at the control channel (peer failure, stop request, heartbeat).
inline constexpr int64_t kPeerCheckNs = 100'000'000;

// What one iteration measured.
struct Sample {
  int64_t ns = 0;     // its time (a round trip, or issue to completion)
  bool lost = false;  // an unreliable transport's reply never came: counted, not timed
};

// Waits `gap_ns`: sleeps most of it and spins the last stretch, so short gaps stay exact.
void wait_gap(int64_t gap_ns);

// The CXI tools' busy-wait between iterations (active_sleep, utils_common.c), reproduced: on
// every pass it adds the time since its start to a sum, and ends once the sum reaches
// `gap_ns`. It therefore spins about sqrt(2 * gap * c) (c: one clock read), 7-10 us for their
// default 1000 us gap, never sleeping. --latency_gap_mode original (the fab_* default).
// `now` is the clock (tests give a fake one); returns the time spun.
template <typename Now>
int64_t spin_like_originals(int64_t gap_ns, Now&& now) {
  const int64_t start = now();
  int64_t sum = 0, t = start;
  // Ends: the clock moves on, so each pass adds more than the one before.
  while (sum < gap_ns) {
    t = now();
    sum += t - start;
  }
  return t - start;
}
inline void wait_gap_like_originals(int64_t gap_ns) {
  spin_like_originals(gap_ns, [] { return now_ns(); });
}

// The gaps a loop kept: how they were made and how long they measured, for the run's info.
struct GapRecord {
  bool original = false;  // wait_gap_like_originals, else wait_gap
  int64_t asked_ns = 0;
  int64_t total_ns = 0;
  uint64_t count = 0;
  nlohmann::json to_json() const;
};

// The run's latency clock (--clock), calibrated now where it is the cycle counter, which the
// run's info then records ("clock"); every loop that times samples takes it from here.
inline Result<SampleClock> run_clock(TestContext& ctx) {
  auto clock = SampleClock::named(ctx.opts.clock);
  if (clock.ok() && clock->on_cycles()) ctx.stats.info["clock"] = clock->describe();
  return clock;
}

// Runs `once(iteration, t0, clock)` (returning Result<Sample>) until the limit; t0 is the clock
// as the iteration begins (one read serves the limit and the sample: on shm a round trip is a
// few clock reads long). `clock` is the run's SampleClock (--clock), chosen and calibrated here
// once and recorded in the info: an iteration that reads its own times reads them from it.
// `periodic(now)` (returning Status) is the test's look at its peer; it runs at most every
// kPeerCheckNs. The samples of the measured phase go to ctx.latency; iterations and losses are the
// test's to count. Returns the first failure, or Ok when the limit or a stop request ended the
// loop.
template <typename Once, typename Periodic>
Status run_latency_loop(TestContext& ctx, Once&& once, Periodic&& periodic) {
  const uint64_t warmup = ctx.opts.warmup;
  const int64_t gap_ns = static_cast<int64_t>(ctx.opts.latency_gap) * 1000;
  GapRecord gaps{ctx.opts.latency_gap_mode == "original", gap_ns, 0, 0};
  auto chosen = run_clock(ctx);
  if (!chosen.ok()) return chosen.status();
  const SampleClock clock = *chosen;
  RunLimit limit(ctx.opts);
  uint64_t measured = 0;
  int64_t next_check = clock.now() + kPeerCheckNs;
  for (uint64_t iteration = 0;; ++iteration) {
    const bool warming = iteration < warmup;
    int64_t t0 = clock.now();
    if (iteration == warmup) {
      ctx.mark_start();
      t0 = clock.now();  // the first sample starts after mark_start's reads, not before them
      limit.start(t0);
    }
    if (!warming && (ctx.stop_requested() || limit.done(measured, t0))) break;
    auto sample = once(iteration, t0, clock);
    if (!sample.ok()) return sample.status();
    if (!warming && !sample->lost) {
      ctx.latency.record(static_cast<uint64_t>(sample->ns));
      ++measured;
    }
    int64_t now = t0 + sample->ns;
    if (gap_ns > 0) {
      // After warm-up iterations too, as the originals.
      const int64_t before = clock.now();
      if (gaps.original) {
        wait_gap_like_originals(gap_ns);
      } else {
        wait_gap(gap_ns);
      }
      now = clock.now();
      gaps.total_ns += now - before;
      ++gaps.count;
    }
    if (!warming) ctx.interval.tick(now, IntervalCounts::of(ctx.stats), &ctx.latency);
    if (now >= next_check) {
      next_check = now + kPeerCheckNs;
      FP_RETURN_IF_ERROR(periodic(now));
    }
  }
  ctx.interval.finish(now_ns(), IntervalCounts::of(ctx.stats), &ctx.latency);
  ctx.mark_end();
  if (gaps.count > 0) ctx.stats.info["latency_gap"] = gaps.to_json();
  return Status::success();
}

}  // namespace fabperf
