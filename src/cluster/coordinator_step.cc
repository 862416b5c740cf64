// The coordinator's steps: one test run by many pairs at once, each answer awaited with a
// deadline, and the ranks behind a failure checked for life before a link is blamed.
#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <unordered_map>

#include "cluster/agent_protocol.h"
#include "cluster/coordinator.h"
#include "core/clock.h"

namespace fabperf::cluster {

namespace {

double seconds_since(int64_t ns) { return static_cast<double>(now_ns() - ns) / 1e9; }

}  // namespace

template <typename OnFrame>
std::vector<int> Coordinator::collect(std::vector<int> ranks, const Deadline& deadline,
                                      OnFrame on_frame) {
  std::vector<int> pending;
  for (int r : ranks) {
    if (alive(r) && links_[static_cast<size_t>(r)].ch) pending.push_back(r);
  }
  std::vector<pollfd> fds;
  while (!pending.empty() && !deadline.expired()) {
    if (config_.stop != nullptr && config_.stop->load()) break;
    fds.clear();
    for (int r : pending) fds.push_back({links_[static_cast<size_t>(r)].ch->fd(), POLLIN, 0});
    if (poll(fds.data(), fds.size(), std::min(deadline.remaining_ms(), 200)) <= 0) continue;
    std::vector<int> still;
    for (size_t i = 0; i < pending.size(); ++i) {
      int r = pending[i];
      if (fds[i].revents == 0) {
        still.push_back(r);
        continue;
      }
      auto frame = links_[static_cast<size_t>(r)].ch->recv(2);
      if (!frame.ok()) {
        // Its agent closed the connection or said why: the process died or gave up.
        bool closed = frame.status().message().find("closed by peer") != std::string::npos;
        mark_dead(r,
                 closed ? "its agent's connection closed: the process ended or died"
                        : "lost contact with its agent: " + frame.status().message(),
                 false);
        continue;
      }
      if (!on_frame(r, *frame)) still.push_back(r);
    }
    pending.swap(still);
  }
  return pending;
}

void Coordinator::check_alive(const std::vector<int>& ranks) {
  uint64_t id = next_ping_++;
  std::vector<int> asked;
  for (int r : ranks) {
    if (!alive(r) || std::find(asked.begin(), asked.end(), r) != asked.end()) continue;
    Status s = links_[static_cast<size_t>(r)].ch->send(kAgentPing, {{"ping", id}}, 2);
    if (!s.ok()) {
      mark_dead(r, "cannot reach its agent (" + s.message() + ")", true);
      continue;
    }
    asked.push_back(r);
  }
  double wait = config_.opts->timeout_s;
  auto silent = collect(asked, Deadline::After(wait), [&](int, const Frame& f) {
    return f.type == kAgentPing && f.body.value("pong", uint64_t{0}) == id;
  });
  if (config_.stop != nullptr && config_.stop->load()) return;  // no time to listen: not hung
  for (int r : silent) {
    mark_dead(r, fmt::format("stopped answering rank 0 for {:g} s (hung?)", wait), true);
  }
}

void Coordinator::note(size_t test, const std::optional<double>& value) {
  // A cheap running count for the progress line; the verdicts are drawn at the end.
  Histogram& h = running_[test];
  if (!value) {
    ++suspects_so_far_;
    return;
  }
  uint64_t v = static_cast<uint64_t>(std::max(0.0, *value));
  if (h.count() >= 8) {
    double median = static_cast<double>(h.value_at_percentile(50));
    bool lower = run_.tests[test].figure.better == Better::kLower;
    if (lower ? *value > median * run_.tol.lat_ratio : *value < median * run_.tol.bw_ratio) {
      ++suspects_so_far_;
    }
  }
  h.record(v);
}

void Coordinator::run_step(size_t test, const std::vector<Pair>& pairs, double time_s, bool retest) {
  const std::string name = config_.opts->runs[test].spec->name;
  std::vector<Pending> runs;
  std::unordered_map<int, size_t> by_client;
  for (const Pair& p : pairs) {
    if (!alive(p.client) || !alive(p.server) || by_client.count(p.client) > 0) continue;
    Pending run;
    run.pair = p;
    run.step = next_step_++;
    Status s = links_[static_cast<size_t>(p.client)].ch->send(kAgentRun,
                                                              {{"step", run.step},
                                                               {"peer", p.server},
                                                               {"test", test},
                                                               {"name", name},
                                                               {"time_s", time_s}},
                                                              5);
    if (!s.ok()) {
      mark_dead(p.client, "cannot send to its agent (" + s.message() + ")", true);
      continue;
    }
    by_client[p.client] = runs.size();
    runs.push_back(run);
  }
  if (runs.empty()) return;
  int64_t started = now_ns();
  double wait = step_wait(time_s);
  Deadline deadline(std::min(started + static_cast<int64_t>(wait * 1e9), end_ns_));
  std::vector<int> clients;
  for (const Pending& r : runs) clients.push_back(r.pair.client);
  auto result_of = [&](int rank, const Frame& f) {
    if (f.type != kAgentResult) return false;  // an answer to an earlier ping
    Pending& run = runs[by_client[rank]];
    if (f.body.value("step", uint64_t{0}) != run.step) return false;  // an earlier step's
    run.answered = true;
    auto v = f.body.find("value");
    if (v != f.body.end() && v->is_number()) {
      run.value = v->get<double>();
      auto noisy = f.body.find("noisy");
      run.noisy = noisy != f.body.end() && noisy->is_boolean() && noisy->get<bool>();
    } else {
      run.error = f.body.value("error", std::string("no figure in the answer"));
    }
    return true;
  };
  std::vector<int> late = collect(clients, deadline, result_of);
  if (late.empty() && time_s > 0) {
    overhead_s_ = 0.7 * overhead_s_ + 0.3 * std::max(0.0, seconds_since(started) - time_s);
  }
  // Late runs are cancelled; their agents answer "cancelled" once the run has ended, and an
  // agent that cannot end its run is as good as gone.
  for (int r : late) {
    if (alive(r)) {
      // A lost agent is found below: its answer does not come.
      links_[static_cast<size_t>(r)]
          .ch->send(kAgentCancel, {{"cancel", runs[by_client[r]].step}}, 2)
          .IgnoreError();
    }
  }
  std::string late_error = fmt::format("no result within {:g} s", seconds_since(started));
  std::vector<int> stuck = collect(late, Deadline::After(config_.opts->timeout_s + 3), result_of);
  for (int r : stuck) {
    if (config_.stop == nullptr || !config_.stop->load()) {
      mark_dead(r, "its measurement did not end when cancelled (hung?)", true);
    }
  }
  std::vector<int> check;
  for (const Pending& run : runs) {
    if (!run.value) {
      check.push_back(run.pair.client);
      check.push_back(run.pair.server);
    }
  }
  if (!check.empty()) check_alive(check);
  TestColumn& column = run_.tests[test];
  for (Pending& run : runs) {
    int a = run.pair.client, b = run.pair.server;
    if (!alive(a) || !alive(b)) continue;  // the rank is the story, not the link
    if (run.value && run.error.empty()) {
      if (retest) {
        column.matrix.set_retest(a, b, *run.value);
      } else {
        column.matrix.set(a, b, *run.value);
        note(test, run.value);
      }
      column.matrix.set_noisy(a, b, run.noisy);
    } else if (!retest && (config_.stop == nullptr || !config_.stop->load())) {
      bool cancelled = !run.answered || run.error == "cancelled";
      column.matrix.fail(a, b, cancelled ? late_error : run.error);
      note(test, std::nullopt);
    }
  }
}

}  // namespace fabperf::cluster
