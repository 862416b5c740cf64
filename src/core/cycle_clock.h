// The CPU's cycle counter as a latency clock (--clock cycles, fab_send_lat's -c cycles, as
// cxi_send_lat's): rdtsc on x86-64, cntvct_el0 on aarch64, its rate fitted against
// CLOCK_MONOTONIC_RAW.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace fabperf {

// The counter, raw. 0 where this build has none (cycles_available() false).
uint64_t read_cycles();
bool cycles_available();

// Cycles converted to nanoseconds on the CLOCK_MONOTONIC_RAW timebase of its calibration.
class CycleClock {
 public:
  // Fits cycles against CLOCK_MONOTONIC_RAW by least squares over `samples` pairs a little
  // under a millisecond apart (the original fits against gettimeofday, 200 pairs 100-2090 us
  // apart); refuses a fit whose r^2 is under 0.9 (the original's test), or no counter.
  static Result<CycleClock> calibrate(int samples = 60);

  int64_t now_ns() const { return to_ns(read_cycles()); }
  int64_t to_ns(uint64_t cycles) const {
    const double since = static_cast<double>(static_cast<int64_t>(cycles - base_cycles_));
    return base_ns_ + static_cast<int64_t>(since * ns_per_cycle_);
  }
  double ghz() const { return 1.0 / ns_per_cycle_; }
  // "cycles (TSC, 2.893 GHz, calibrated against CLOCK_MONOTONIC_RAW)", for the run's info.
  std::string describe() const;

 private:
  uint64_t base_cycles_ = 0;
  int64_t base_ns_ = 0;
  double ns_per_cycle_ = 1;
};

// The clock a latency loop times its samples by (--clock): CLOCK_MONOTONIC_RAW, or the cycle
// counter calibrated against it. Both read nanoseconds on CLOCK_MONOTONIC_RAW's timebase, so
// a loop's deadlines and its samples may mix them. A read of the counter costs less than one
// of clock_gettime (12 ns against 30 on the 2-vCPU guest of bench/README's "The shm latency
// rows by the host's mode"), and each sample holds about one read.
class SampleClock {
 public:
  SampleClock() = default;  // clock_gettime
  explicit SampleClock(const CycleClock& cycles) : cycles_(cycles), on_cycles_(true) {}
  // "clock_gettime" or "cycles" (calibrated now: some 25 ms); an error names a failed
  // calibration.
  static Result<SampleClock> named(std::string_view name);

  int64_t now() const { return on_cycles_ ? cycles_.now_ns() : now_ns(); }
  bool on_cycles() const { return on_cycles_; }
  // CycleClock::describe(), or "CLOCK_MONOTONIC_RAW".
  std::string describe() const;

 private:
  CycleClock cycles_;
  bool on_cycles_ = false;
};

// cxi_send_lat's CPU frequency check (get_clock.c, proc_get_cpu_mhz): the "cpu MHz" lines of
// /proc/cpuinfo's text; the first pair more than 2% apart as its warning ("Conflicting CPU
// frequency values detected: 2000.000000 != 3000.000000. CPU Frequency is not max."), "" when
// they agree or none is listed.
std::string cpu_frequency_mismatch(std::string_view cpuinfo);

}  // namespace fabperf
