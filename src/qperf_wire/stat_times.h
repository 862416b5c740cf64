// The clock and CPU counters of qperf's results block: what a fabperf server puts in it, and a
// stock server's block read back as fabperf's SideStats (as qperf's client computes it).
#pragma once

#include <cstdint>

#include "engine/side_stats.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

// fabperf's blocks count microseconds in every time field (no_ticks = 1e6): qperf's own count
// 10 ms ticks, and a stock client divides by no_ticks, so finer ticks only sharpen its figures.
inline constexpr uint32_t kTicksPerSecond = 1'000'000;

// The nine time fields now, in kTicksPerSecond units: real time from CLOCK_MONOTONIC_RAW, the
// rest from /proc/stat's cpu line (USER_HZ ticks, scaled). Without /proc/stat they stay 0.
void take_times(uint64_t (&times)[kTimeFields]);

// A results block for this host's side of a test, from its counters and snapshots.
Stat make_stat(const uint64_t (&start)[kTimeFields], const uint64_t (&end)[kTimeFields],
               const Counters& sent, const Counters& received);

// The server's side of a test from its block: counters, real time and CPU use by qperf's
// formulas (calc_node): user = user+nice, kernel = system+steal, intr = irq+softirq, used =
// their sum with iowait, CPU time as a float. Hostile values give finite, bounded figures.
SideStats side_stats_from_stat(const Stat& stat);

// A side's real time from its block, in seconds (0 when the block has no clock).
double stat_real_seconds(const Stat& stat);

}  // namespace fabperf::qperf_wire
