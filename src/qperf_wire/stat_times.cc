// Time snapshots in a results block's units, and qperf's per-node figures from a block.
#include "qperf_wire/stat_times.h"

#include <unistd.h>

#include <algorithm>

#include "core/clock.h"
#include "stats/cpu.h"

namespace fabperf::qperf_wire {

namespace {

// A run longer than this is not a run: bounds what a hostile block can make of the figures.
constexpr double kMaxSeconds = 1e9;

uint64_t delta(const Stat& s, int field) {
  return s.time_e[field] >= s.time_s[field] ? s.time_e[field] - s.time_s[field] : 0;
}

}  // namespace

void take_times(uint64_t (&times)[kTimeFields]) {
  std::fill(std::begin(times), std::end(times), 0);
  times[kReal] = static_cast<uint64_t>(now_ns() / 1000);
  auto ticks = read_proc_stat();
  if (!ticks.ok()) return;
  long hz = sysconf(_SC_CLK_TCK);
  uint64_t scale = kTicksPerSecond / static_cast<uint64_t>(hz > 0 ? hz : 100);
  const ProcStatTicks& t = *ticks;
  times[kUser] = t.user * scale;
  times[kNice] = t.nice * scale;
  times[kKernel] = t.system * scale;
  times[kIdle] = t.idle * scale;
  times[kIowait] = t.iowait * scale;
  times[kIrq] = t.irq * scale;
  times[kSoftirq] = t.softirq * scale;
  times[kSteal] = t.steal * scale;
}

Stat make_stat(const uint64_t (&start)[kTimeFields], const uint64_t (&end)[kTimeFields],
               const Counters& sent, const Counters& received) {
  Stat stat;
  long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  stat.no_cpus = static_cast<uint32_t>(cpus > 0 ? cpus : 1);
  stat.no_ticks = kTicksPerSecond;
  std::copy(std::begin(start), std::end(start), stat.time_s);
  std::copy(std::begin(end), std::end(end), stat.time_e);
  stat.s = sent;
  stat.r = received;
  return stat;
}

double stat_real_seconds(const Stat& stat) {
  if (stat.no_ticks == 0) return 0;
  return std::min(static_cast<double>(delta(stat, kReal)) / stat.no_ticks, kMaxSeconds);
}

SideStats side_stats_from_stat(const Stat& stat) {
  SideStats side;
  side.send_bytes = stat.s.bytes + stat.rem_s.bytes;
  side.send_msgs = stat.s.msgs + stat.rem_s.msgs;
  side.send_errors = stat.s.errs + stat.rem_s.errs;
  side.recv_bytes = stat.r.bytes + stat.rem_r.bytes;
  side.recv_msgs = stat.r.msgs + stat.rem_r.msgs;
  side.recv_errors = stat.r.errs + stat.rem_r.errs;
  double real_s = stat_real_seconds(stat);
  side.real_time_ns = static_cast<int64_t>(real_s * 1e9);
  side.send_time_ns = side.real_time_ns;
  side.recv_time_ns = side.real_time_ns;
  CpuUsage& cpu = side.cpu;
  cpu.real_s = real_s;
  double s = static_cast<double>(delta(stat, kReal));
  if (s == 0 || stat.no_ticks == 0) return side;
  auto part = [&](std::initializer_list<int> fields) {
    double sum = 0;
    for (int f : fields) sum += static_cast<double>(delta(stat, f));
    return std::min(sum / s * 100, 1e9);  // percent of one CPU
  };
  cpu.cpus_user = part({kUser, kNice});
  cpu.cpus_intr = part({kIrq, kSoftirq});
  cpu.cpus_kernel = part({kKernel, kSteal});
  cpu.cpus_iowait = part({kIowait});
  cpu.cpus_used = cpu.cpus_user + cpu.cpus_intr + cpu.cpus_kernel + cpu.cpus_iowait;
  double busy = 0;
  for (int f = 0; f < kTimeFields; ++f) {
    if (f != kReal && f != kIdle) busy += static_cast<double>(delta(stat, f));
  }
  // qperf keeps the CPU time in a float; its figures carry that rounding.
  cpu.cpu_time_s =
      std::min(static_cast<double>(static_cast<float>(busy)) / stat.no_ticks, kMaxSeconds);
  return side;
}

}  // namespace fabperf::qperf_wire
