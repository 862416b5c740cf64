// The coordinator's steps: one test run by many pairs at once over the fleet, the ranks behind
// a failure checked for life before a link is blamed, and the answers recorded.
#include <fmt/format.h>

#include <algorithm>

#include "cluster/coordinator.h"

namespace fabperf::cluster {

void Coordinator::note(size_t test, const std::optional<double>& value) {
  // A cheap running count for the progress line; the verdicts are drawn at the end.
  Histogram& h = running_[test];
  if (!value) {
    ++suspects_so_far_;
    return;
  }
  uint64_t v = static_cast<uint64_t>(std::max(0.0, *value));
  // The median read again now and then: reading it costs a walk of the histogram.
  uint64_t n = h.count();
  if (n >= 8 && (n < 64 || n % 1024 == 0)) {
    running_median_[test] = static_cast<double>(h.value_at_percentile(50));
  }
  if (n >= 8) {
    double median = running_median_[test];
    bool lower = run_.tests[test].figure.better == Better::kLower;
    if (lower ? *value > median * run_.tol.lat_ratio : *value < median * run_.tol.bw_ratio) {
      ++suspects_so_far_;
    }
  }
  h.record(v);
}

void Coordinator::run_step(size_t test, const std::vector<Pair>& pairs, double time_s,
                           bool retest) {
  std::vector<StepRun> runs;
  runs.reserve(pairs.size());
  const uint64_t stamp = ++step_stamp_;
  for (const Pair& p : pairs) {
    uint64_t& busy = busy_[static_cast<size_t>(p.client)];
    if (!alive(p.client) || !alive(p.server) || busy == stamp) continue;
    busy = stamp;
    StepRun run;
    run.pair = p;
    runs.push_back(run);
  }
  if (runs.empty()) return;
  StepRequest step;
  step.test = test;
  step.name = config_.opts->runs[test].spec->name;
  step.figure = run_.tests[test].figure.kind;
  step.time_s = time_s;
  step.timeout_s = config_.opts->timeout_s;
  step.alone = retest;
  int64_t started = fleet_.now_ns();
  step.deadline_ns = std::min(started + static_cast<int64_t>(step_wait(time_s) * 1e9), end_ns_);
  fleet_.run_step(step, runs, *this);
  run_.measurements += runs.size();
  bool all_answered =
      std::all_of(runs.begin(), runs.end(), [](const StepRun& r) { return r.answered; });
  if (all_answered && time_s > 0) {
    double took = static_cast<double>(fleet_.now_ns() - started) / 1e9;
    overhead_s_ = 0.7 * overhead_s_ + 0.3 * std::max(0.0, took - time_s);
  }
  std::vector<int> check;
  for (const StepRun& run : runs) {
    if (!run.value) {
      check.push_back(run.pair.client);
      check.push_back(run.pair.server);
    }
  }
  if (!check.empty()) fleet_.check_alive(check, *this);
  record(test, runs, retest);
}

void Coordinator::record(size_t test, const std::vector<StepRun>& runs, bool retest) {
  TestColumn& column = run_.tests[test];
  for (const StepRun& run : runs) {
    int a = run.pair.client, b = run.pair.server;
    if (!alive(a) || !alive(b)) continue;  // the rank is the story, not the link
    if (run.value && run.error.empty()) {
      if (retest) {
        column.matrix.set_retest(a, b, *run.value);
      } else {
        column.matrix.record(a, b, *run.value, column.figure.better);
        note(test, run.value);
      }
      column.matrix.set_noisy(a, b, run.noisy);  // a quiet retest clears it
    } else if (!retest && !stopping()) {
      column.matrix.fail(a, b, run.error);
      note(test, std::nullopt);
    }
  }
}

}  // namespace fabperf::cluster
