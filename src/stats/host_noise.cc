// Host noise: reading the scheduler's counters, the figures over a run, and the verdict.
#include "stats/host_noise.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "core/json_numbers.h"

namespace fabperf {

namespace {

// A small /proc or sysfs file, whole (these are one line); "" when it cannot be read.
std::string read_small(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  char buf[512];
  size_t len = 0;
  while (len < sizeof buf) {
    const ssize_t n = read(fd, buf + len, sizeof buf - len);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    len += static_cast<size_t>(n);
  }
  close(fd);
  return std::string(buf, len);
}

template <typename T>
bool number_at(std::string_view text, size_t* pos, T* out) {
  while (*pos < text.size() && (text[*pos] == ' ' || text[*pos] == '\t')) ++*pos;
  const char* first = text.data() + *pos;
  const char* last = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(first, last, *out);
  if (ec != std::errc() || ptr == first) return false;
  *pos = static_cast<size_t>(ptr - text.data());
  return true;
}

// "1,234" as the text output writes counts.
std::string count_text(uint64_t v) {
  std::string digits = std::to_string(v), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string percent_text(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, share * 100 < 10 ? "%.1f%%" : "%.0f%%", share * 100);
  return buf;
}

}  // namespace

bool parse_schedstat(std::string_view text, int64_t* wait_ns) {
  // "on-CPU ns, waiting ns, timeslices"
  size_t pos = 0;
  uint64_t run = 0, wait = 0;
  if (!number_at(text, &pos, &run) || !number_at(text, &pos, &wait)) return false;
  *wait_ns = static_cast<int64_t>(std::min<uint64_t>(wait, INT64_MAX));
  return true;
}

bool parse_cpu_pressure(std::string_view text, int64_t* some_total_us) {
  // "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345"
  if (text.rfind("some ", 0) != 0) return false;
  const std::string_view line = text.substr(0, text.find('\n'));
  const size_t at = line.find("total=");
  if (at == std::string_view::npos) return false;
  size_t pos = at + 6;
  uint64_t total = 0;
  if (!number_at(line, &pos, &total)) return false;
  *some_total_us = static_cast<int64_t>(std::min<uint64_t>(total, INT64_MAX));
  return true;
}

bool parse_loadavg(std::string_view text, double* load1, uint32_t* runnable) {
  // "3.33 1.22 0.47 10/144 11955"
  size_t pos = 0;
  double one = 0, five = 0, fifteen = 0;
  uint32_t running = 0;
  if (!number_at(text, &pos, &one) || !number_at(text, &pos, &five) ||
      !number_at(text, &pos, &fifteen) || !number_at(text, &pos, &running)) {
    return false;
  }
  if (pos >= text.size() || text[pos] != '/') return false;
  *load1 = one;
  *runnable = running;
  return true;
}

ThreadSched ThreadSched::of_this_thread() {
  ThreadSched t;
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) == 0) {
    t.voluntary = static_cast<uint64_t>(ru.ru_nvcsw);
    t.involuntary = static_cast<uint64_t>(ru.ru_nivcsw);
    t.user_ns = static_cast<int64_t>(ru.ru_utime.tv_sec) * 1000000000 +
                static_cast<int64_t>(ru.ru_utime.tv_usec) * 1000;
    t.sys_ns = static_cast<int64_t>(ru.ru_stime.tv_sec) * 1000000000 +
               static_cast<int64_t>(ru.ru_stime.tv_usec) * 1000;
  }
  int64_t wait = 0;
  if (parse_schedstat(read_small("/proc/thread-self/schedstat"), &wait)) t.wait_ns = wait;
  return t;
}

HostSched HostSched::take(const std::string& cpu_root) {
  HostSched h;
  int64_t pressure = 0;
  if (parse_cpu_pressure(read_small("/proc/pressure/cpu"), &pressure)) h.pressure_us = pressure;
  parse_loadavg(read_small("/proc/loadavg"), &h.load1, &h.runnable);
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  h.cpus_online = online > 0 ? static_cast<uint32_t>(online) : 0;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    h.cpus_allowed = static_cast<uint32_t>(CPU_COUNT(&set));
  }
  // cpufreq, where the kernel exposes it (not in most VMs): the measuring thread's own CPU.
  if (const int cpu = sched_getcpu(); cpu >= 0) {
    const std::string path = cpu_root + "/cpu" + std::to_string(cpu) + "/cpufreq/scaling_cur_freq";
    const std::string text = read_small(path.c_str());
    size_t pos = 0;
    uint64_t khz = 0;
    if (!text.empty() && number_at(std::string_view(text), &pos, &khz) && khz > 0) {
      h.freq_min_khz = h.freq_max_khz = khz;
    }
  }
  return h;
}

NoiseSnapshot NoiseSnapshot::take(const CpuSnapshot& cpu) {
  NoiseSnapshot s;
  s.thread = ThreadSched::of_this_thread();
  s.host = HostSched::take();
  s.have_ticks = cpu.have_ticks;
  const ProcStatTicks& t = cpu.ticks;
  s.steal_ticks = t.steal;
  s.total_ticks = t.user + t.nice + t.system + t.idle + t.iowait + t.irq + t.softirq + t.steal;
  s.wall_ns = cpu.wall_ns;
  return s;
}

HostNoise noise_between(const NoiseSnapshot& a, const NoiseSnapshot& b) {
  HostNoise n;
  n.measured = true;
  const int64_t wall = b.wall_ns - a.wall_ns;
  n.real_s = wall > 0 ? static_cast<double>(wall) * 1e-9 : 0;
  n.involuntary = b.thread.involuntary >= a.thread.involuntary
                      ? b.thread.involuntary - a.thread.involuntary
                      : 0;
  n.voluntary =
      b.thread.voluntary >= a.thread.voluntary ? b.thread.voluntary - a.thread.voluntary : 0;
  if (a.thread.wait_ns >= 0 && b.thread.wait_ns >= a.thread.wait_ns) {
    n.wait_s = static_cast<double>(b.thread.wait_ns - a.thread.wait_ns) * 1e-9;
  }
  if (a.have_ticks && b.have_ticks && b.total_ticks > a.total_ticks) {
    const double steal =
        b.steal_ticks >= a.steal_ticks ? static_cast<double>(b.steal_ticks - a.steal_ticks) : 0;
    n.steal_pct = finite_or_zero(steal * 100 / static_cast<double>(b.total_ticks - a.total_ticks));
  }
  if (a.host.pressure_us >= 0 && b.host.pressure_us >= a.host.pressure_us && n.real_s > 0) {
    n.pressure_pct = finite_or_zero(static_cast<double>(b.host.pressure_us - a.host.pressure_us) *
                                    1e-6 / n.real_s * 100);
    n.pressure_pct = std::min(n.pressure_pct, 100.0);
  }
  // The reader itself is one of the running tasks.
  n.runnable = std::max(a.host.runnable, b.host.runnable);
  n.load1 = b.host.load1;
  n.cpus_online = b.host.cpus_online;
  n.cpus_allowed = a.host.cpus_allowed;
  const uint64_t lo[] = {a.host.freq_min_khz, b.host.freq_min_khz};
  for (uint64_t v : lo) {
    if (v > 0) n.freq_min_khz = n.freq_min_khz == 0 ? v : std::min(n.freq_min_khz, v);
  }
  n.freq_max_khz = std::max(a.host.freq_max_khz, b.host.freq_max_khz);
  return n;
}

double HostNoise::wait_share() const {
  if (wait_s < 0 || real_s <= 0) return -1;
  return finite_or_zero(wait_s / (real_s * std::max<uint32_t>(threads, 1)));
}

double HostNoise::preempted_share() const {
  return operations > 0 ? static_cast<double>(involuntary) / static_cast<double>(operations) : 0;
}

void judge_host_noise(HostNoise& n, const NoiseThresholds& limits) {
  n.causes.clear();
  if (!n.measured || n.real_s <= 0) return;
  const double wait = n.wait_share();
  const double share = n.preempted_share();
  const double per_s = static_cast<double>(n.involuntary) / n.real_s;
  // The measuring thread taken off its CPU: the figures include those waits.
  const bool preempted =
      (n.involuntary >= limits.preempted_min && share > limits.preempted_share) ||
      per_s > limits.preempted_per_s;
  if (preempted) {
    std::string text = "was preempted " + count_text(n.involuntary) + " times";
    if (n.operations > 0) {
      text += " (" + percent_text(share) +
              (n.operations_are_samples ? " of samples)" : " of messages)");
    }
    n.causes.push_back({"preempted", text});
  }
  if (wait > limits.wait_share) {
    n.causes.push_back({"cpu_wait", "waited for a CPU " + percent_text(wait) + " of the run"});
  }
  if (n.steal_pct > limits.steal_pct) {
    n.causes.push_back({"steal", "lost " + percent_text(n.steal_pct / 100) +
                                     " of the host's CPU time to the hypervisor (steal)"});
  }
  if (n.pollers > 0 && n.cpus_allowed > 0 && n.pollers > n.cpus_allowed) {
    n.causes.push_back({"pollers", "ran " + std::to_string(n.pollers) +
                                       " busy-polling threads on " +
                                       std::to_string(n.cpus_allowed) + " CPU(s)"});
  }
  if (n.freq_min_khz > 0 && static_cast<double>(n.freq_max_khz) >
                                static_cast<double>(n.freq_min_khz) * limits.frequency_ratio) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "ran while the CPU frequency moved between %.2f and %.2f GHz",
                  static_cast<double>(n.freq_min_khz) * 1e-6,
                  static_cast<double>(n.freq_max_khz) * 1e-6);
    n.causes.push_back({"frequency", buf});
  }
}

std::string host_noise_warning(const HostNoise& n, const std::string& side) {
  if (!n.noisy()) return "";
  std::string text;
  for (size_t i = 0; i < n.causes.size(); ++i) {
    if (i > 0) text += i + 1 == n.causes.size() ? " and " : ", ";
    text += n.causes[i].text;
  }
  // The host's load beside it: the likely reason, when the run queue was longer than the CPUs.
  if (n.cpus_online > 0 && n.runnable > n.cpus_online) {
    text += " (host: " + std::to_string(n.runnable) + " runnable threads on " +
            std::to_string(n.cpus_online) + " CPUs)";
  }
  return "warning: " + side + "'s measuring thread " + text + "; results are not trustworthy";
}

nlohmann::json HostNoise::to_json() const {
  nlohmann::json j = {{"real_s", finite_or_zero(real_s)},
                      {"threads", threads},
                      {"involuntary_switches", involuntary},
                      {"voluntary_switches", voluntary},
                      {"operations", operations},
                      {"steal_pct", finite_or_zero(steal_pct)},
                      {"runnable", runnable},
                      {"load1", finite_or_zero(load1)},
                      {"cpus_online", cpus_online},
                      {"cpus_allowed", cpus_allowed},
                      {"pollers", pollers}};
  if (wait_s >= 0) {
    j["cpu_wait_s"] = finite_or_zero(wait_s);
    j["cpu_wait_share"] = finite_or_zero(wait_share());
  }
  if (pressure_pct >= 0) j["cpu_pressure_pct"] = finite_or_zero(pressure_pct);
  if (freq_min_khz > 0) {
    j["freq_min_khz"] = freq_min_khz;
    j["freq_max_khz"] = freq_max_khz;
  }
  nlohmann::json listed = nlohmann::json::array();
  for (const Cause& c : causes) listed.push_back({{"cause", c.key}, {"text", c.text}});
  // Written once judged (the client judges both sides); a raw record has no verdict yet.
  j["verdict"] = noisy() ? "noisy" : "quiet";
  j["causes"] = listed;
  return j;
}

HostNoise HostNoise::from_json(const nlohmann::json& j) {
  HostNoise n;
  if (!j.is_object()) return n;
  n.measured = true;
  auto num = [&j](const char* key, double fallback) {
    auto it = j.find(key);
    return it != j.end() && it->is_number() ? finite_or_zero(it->get<double>()) : fallback;
  };
  auto count = [&](const char* key) {
    const double v = num(key, 0);
    return v > 0 ? static_cast<uint64_t>(std::min(v, 1.8e19)) : uint64_t{0};
  };
  auto small = [&](const char* key) {
    return static_cast<uint32_t>(std::min<uint64_t>(count(key), 1u << 30));
  };
  n.real_s = num("real_s", 0);
  n.threads = std::max<uint32_t>(small("threads"), 1);
  n.involuntary = count("involuntary_switches");
  n.voluntary = count("voluntary_switches");
  n.operations = count("operations");
  n.steal_pct = num("steal_pct", 0);
  n.runnable = small("runnable");
  n.load1 = num("load1", 0);
  n.cpus_online = small("cpus_online");
  n.cpus_allowed = small("cpus_allowed");
  n.pollers = small("pollers");
  n.wait_s = num("cpu_wait_s", -1);
  n.pressure_pct = num("cpu_pressure_pct", -1);
  n.freq_min_khz = count("freq_min_khz");
  n.freq_max_khz = count("freq_max_khz");
  return n;
}

}  // namespace fabperf
