// The cycle counter, its calibration against CLOCK_MONOTONIC_RAW, and the frequency check.
#include "core/cycle_clock.h"

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "core/clock.h"

namespace fabperf {

uint64_t read_cycles() {
#if defined(__x86_64__)
  return __rdtsc();
#elif defined(__aarch64__)
  uint64_t v;
  asm volatile("mrs %0, cntvct_el0" : "=r"(v));
  return v;
#else
  return 0;
#endif
}

bool cycles_available() {
#if defined(__x86_64__) || defined(__aarch64__)
  return true;
#else
  return false;
#endif
}

Result<CycleClock> CycleClock::calibrate(int samples) {
  if (!cycles_available()) {
    return Status::unsupported("-c/--clock cycles: this CPU has no cycle counter fabperf can read");
  }
  // Pairs (ns since start, cycles since start), each after a spin a little longer than the
  // one before, as the original's regression spaces its samples. Each clock read sits between
  // two counter reads; a pair whose reads lie far apart (the thread was preempted between
  // them) is left out of the fit.
  struct Pair {
    double ns, cycles, width;
  };
  std::vector<Pair> pairs;
  const int64_t t0 = fabperf::now_ns();
  const uint64_t c0 = read_cycles();
  for (int i = 0; i < samples; ++i) {
    const int64_t until = fabperf::now_ns() + 100'000 + i * 10'000;
    while (fabperf::now_ns() < until) {
    }
    const uint64_t before = read_cycles();
    const int64_t t = fabperf::now_ns();
    const uint64_t after = read_cycles();
    pairs.push_back({static_cast<double>(t - t0),
                     static_cast<double>(before - c0) / 2 + static_cast<double>(after - c0) / 2,
                     static_cast<double>(after - before)});
  }
  std::vector<double> widths;
  for (const Pair& p : pairs) widths.push_back(p.width);
  std::nth_element(widths.begin(), widths.begin() + widths.size() / 2, widths.end());
  const double limit = 4 * std::max(1.0, widths[widths.size() / 2]);
  std::vector<double> x, y;
  for (const Pair& p : pairs) {
    if (p.width > limit) continue;
    x.push_back(p.ns);
    y.push_back(p.cycles);
  }
  samples = static_cast<int>(x.size());
  if (samples < 2)
    return Status::failed("-c/--clock cycles: too few undisturbed samples to calibrate");
  double sx = 0, sy = 0, sxx = 0, syy = 0, sxy = 0;
  const double n = samples;
  for (int i = 0; i < samples; ++i) {
    sx += x[i], sy += y[i], sxx += x[i] * x[i], syy += y[i] * y[i], sxy += x[i] * y[i];
  }
  const double cov = n * sxy - sx * sy, vx = n * sxx - sx * sx, vy = n * syy - sy * sy;
  if (vx <= 0 || vy <= 0 || cov <= 0) {
    return Status::failed("-c/--clock cycles: the cycle counter does not advance with the clock");
  }
  const double r2 = cov * cov / vx / vy;
  if (r2 < 0.9) {
    char buf[128];
    std::snprintf(buf, sizeof buf, "-c/--clock cycles: correlation coefficient r^2: %g < 0.9", r2);
    return Status::failed(buf);
  }
  CycleClock clock;
  clock.ns_per_cycle_ = vx / cov;  // 1 / (cycles per ns)
  clock.base_cycles_ = read_cycles();
  clock.base_ns_ = fabperf::now_ns();
  return clock;
}

std::string CycleClock::describe() const {
  char buf[160];
#if defined(__x86_64__)
  const char* counter = "TSC";
#else
  const char* counter = "cntvct_el0";
#endif
  std::snprintf(buf, sizeof buf, "cycles (%s, %.3f GHz, calibrated against CLOCK_MONOTONIC_RAW)",
                counter, ghz());
  return buf;
}

Result<SampleClock> SampleClock::named(std::string_view name) {
  if (name == "cycles") {
    auto cycles = CycleClock::calibrate();
    if (!cycles.ok()) return cycles.status();
    return SampleClock(*cycles);
  }
  if (name.empty() || name == "clock_gettime") return SampleClock();
  return Status::usage("--clock: unknown clock '" + std::string(name) +
                       "' (clock_gettime or cycles)");
}

std::string SampleClock::describe() const { return on_cycles_ ? cycles_.describe() : kClockName; }

std::string cpu_frequency_mismatch(std::string_view cpuinfo) {
  double first = 0;
  size_t pos = 0;
  while (pos < cpuinfo.size()) {
    size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string line(cpuinfo.substr(pos, end - pos));
    pos = end + 1;
    double mhz = 0;
    // (a blank in the format matches any run of blanks and tabs, as /proc/cpuinfo has)
    if (std::sscanf(line.c_str(), "cpu MHz : %lf", &mhz) != 1) continue;
    if (first == 0) {
      first = mhz;
      continue;
    }
    if (std::fabs(first - mhz) / first > 0.02) {
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "Conflicting CPU frequency values detected: %lf != %lf. CPU Frequency is "
                    "not max.",
                    first, mhz);
      return buf;
    }
  }
  return "";
}

}  // namespace fabperf
