// Rank 0's connections to the agents: connecting, a step's runs and answers, pings, the end.
#include "cluster/agent_fleet.h"

#include <fmt/format.h>
#include <poll.h>

#include <algorithm>
#include <thread>
#include <unordered_map>

#include "cluster/agent_protocol.h"
#include "core/clock.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kConnectThreads = 32;

double seconds_since(int64_t ns) { return static_cast<double>(now_ns() - ns) / 1e9; }

}  // namespace

AgentFleet::AgentFleet(const MatrixOptions& opts, std::string job,
                       std::vector<Result<RankCard>> cards)
    : opts_(opts),
      job_(std::move(job)),
      cards_(std::move(cards)),
      links_(cards_.size()),
      lost_(cards_.size(), false) {}

AgentFleet::~AgentFleet() = default;

int64_t AgentFleet::now_ns() const { return fabperf::now_ns(); }

void AgentFleet::lose(FleetEvents& events, int rank, const std::string& reason, bool linger) {
  links_[static_cast<size_t>(rank)].linger = linger;
  lost_[static_cast<size_t>(rank)] = true;
  events.lost(rank, reason, linger);
}

void AgentFleet::connect(FleetEvents& events) {
  const std::string& mine = cards_[0].ok() ? cards_[0]->tests : "";
  std::vector<std::string> failures(cards_.size());
  std::atomic<size_t> next{0};
  CoordinatorHello hello{job_, std::max(1.0, events.seconds_left())};
  auto work = [&] {
    for (size_t r = next++; r < cards_.size(); r = next++) {
      if (!cards_[r].ok() || !cards_[r]->error.empty()) continue;
      auto ch = connect_agent(*cards_[r], hello, opts_.bind, opts_.timeout_s);
      if (ch.ok()) {
        links_[r].ch = std::move(*ch);
      } else {
        failures[r] = fmt::format("cannot reach its agent at {}:{}: {}", cards_[r]->addr,
                                  cards_[r]->agent_port, ch.status().message());
      }
    }
  };
  std::vector<std::thread> pool;
  for (size_t i = 0; i < std::min(kConnectThreads, cards_.size()); ++i) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  for (size_t r = 0; r < cards_.size(); ++r) {
    int rank = static_cast<int>(r);
    if (!cards_[r].ok()) {
      lose(events, rank, cards_[r].status().message(), true);
    } else if (!cards_[r]->error.empty()) {
      lose(events, rank, cards_[r]->error, false);  // it ends by itself
    } else if (!failures[r].empty()) {
      lose(events, rank, failures[r], true);
    } else if (cards_[r]->tests != mine) {
      lose(events, rank, "it was started with other tests or test options than rank 0", false);
    }
  }
}

template <typename OnFrame>
std::vector<int> AgentFleet::collect(std::vector<int> ranks, const Deadline& deadline,
                                     FleetEvents& events, OnFrame on_frame) {
  std::vector<int> pending;
  for (int r : ranks) {
    if (events.alive(r) && links_[static_cast<size_t>(r)].ch) pending.push_back(r);
  }
  std::vector<pollfd> fds;
  while (!pending.empty() && !deadline.expired()) {
    if (events.stopping()) break;
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
        lose(events, r,
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

void AgentFleet::check_alive(const std::vector<int>& ranks, FleetEvents& events) {
  uint64_t id = next_ping_++;
  std::vector<int> asked;
  for (int r : ranks) {
    if (!events.alive(r) || std::find(asked.begin(), asked.end(), r) != asked.end()) continue;
    Status s = links_[static_cast<size_t>(r)].ch->send(kAgentPing, {{"ping", id}}, 2);
    if (!s.ok()) {
      lose(events, r, "cannot reach its agent (" + s.message() + ")", true);
      continue;
    }
    asked.push_back(r);
  }
  double wait = opts_.timeout_s;
  auto silent = collect(asked, Deadline::after(wait), events, [&](int, const Frame& f) {
    return f.type == kAgentPong && f.body.value("pong", uint64_t{0}) == id;
  });
  if (events.stopping()) return;  // no time to listen: not hung
  for (int r : silent) {
    lose(events, r, fmt::format("stopped answering rank 0 for {:g} s (hung?)", wait), true);
  }
}

void AgentFleet::run_step(const StepRequest& step, std::vector<StepRun>& runs,
                          FleetEvents& events) {
  std::unordered_map<int, size_t> by_client;
  std::vector<uint64_t> ids(runs.size(), 0);
  std::vector<int> clients;
  for (size_t i = 0; i < runs.size(); ++i) {
    const Pair& p = runs[i].pair;
    ids[i] = next_step_++;
    Status s = links_[static_cast<size_t>(p.client)].ch->send(kAgentRun,
                                                              {{"step", ids[i]},
                                                               {"peer", p.server},
                                                               {"test", step.test},
                                                               {"name", step.name},
                                                               {"time_s", step.time_s}},
                                                              5);
    if (!s.ok()) {
      lose(events, p.client, "cannot send to its agent (" + s.message() + ")", true);
      continue;
    }
    by_client[p.client] = i;
    clients.push_back(p.client);
  }
  if (clients.empty()) return;
  int64_t started = fabperf::now_ns();
  auto result_of = [&](int rank, const Frame& f) {
    if (f.type != kAgentResult) return false;  // an answer to an earlier ping
    size_t i = by_client[rank];
    if (f.body.value("step", uint64_t{0}) != ids[i]) return false;  // an earlier step's
    StepRun& run = runs[i];
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
  std::vector<int> late = collect(clients, Deadline(step.deadline_ns), events, result_of);
  // Late runs are cancelled; their agents answer "cancelled" once the run has ended, and an
  // agent that cannot end its run is as good as gone.
  for (int r : late) {
    if (events.alive(r)) {
      // A lost agent is found below: its answer does not come.
      links_[static_cast<size_t>(r)]
          .ch->send(kAgentCancel, {{"cancel", ids[by_client[r]]}}, 2)
          .ignore_error();
    }
  }
  std::string late_error = fmt::format("no result within {:g} s", seconds_since(started));
  std::vector<int> stuck = collect(late, Deadline::after(opts_.timeout_s + 3), events, result_of);
  for (int r : stuck) {
    if (!events.stopping()) {
      lose(events, r, "its measurement did not end when cancelled (hung?)", true);
    }
  }
  for (StepRun& run : runs) {
    if (!run.answered || run.error == "cancelled") {
      run.answered = false;
      run.value.reset();
      run.error = late_error;
    }
  }
}

bool AgentFleet::finish() {
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
  Deadline deadline = Deadline::after(3);
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
    if (links_[r].linger && (links_[r].ch || lost_[r])) all_ended = false;
  }
  links_.clear();
  return all_ended;
}

}  // namespace fabperf::cluster
