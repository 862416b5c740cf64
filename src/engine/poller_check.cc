// Busy-pollers against the CPUs they may use, before a run.
#include "engine/poller_check.h"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <set>

#include "engine/streams.h"

namespace fabperf {

namespace {

// The CPUs a side's measuring threads are pinned to (-ca N: thread i on N+i, wrapping at the
// CPUs online, as apply_cpu_affinity pins them); empty when they may run anywhere.
std::set<int> pinned(const RunOptions& side, int threads, int online) {
  std::set<int> cpus;
  const std::string& spec = side.cpu_affinity;
  if (spec.empty() || spec == "any" || spec.find_first_not_of("0123456789") != std::string::npos) {
    return cpus;
  }
  const int first = std::stoi(spec);
  for (int i = 0; i < threads; ++i) cpus.insert(online > 0 && i > 0 ? (first + i) % online : first);
  return cpus;
}

std::string cpus_text(size_t n) { return std::to_string(n) + (n == 1 ? " CPU" : " CPUs"); }

}  // namespace

int measuring_threads(const TestSpec& spec, const RunOptions& side) {
  if (spec.kind == TestKind::kBiBandwidth) return 2;
  if (spec.kind == TestKind::kBandwidth) return stream_count(side);
  return 1;
}

int cpus_online() {
  const long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? static_cast<int>(n) : 1;
}

int cpus_allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus_online();
  return std::max(1, CPU_COUNT(&set));
}

std::string poller_warning(const TestSpec& spec, const RunOptions& loc, const RunOptions& rem,
                           bool same_host, int allowed) {
  if (spec.kind == TestKind::kMisc) return "";
  const int online = cpus_online();
  const int loc_threads = measuring_threads(spec, loc);
  const int rem_threads = measuring_threads(spec, rem);
  const int loc_pollers = loc.cq_poll ? loc_threads : 0;
  const int rem_pollers = rem.cq_poll ? rem_threads : 0;
  const std::set<int> loc_cpus = pinned(loc, loc_threads, online);
  const std::set<int> rem_cpus = pinned(rem, rem_threads, online);
  // What each side's pollers may use: their pinned CPUs, else every CPU allowed here.
  auto room = [&](const std::set<int>& cpus) {
    return cpus.empty() ? static_cast<size_t>(allowed) : cpus.size();
  };
  std::string pollers, cpus;
  if (same_host && loc_pollers > 0 && rem_pollers > 0) {
    size_t shared;
    if (!loc_cpus.empty() && !rem_cpus.empty()) {
      std::set<int> both = loc_cpus;
      both.insert(rem_cpus.begin(), rem_cpus.end());
      shared = both.size();
    } else {
      shared = static_cast<size_t>(allowed);
    }
    if (static_cast<size_t>(loc_pollers + rem_pollers) <= shared) return "";
    pollers = std::to_string(loc_pollers + rem_pollers) + " busy-polling threads (client " +
              std::to_string(loc_pollers) + ", server " + std::to_string(rem_pollers) + ")";
    cpus = cpus_text(shared);
  } else if (loc_pollers > 0 && static_cast<size_t>(loc_pollers) > room(loc_cpus)) {
    pollers = std::to_string(loc_pollers) + " busy-polling client threads";
    cpus = cpus_text(room(loc_cpus));
  } else if (!same_host && rem_pollers > 0 && !rem_cpus.empty() &&
             static_cast<size_t>(rem_pollers) > rem_cpus.size()) {
    pollers = std::to_string(rem_pollers) + " busy-polling server threads";
    cpus = cpus_text(rem_cpus.size());
  } else {
    return "";
  }
  return "warning: " + pollers + " on " + cpus +
         ": each spins while the others wait for its CPU, so the figures measure the "
         "scheduler; results are not trustworthy (give each its own CPU with -lca/-rca, or "
         "leave out --poll)";
}

}  // namespace fabperf
