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

int cpus_allowed() { return static_cast<int>(cpus_allowed_set().size()); }

CpuSet cpus_allowed_set() {
  CpuSet out;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) out.insert(c);
    }
  }
  if (out.empty()) {
    for (int c = 0; c < cpus_online(); ++c) out.insert(c);
  }
  return out;
}

std::string cpu_list_text(const CpuSet& cpus) {
  std::string out;
  for (auto it = cpus.begin(); it != cpus.end();) {
    int first = *it, last = *it;
    for (++it; it != cpus.end() && *it == last + 1; ++it) last = *it;
    if (!out.empty()) out += ",";
    out += std::to_string(first);
    if (last != first) out += "-" + std::to_string(last);
  }
  return out;
}

CpuSet parse_cpu_list(std::string_view text) {
  constexpr int kMaxCpu = 65535;
  CpuSet out;
  auto number = [&](size_t& i, int* v) {
    size_t start = i;
    long n = 0;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9' && i - start < 6) {
      n = n * 10 + (text[i++] - '0');
    }
    *v = static_cast<int>(n);
    return i > start && n <= kMaxCpu;
  };
  size_t i = 0;
  while (i < text.size()) {
    int first = 0, last = 0;
    if (!number(i, &first)) return {};
    last = first;
    if (i < text.size() && text[i] == '-') {
      ++i;
      if (!number(i, &last) || last < first) return {};
    }
    for (int c = first; c <= last; ++c) out.insert(c);
    if (i < text.size() && text[i++] != ',') return {};
    if (i == text.size() && text.back() == ',') return {};
  }
  return out;
}

std::string poller_warning(const TestSpec& spec, const RunOptions& loc, const RunOptions& rem,
                           bool same_host, const CpuSet& loc_allowed, const CpuSet& rem_allowed) {
  if (spec.kind == TestKind::kMisc) return "";
  const int online = cpus_online();
  const int loc_threads = measuring_threads(spec, loc);
  const int rem_threads = measuring_threads(spec, rem);
  const int loc_pollers = loc.cq_poll ? loc_threads : 0;
  const int rem_pollers = rem.cq_poll ? rem_threads : 0;
  // What each side's pollers may use: their pinned CPUs, else every CPU that side may use.
  const bool rem_said = !rem_allowed.empty();
  CpuSet loc_cpus = pinned(loc, loc_threads, online);
  CpuSet rem_cpus = pinned(rem, rem_threads, online);
  const bool rem_pinned = !rem_cpus.empty();
  if (loc_cpus.empty()) loc_cpus = loc_allowed;
  if (rem_cpus.empty()) rem_cpus = rem_said ? rem_allowed : loc_allowed;
  std::string pollers, cpus;
  if (same_host && loc_pollers > 0 && rem_pollers > 0) {
    CpuSet both = loc_cpus;
    both.insert(rem_cpus.begin(), rem_cpus.end());
    if (static_cast<size_t>(loc_pollers + rem_pollers) <= both.size()) return "";
    pollers = std::to_string(loc_pollers + rem_pollers) + " busy-polling threads (client " +
              std::to_string(loc_pollers) + ", server " + std::to_string(rem_pollers) + ")";
    cpus = cpus_text(both.size());
  } else if (loc_pollers > 0 && static_cast<size_t>(loc_pollers) > loc_cpus.size()) {
    pollers = std::to_string(loc_pollers) + " busy-polling client threads";
    cpus = cpus_text(loc_cpus.size());
  } else if (!same_host && rem_pollers > 0 && (rem_pinned || rem_said) &&
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
