// Pinning threads to CPUs, and reading back where they may run.
#include "engine/affinity.h"

#include <pthread.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "core/units.h"

namespace fabperf {

namespace {

std::string cpu_set_text(const cpu_set_t& set) {
  std::string out;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &set)) continue;
    int last = cpu;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += ",";
    out += std::to_string(cpu);
    if (last > cpu) out += "-" + std::to_string(last);
    cpu = last;
  }
  return out;
}

// The CPUs online, as a set and as text ("0-1").
cpu_set_t online_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  for (long i = 0; i < n && i < CPU_SETSIZE; ++i) CPU_SET(static_cast<int>(i), &set);
  return set;
}

}  // namespace

int cpus_for_threads(const std::string& spec, int threads) {
  cpu_set_t online = online_cpus();
  if (spec == "any") return CPU_COUNT(&online);
  if (!spec.empty()) return std::max(1, std::min(threads, CPU_COUNT(&online)));
  cpu_set_t mine;
  CPU_ZERO(&mine);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) return threads;
  return CPU_COUNT(&mine);
}

Status apply_cpu_affinity(const std::string& spec, int offset) {
  if (spec.empty()) return Status::success();
  cpu_set_t online = online_cpus();
  cpu_set_t set;
  CPU_ZERO(&set);
  if (spec == "any") {
    set = online;
  } else {
    auto cpu = parse_int(spec, 0, CPU_SETSIZE - 1);
    if (!cpu.ok()) {
      return Status::usage("-ca: bad processor affinity \"" + spec + "\" (a CPU number or any)");
    }
    int count = CPU_COUNT(&online);
    int chosen = static_cast<int>(*cpu);
    if (offset > 0 && count > 0) chosen = (chosen + offset) % count;
    if (!CPU_ISSET(chosen, &online)) {
      return Status::usage("-ca " + spec + ": this host has no CPU " + std::to_string(chosen) +
                           " (its CPUs: " + cpu_set_text(online) + ")");
    }
    CPU_SET(chosen, &set);
  }
  int rc = pthread_setaffinity_np(pthread_self(), sizeof set, &set);
  if (rc != 0) {
    return Status::failed("cannot set processor affinity to " + cpu_set_text(set) + ": " +
                          std::strerror(rc));
  }
  return Status::success();
}

std::string allowed_cpus_text() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return "";
  return cpu_set_text(set);
}

}  // namespace fabperf
