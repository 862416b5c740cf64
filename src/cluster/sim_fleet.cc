// A simulated step: each pair's figure drawn from the model, shared links divided among the
// pairs that cross them, dead hosts silent.
#include "cluster/sim_fleet.h"

#include <fmt/format.h>

#include <algorithm>

namespace fabperf::cluster {

namespace {

// A -n run's simulated length: the model has no message counts.
constexpr double kCountedRunS = 0.5;

}  // namespace

std::vector<double> SimFleet::shares(const std::vector<StepRun>& runs) {
  std::vector<double> out(runs.size(), 0.0);
  const ModelContention& c = model_.contention();
  if (c.local_link_Bps <= 0 && c.global_link_Bps <= 0 && c.uplink_Bps <= 0) return out;
  const Topology& topo = model_.topology();
  ElementId path[kMaxPathElements];
  flows_.clear();
  for (const StepRun& run : runs) {
    if (model_.dead(run.pair.client) || model_.dead(run.pair.server)) continue;
    size_t k = topo.path(run.pair.client, run.pair.server, path);
    for (size_t i = 0; i < k; ++i) {
      if (model_.capacity(path[i]) > 0) ++flows_[path[i]];
    }
  }
  for (size_t r = 0; r < runs.size(); ++r) {
    size_t k = topo.path(runs[r].pair.client, runs[r].pair.server, path);
    for (size_t i = 0; i < k; ++i) {
      double cap = model_.capacity(path[i]);
      if (cap <= 0) continue;
      double share = cap / std::max<uint32_t>(1, flows_[path[i]]);
      out[r] = out[r] > 0 ? std::min(out[r], share) : share;
    }
  }
  return out;
}

void SimFleet::run_step(const StepRequest& step, std::vector<StepRun>& runs, FleetEvents& events) {
  ++steps_;
  const int64_t started = clock_ns_;
  std::vector<double> cap;
  if (step.figure != FigureKind::kLatencyP50) cap = shares(runs);
  bool late = false, silent_server = false;
  for (size_t i = 0; i < runs.size(); ++i) {
    StepRun& run = runs[i];
    const int a = run.pair.client, b = run.pair.server;
    if (model_.dead(a)) {
      late = true;  // its agent never answers
      continue;
    }
    run.answered = true;
    if (model_.dead(b)) {
      silent_server = true;
      run.error = fmt::format("rank {} ({}): no answer from its server within {:g} s", b,
                              model_.host_names()[static_cast<size_t>(b)], step.timeout_s);
      continue;
    }
    uint64_t draw = steps_ * 0x9e3779b97f4a7c15ull +
                    static_cast<uint64_t>(a) * 0xbf58476d1ce4e5b9ull + static_cast<uint64_t>(b);
    run.value = model_.measure(step.figure, a, b, draw, cap.empty() ? 0 : cap[i]);
  }
  double length = step.time_s > 0 ? step.time_s : kCountedRunS;
  if (silent_server) length = std::max(length, step.timeout_s);
  advance(length + model_.step_overhead_s());
  if (!late) return;
  // The real coordinator waits for the step's deadline, cancels, and waits -to + 3 s more.
  clock_ns_ = std::max(clock_ns_, step.deadline_ns);
  std::string error =
      fmt::format("no result within {:g} s", static_cast<double>(clock_ns_ - started) / 1e9);
  advance(step.timeout_s + 3);
  for (StepRun& run : runs) {
    if (run.answered) continue;
    run.error = error;
    if (!events.stopping()) {
      events.lost(run.pair.client, "its measurement did not end when cancelled (hung?)", true);
    }
  }
}

void SimFleet::check_alive(const std::vector<int>& ranks, FleetEvents& events) {
  bool silent = false;
  for (int r : ranks) {
    if (!events.alive(r) || !model_.dead(r)) continue;
    silent = true;
    events.lost(r, fmt::format("stopped answering rank 0 for {:g} s (hung?)", timeout_s_), true);
  }
  advance(silent ? timeout_s_ : 0.001);
}

}  // namespace fabperf::cluster
