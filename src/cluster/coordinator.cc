// The coordinator's connections, rounds, liveness checks and retests.
#include "cluster/coordinator.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <cmath>
#include <thread>
#include <unordered_map>

#include "cluster/agent_protocol.h"
#include "cluster/progress.h"
#include "core/clock.h"

namespace fabperf::cluster {

namespace {

constexpr double kMinPairTime = 0.05;  // --budget never shortens -t below this
constexpr size_t kConnectThreads = 32;

double seconds_since(int64_t ns) { return static_cast<double>(now_ns() - ns) / 1e9; }

}  // namespace

Coordinator::Coordinator(CoordinatorConfig config, MatrixRun& run, const Schedule& schedule)
    : config_(std::move(config)),
      run_(run),
      schedule_(schedule),
      links_(static_cast<size_t>(run.size())),
      progress_(config_.progress, config_.progress_terminal),
      running_(run.tests.size()) {
  const MatrixOptions& o = *config_.opts;
  double planned;
  if (o.budget_s > 0) {
    // Leave time to end the agents and write the reports within the budget.
    planned = o.budget_s - std::min(3.0, 0.1 * o.budget_s);
  } else {
    double steps = static_cast<double>(schedule_.rounds() * run.tests.size() + o.retest);
    planned =
        o.start_timeout_s + steps * step_wait(o.time_given || o.count == 0 ? o.time_s : 0) + 60;
  }
  end_ns_ = config_.started_ns + static_cast<int64_t>(planned * 1e9);
}

Coordinator::~Coordinator() = default;

double Coordinator::left() const { return static_cast<double>(end_ns_ - now_ns()) / 1e9; }

double Coordinator::step_wait(double time_s) const {
  double timeout = config_.opts->timeout_s;
  // A run has -t, then its own deadlines (each -to) to connect, set up and hand in results.
  return time_s > 0 ? time_s + 2 * timeout + 1 : 4 * timeout + 10;
}

int Coordinator::dead_count() const {
  return static_cast<int>(std::count_if(run_.ranks.begin(), run_.ranks.end(),
                                        [](const RankStatus& r) { return !r.alive; }));
}

void Coordinator::mark_dead(int rank, const std::string& reason, bool linger) {
  RankStatus& r = run_.ranks[static_cast<size_t>(rank)];
  links_[static_cast<size_t>(rank)].linger = linger;
  if (!r.alive) return;
  r.alive = false;
  r.reason = reason;
  progress_.line(fmt::format("matrix: rank {} ({}) unreachable: {}", rank, r.host, reason));
}

void Coordinator::connect(const std::vector<Result<RankCard>>& cards) {
  const std::string& mine = cards[0].ok() ? cards[0]->tests : "";
  std::vector<std::string> failures(cards.size());
  std::atomic<size_t> next{0};
  CoordinatorHello hello{config_.job, std::max(1.0, left())};
  auto work = [&] {
    for (size_t r = next++; r < cards.size(); r = next++) {
      if (!cards[r].ok() || !cards[r]->error.empty()) continue;
      auto ch = connect_agent(*cards[r], hello, config_.opts->bind, config_.opts->timeout_s);
      if (ch.ok()) {
        links_[r].ch = std::move(*ch);
      } else {
        failures[r] = fmt::format("cannot reach its agent at {}:{}: {}", cards[r]->addr,
                                  cards[r]->agent_port, ch.status().message());
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t i = 0; i < std::min(kConnectThreads, cards.size()); ++i) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  for (size_t r = 0; r < cards.size(); ++r) {
    int rank = static_cast<int>(r);
    if (!cards[r].ok()) {
      mark_dead(rank, cards[r].status().message(), true);
    } else if (!cards[r]->error.empty()) {
      mark_dead(rank, cards[r]->error, false);  // it ends by itself
    } else if (!failures[r].empty()) {
      mark_dead(rank, failures[r], true);
    } else if (cards[r]->tests != mine) {
      mark_dead(rank, "it was started with other tests or test options than rank 0", false);
    }
  }
}

bool Coordinator::should_stop(std::string* why) const {
  if (config_.stop != nullptr && config_.stop->load()) {
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
  size_t rounds = schedule_.rounds();
  run_.rounds_planned = rounds;
  run_.time_per_pair_s = pair_time(rounds);
  if (run_.time_per_pair_s < config_.opts->time_s && run_.time_per_pair_s > 0) {
    progress_.line(
        fmt::format("matrix: --budget {:g} s: -t shortened to {:.3g} s per test "
                    "and pair",
                    config_.opts->budget_s, run_.time_per_pair_s));
  }
  int64_t rounds_started = now_ns();
  for (size_t k = 0; k < rounds; ++k) {
    std::string why;
    if (should_stop(&why)) {
      run_.stopped = fmt::format("{} after round {} of {}", why, k, rounds);
      break;
    }
    double t = pair_time(rounds - k);
    if (t > 0) run_.time_per_pair_s = std::min(run_.time_per_pair_s, t);
    std::vector<Pair> pairs = schedule_.round(k);
    for (size_t test = 0; test < run_.tests.size(); ++test) run_step(test, pairs, t, false);
    if (config_.stop != nullptr && config_.stop->load()) {
      run_.stopped =
          fmt::format("interrupted (SIGINT or SIGTERM) in round {} of {}", k + 1, rounds);
      break;
    }
    run_.rounds_done = k + 1;
    progress_.round(k + 1, rounds, seconds_since(config_.started_ns), seconds_since(rounds_started),
                    suspects_so_far_, dead_count());
  }
  progress_.done();
  retests();
}

void Coordinator::retests() {
  if (config_.opts->retest == 0) return;
  run_.judge();
  std::vector<bool> up(links_.size());
  for (size_t r = 0; r < links_.size(); ++r) up[r] = alive(static_cast<int>(r));
  std::vector<RetestCandidate> all = retest_candidates(run_, up, config_.opts->retest);
  run_.retests_planned = all.size();
  if (all.empty()) return;
  progress_.line(fmt::format("matrix: re-measuring {} suspect link{} alone", all.size(),
                             all.size() == 1 ? "" : "s"));
  for (const RetestCandidate& c : all) {
    std::string why;
    if (should_stop(&why)) {
      if (run_.stopped.empty()) {
        run_.stopped = fmt::format("{} after {} of {} retests", why, run_.retests_done, all.size());
      }
      break;
    }
    run_step(c.test, {{c.suspect.client, c.suspect.server}}, pair_time(1), true);
    ++run_.retests_done;
  }
}

bool Coordinator::finish() {
  std::vector<int> told;
  for (size_t r = 0; r < links_.size(); ++r) {
    if (!links_[r].ch) continue;
    if (links_[r].ch->send(kAgentQuit, nlohmann::json::object(), 2).ok()) {
      told.push_back(static_cast<int>(r));
    }
  }
  // Collect skips ranks already judged dead, but those that can still say BYE should be heard.
  std::vector<pollfd> fds;
  std::vector<int> waiting = told;
  Deadline deadline = Deadline::After(3);
  while (!waiting.empty() && !deadline.expired()) {
    fds.clear();
    for (int r : waiting) fds.push_back({links_[static_cast<size_t>(r)].ch->fd(), POLLIN, 0});
    if (poll(fds.data(), fds.size(), std::min(deadline.remaining_ms(), 200)) <= 0) continue;
    std::vector<int> still;
    for (size_t i = 0; i < waiting.size(); ++i) {
      int r = waiting[i];
      if (fds[i].revents == 0) {
        still.push_back(r);
        continue;
      }
      auto frame = links_[static_cast<size_t>(r)].ch->recv(1);
      if (frame.ok() && frame->type != kAgentBye) {
        still.push_back(r);  // a late answer of an earlier step
        continue;
      }
      // BYE, or the connection closed: that rank is ending either way.
      links_[static_cast<size_t>(r)].linger = false;
    }
    waiting.swap(still);
  }
  bool all_ended = true;
  for (size_t r = 0; r < links_.size(); ++r) {
    if (links_[r].linger && (links_[r].ch || !run_.ranks[r].alive)) all_ended = false;
  }
  links_.clear();
  return all_ended;
}

}  // namespace fabperf::cluster
