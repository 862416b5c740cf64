// Host noise: what the host did to a run besides the run itself. The measuring thread's context
// switches and its time waiting for a CPU, the host's steal time, CPU pressure and run queue,
// busy-polling threads against the CPUs they may use, CPU frequency changes. Each side records
// them over its measured phase; documented thresholds turn them into a verdict that every
// output shows (a warning line, JSON `host_noise`, the HTML banner).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "stats/cpu.h"

namespace fabperf {

// One thread's scheduler counters at an instant.
struct ThreadSched {
  uint64_t voluntary = 0;    // getrusage(RUSAGE_THREAD) ru_nvcsw: it blocked (a wait, a recv)
  uint64_t involuntary = 0;  // ru_nivcsw: the scheduler took the CPU from it (preempted)
  // /proc/thread-self/schedstat's second field: time spent runnable but waiting for a CPU
  // (ns); -1 where the kernel does not say (no CONFIG_SCHED_INFO).
  int64_t wait_ns = -1;
  int64_t user_ns = 0, sys_ns = 0;  // its CPU time, from the same getrusage

  // The calling thread's.
  static ThreadSched of_this_thread();
};

// The host's scheduler state at an instant (the pieces /proc and sysfs give; each may be absent).
struct HostSched {
  int64_t pressure_us = -1;  // /proc/pressure/cpu "some total=": us some task waited for a CPU
  uint32_t runnable = 0;     // /proc/loadavg's running count (this reader included)
  double load1 = 0;          // /proc/loadavg's 1-minute average
  uint32_t cpus_online = 0;
  uint32_t cpus_allowed = 0;  // CPUs the calling thread may run on
  // scaling_cur_freq (kHz) of the CPU the calling thread runs on at this instant (both fields
  // the same reading); 0 where cpufreq says nothing. Not the spread over every allowed CPU: on
  // a powersave host idle CPUs sit far below a busy one, and that is no change over the run.
  uint64_t freq_min_khz = 0, freq_max_khz = 0;

  // `cpu_root`: sysfs's CPU folder (tests give a made-up one).
  static HostSched take(const std::string& cpu_root = "/sys/devices/system/cpu");
};

// Parsers of the texts above (tests feed them fixed text). Each returns false on text it does
// not understand and leaves its output alone.
bool parse_schedstat(std::string_view text, int64_t* wait_ns);
bool parse_cpu_pressure(std::string_view text, int64_t* some_total_us);
bool parse_loadavg(std::string_view text, double* load1, uint32_t* runnable);

// What the host did over one side's measured phase, with the verdict.
struct HostNoise {
  bool measured = false;     // false: nothing recorded (a peer that predates it)
  double real_s = 0;         // the measured phase
  uint32_t threads = 1;      // measuring threads the thread figures sum (streams, two-way)
  uint64_t involuntary = 0;  // preemptions of the measuring thread(s)
  uint64_t voluntary = 0;    // times they blocked
  double wait_s = -1;        // their time runnable but waiting for a CPU; -1 unknown
  uint64_t operations = 0;   // what the side counted (samples or messages): the preemption share
  bool operations_are_samples = true;  // words only: "of samples" (latency), "of messages"
  double steal_pct = 0;                // the hypervisor's steal, % of all the host's CPU time
  double pressure_pct = -1;            // PSI cpu "some": % of the run some task waited; -1 unknown
  uint32_t runnable = 0;               // highest run queue seen (start, end)
  double load1 = 0;
  uint32_t cpus_online = 0, cpus_allowed = 0;
  uint32_t pollers = 0;                         // this side's busy-polling measuring threads
  uint64_t freq_min_khz = 0, freq_max_khz = 0;  // over the run's CPUs (0: unknown)

  // The verdict (judge_host_noise): each cause a short key and a sentence.
  struct Cause {
    std::string key;   // "preempted", "cpu_wait", "steal", "pollers", "frequency"
    std::string text;  // "was preempted 1,234 times (3.1% of samples)"
  };
  std::vector<Cause> causes;
  bool noisy() const { return !causes.empty(); }

  // Share of the measuring threads' time spent waiting for a CPU (0..1; -1 unknown).
  double wait_share() const;
  // Preemptions per operation counted (0..; 0 without operations).
  double preempted_share() const;

  nlohmann::json to_json() const;  // raw figures, and "verdict" with the causes
  static HostNoise from_json(const nlohmann::json& j);  // tolerant; verdict not read back
};

// The two instants of a measured phase on one thread.
struct NoiseSnapshot {
  ThreadSched thread;
  HostSched host;
  uint64_t steal_ticks = 0, total_ticks = 0;  // /proc/stat's, when known
  bool have_ticks = false;
  int64_t wall_ns = 0;

  // Now, on the calling thread, with the /proc/stat ticks and time of `cpu` (taken beside it).
  static NoiseSnapshot take(const CpuSnapshot& cpu);
};
HostNoise noise_between(const NoiseSnapshot& start, const NoiseSnapshot& end);

// The documented thresholds (README, "Host noise"), chosen on a 2-CPU VM shared with other
// builds (load average 15-19), client and server pinned to CPUs 0 and 1. Shielded from that
// load (SCHED_RR), tcp_lat, udp_lat, tcp_bw, udp_bw and --poll tcp_lat waited for a CPU 0-4%
// of the run and were preempted at most 10 times a second (0.05% of operations); beside a CPU
// hog on the client's CPU they waited 33-100%; unshielded under that load, 11-94% with
// latencies 3-100 times the shielded ones. A ping-pong whose two sides share one CPU waits
// ~12% for its own peer, so the line sits at 20%.
struct NoiseThresholds {
  double wait_share = 0.20;       // measuring thread waited for a CPU > 20% of its run
  double preempted_share = 0.01;  // preempted on > 1% of operations ...
  uint64_t preempted_min = 50;    // ... and at least this many times
  double preempted_per_s = 500;   // or > 500 preemptions a second (bandwidth loops)
  double steal_pct = 5;           // hypervisor steal > 5% of the host's CPU time
  double frequency_ratio = 1.25;  // CPU frequency moved by more than 25% over the run
};

// Fills noise.causes from its figures. `side` names it in the sentences ("client").
void judge_host_noise(HostNoise& noise, const NoiseThresholds& limits = NoiseThresholds{});

// One warning line for a noisy side: "warning: server's measuring thread was preempted 1,234
// times (3.1% of samples) ...; results are not trustworthy". Empty when the side is quiet.
std::string host_noise_warning(const HostNoise& noise, const std::string& side);

}  // namespace fabperf
