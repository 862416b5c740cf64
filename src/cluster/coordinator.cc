// The coordinator's rounds, budget and retests.
#include "cluster/coordinator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "cluster/progress.h"
#include "cluster/retest.h"

namespace fabperf::cluster {

namespace {

constexpr double kMinPairTime = 0.05;   // --budget never shortens -t below this
constexpr size_t kProgressLines = 200;  // a long job prints about this many round lines

}  // namespace

Coordinator::Coordinator(CoordinatorConfig config, MatrixRun& run, RoundSource& rounds,
                         Fleet& fleet)
    : config_(std::move(config)),
      run_(run),
      rounds_(rounds),
      fleet_(fleet),
      progress_(config_.progress, config_.progress_terminal),
      running_(run.tests.size()),
      running_median_(run.tests.size(), 0.0),
      busy_(static_cast<size_t>(run.size()), 0) {
  const MatrixOptions& o = *config_.opts;
  double planned;
  if (o.budget_s > 0) {
    // Leave time to end the agents and write the reports within the budget.
    planned = o.budget_s - std::min(3.0, 0.1 * o.budget_s);
  } else {
    double steps = static_cast<double>(rounds_.rounds_left() * run.tests.size() + o.retest);
    planned =
        o.start_timeout_s + steps * step_wait(o.time_given || o.count == 0 ? o.time_s : 0) + 60;
  }
  end_ns_ = config_.started_ns + static_cast<int64_t>(planned * 1e9);
}

Coordinator::~Coordinator() = default;

double Coordinator::left() const { return static_cast<double>(end_ns_ - fleet_.now_ns()) / 1e9; }

double Coordinator::step_wait(double time_s) const {
  double timeout = config_.opts->timeout_s;
  // A run has -t, then its own deadlines (each -to) to connect, set up and hand in results.
  return time_s > 0 ? time_s + 2 * timeout + 1 : 4 * timeout + 10;
}

int Coordinator::dead_count() const {
  return static_cast<int>(std::count_if(run_.ranks.begin(), run_.ranks.end(),
                                        [](const RankStatus& r) { return !r.alive; }));
}

void Coordinator::lost(int rank, const std::string& reason, bool) {
  RankStatus& r = run_.ranks[static_cast<size_t>(rank)];
  if (!r.alive) return;
  r.alive = false;
  r.reason = reason;
  progress_.line(fmt::format("matrix: rank {} ({}) unreachable: {}", rank, r.host, reason));
}

void Coordinator::connect() { fleet_.connect(*this); }

bool Coordinator::should_stop(std::string* why) const {
  if (stopping()) {
    *why = "interrupted (SIGINT or SIGTERM)";
    return true;
  }
  if (run_.size() - dead_count() < 2) {
    *why = "fewer than 2 ranks left";
    return true;
  }
  if (config_.opts->budget_s > 0 && left() < pair_time(1) + overhead_s_) {
    *why = fmt::format("the budget of {:g} s ran out", config_.opts->budget_s);
    return true;
  }
  return false;
}

double Coordinator::pair_time(size_t rounds_left) const {
  const MatrixOptions& o = *config_.opts;
  if (!o.time_given && o.count > 0) return 0;  // -n counts each run
  if (o.budget_s <= 0) return o.time_s;
  double reserve =
      std::min(0.2 * o.budget_s, static_cast<double>(o.retest) * (o.time_s + overhead_s_));
  double steps = static_cast<double>(std::max<size_t>(1, rounds_left) * run_.tests.size());
  double fit = (left() - reserve) / steps - overhead_s_;
  return std::clamp(fit, std::min(kMinPairTime, o.time_s), o.time_s);
}

void Coordinator::measure() {
  run_.rounds_planned = rounds_.rounds_left();
  run_.time_per_pair_s = pair_time(run_.rounds_planned);
  if (run_.time_per_pair_s < config_.opts->time_s && run_.time_per_pair_s > 0) {
    progress_.line(
        fmt::format("matrix: --budget {:g} s: -t shortened to {:.3g} s per test "
                    "and pair",
                    config_.opts->budget_s, run_.time_per_pair_s));
  }
  int64_t rounds_started = fleet_.now_ns();
  auto since = [&](int64_t ns) { return static_cast<double>(fleet_.now_ns() - ns) / 1e9; };
  size_t k = 0, stride = 1;
  while (true) {
    std::optional<PlannedRound> round = rounds_.next(run_);
    if (!round) {
      run_.rounds_planned = k;  // the plan has ended: its guesses of more rounds are void
      break;
    }
    size_t total = k + 1 + rounds_.rounds_left();
    std::string why;
    if (should_stop(&why)) {
      run_.stopped = fmt::format("{} after round {} of {}", why, k, total);
      break;
    }
    double t = pair_time(rounds_.rounds_left() + 1);
    if (t > 0 && !round->alone) run_.time_per_pair_s = std::min(run_.time_per_pair_s, t);
    if (round->tests.empty()) {
      for (size_t test = 0; test < run_.tests.size(); ++test) round->tests.push_back(test);
    }
    for (size_t test : round->tests) run_step(test, round->pairs, t, round->alone);
    if (stopping()) {
      run_.stopped = fmt::format("interrupted (SIGINT or SIGTERM) in round {} of {}", k + 1, total);
      break;
    }
    run_.rounds_done = ++k;
    run_.rounds_planned = k + rounds_.rounds_left();
    // A job of thousands of rounds prints a line every so many, not one each.
    if (k == 1) stride = std::max<size_t>(1, run_.rounds_planned / kProgressLines);
    if (k % stride == 0 || k == run_.rounds_planned) {
      progress_.round(k, run_.rounds_planned, since(config_.started_ns), since(rounds_started),
                      suspects_so_far_, dead_count());
    }
  }
  progress_.done();
  if (!rounds_.retests_suspects()) retests();
}

void Coordinator::retests() {
  if (config_.opts->retest == 0) return;
  const Topology* topo =
      run_.topology && run_.topology->has_levels() ? run_.topology.get() : nullptr;
  // With a topology, waves: a link still slow alone, or one that flapped in some of its
  // passes, is measured alone again until its runs decide it (retest.h); without one, the
  // worst suspects once.
  const size_t waves = topo != nullptr ? kRetestWaves : 1;
  for (size_t wave = 0; wave < waves; ++wave) {
    run_.judge(MatrixRun::Judge::kForRetests);
    std::vector<RetestPair> all = retest_candidates(run_, &run_.fit, config_.opts->retest);
    if (all.empty()) return;
    run_.retests_planned += all.size();
    std::vector<PlannedRound> rounds = pack_alone(all, topo);
    progress_.line(fmt::format("matrix: re-measuring {} suspect link{} alone{}{}", all.size(),
                               all.size() == 1 ? "" : "s",
                               topo != nullptr && rounds.size() < all.size()
                                   ? fmt::format(" in {} rounds (pairs that share no switch or "
                                                 "link together)",
                                                 rounds.size())
                                   : "",
                               wave > 0 ? fmt::format(" (again: {} of {})", wave + 1, waves) : ""));
    for (const PlannedRound& round : rounds) {
      std::string why;
      if (should_stop(&why)) {
        if (run_.stopped.empty()) {
          run_.stopped = fmt::format("{} after {} of {} retests", why, run_.retests_done,
                                     run_.retests_planned);
        }
        return;
      }
      run_step(round.tests.front(), round.pairs, pair_time(1), true);
      run_.retests_done += round.pairs.size();
    }
  }
}

}  // namespace fabperf::cluster
