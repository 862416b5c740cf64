// The one measured loop of every closed-loop latency test, socket and fabric: warm-up
// iterations, then the measured phase from mark_start() to the run limit (-n or -t) or ^C,
// every sample recorded, the peer looked at every kPeerCheckNs, --latency_gap kept between
// iterations, mark_end() at the end. A test supplies only its iteration.
#pragma once

#include <time.h>

#include <cstdint>

#include "core/clock.h"
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

// Runs `once(iteration, t0)` (returning Result<Sample>) until the limit; t0 is the clock as the
// iteration begins (one read serves the limit and the sample: on shm a round trip is a few
// clock reads long). `periodic(now)` (returning Status) is the test's look at its peer; it
// runs at most every kPeerCheckNs. The samples of the measured phase go to ctx.latency;
// iterations and losses are the test's to count. Returns the first failure, or Ok when the
// limit or a stop request ended the loop.
template <typename Once, typename Periodic>
Status run_latency_loop(TestContext& ctx, Once&& once, Periodic&& periodic) {
  const uint64_t warmup = ctx.opts.warmup;
  const int64_t gap_ns = static_cast<int64_t>(ctx.opts.latency_gap) * 1000;
  RunLimit limit(ctx.opts);
  uint64_t measured = 0;
  int64_t next_check = now_ns() + kPeerCheckNs;
  for (uint64_t iteration = 0;; ++iteration) {
    const bool warming = iteration < warmup;
    int64_t t0 = now_ns();
    if (iteration == warmup) {
      ctx.mark_start();
      t0 = now_ns();  // the first sample starts after mark_start's reads, not before them
      limit.start(t0);
    }
    if (!warming && (ctx.stop_requested() || limit.done(measured, t0))) break;
    auto sample = once(iteration, t0);
    if (!sample.ok()) return sample.status();
    if (!warming && !sample->lost) {
      ctx.latency.record(static_cast<uint64_t>(sample->ns));
      ++measured;
    }
    int64_t now = t0 + sample->ns;
    if (gap_ns > 0) {
      wait_gap(gap_ns);
      now = now_ns();
    }
    if (!warming) ctx.interval.tick(now, IntervalCounts::of(ctx.stats), &ctx.latency);
    if (now >= next_check) {
      next_check = now + kPeerCheckNs;
      FP_RETURN_IF_ERROR(periodic(now));
    }
  }
  ctx.interval.finish(now_ns(), IntervalCounts::of(ctx.stats), &ctx.latency);
  ctx.mark_end();
  return Status::Ok();
}

}  // namespace fabperf
