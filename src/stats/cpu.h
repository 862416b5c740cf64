// CPU accounting over a measured interval: system-wide from /proc/stat, per thread from rusage.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string_view>

#include "core/status.h"

namespace fabperf {

// The aggregate "cpu" line of /proc/stat, in USER_HZ ticks. guest/guest_nice are left out on
// purpose: the kernel already counts them inside user/nice.
struct ProcStatTicks {
  uint64_t user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0;
};

// Parses the first line of /proc/stat text. Fields newer than idle may be missing (old kernels)
// and read as 0; anything that is not "cpu" followed by unsigned integers is an error.
Result<ProcStatTicks> parse_proc_stat(std::string_view text);
Result<ProcStatTicks> read_proc_stat();

// The counters at one instant, taken at the start and end of a measured phase.
struct CpuSnapshot {
  ProcStatTicks ticks;
  bool have_ticks = false;  // false when /proc/stat could not be read: no system-wide figures
  int64_t wall_ns = 0;      // CLOCK_MONOTONIC_RAW
  int64_t thread_user_ns = 0;
  int64_t thread_sys_ns = 0;

  // Never fails: a missing /proc/stat only clears have_ticks.
  static CpuSnapshot take();
};

// CPU use over an interval; every figure is finite and 0 when the interval is empty.
struct CpuUsage {
  double real_s = 0;
  // System-wide, percent of one CPU (as qperf): used = user+nice+system+irq+softirq+steal+iowait,
  // user = user+nice, kernel = system, intr = irq+softirq.
  double cpus_used = 0, cpus_user = 0, cpus_kernel = 0, cpus_intr = 0, cpus_iowait = 0;
  double cpu_time_s = 0;  // the system-wide ticks counted in cpus_used, in seconds
  // The calling thread (getrusage RUSAGE_THREAD), percent of one CPU.
  double proc_user = 0, proc_kernel = 0, proc_used = 0;

  nlohmann::json to_json() const;
  // Tolerant (reports only): a missing or non-numeric field reads 0.
  static CpuUsage from_json(const nlohmann::json& j);
};

// Counters that went backwards (a failed read, a reset) count as zero rather than wrapping.
CpuUsage cpu_between(const CpuSnapshot& start, const CpuSnapshot& end);

}  // namespace fabperf
