// The agent's accept loop, its session with rank 0, and the one measurement it runs at a time.
#include "cluster/agent.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>

#include "cluster/pair_runner.h"
#include "core/clock.h"

namespace fabperf::cluster {

namespace {

// Beyond the deadline rank 0 announced, how long an agent waits for its last word.
constexpr double kDeadlineGrace = 15;
// Connections waiting to prove the key at once (rank 0 needs one; a newer one cuts the oldest,
// so strangers holding connections cannot keep rank 0 out).
constexpr size_t kMaxSessions = 8;
// How long a connection may take to prove the key (rank 0's handshake takes milliseconds).
constexpr double kProveWithin = 2;

}  // namespace

Result<std::unique_ptr<Agent>> Agent::listen(Config config) {
  auto fd = listen_tcp(config.bind, 0, 64);
  if (!fd.ok()) return fd.status().prefixed("agent");
  uint16_t port = local_address(fd->get()).port();
  return std::unique_ptr<Agent>(new Agent(std::move(config), std::move(*fd), port));
}

Agent::Agent(Config config, Fd listener, uint16_t port)
    : config_(std::move(config)), listener_(std::move(listener)), port_(port) {
  for (const PlannedRun& run : *config_.runs) figures_.push_back(figure_for(*run.spec));
}

Agent::~Agent() {
  closing_.store(true);
  stop_worker(config_.timeout_s + 2);
  reap(true);
  if (worker_.thread.joinable()) worker_.thread.join();
}

void Agent::end(Status why) {
  std::lock_guard<std::mutex> lock(mu_);
  if (ended_) return;
  ended_ = true;
  result_ = std::move(why);
  closing_.store(true);
}

Status Agent::serve(double connect_wait_s) {
  deadline_ns_.store(now_ns() + static_cast<int64_t>(connect_wait_s * 1e9));
  while (!closing_.load()) {
    if (config_.stop != nullptr && config_.stop->load()) {
      end(Status::interrupted("interrupted"));
      break;
    }
    if (now_ns() >= deadline_ns_.load()) {
      end(Status::failed(coordinated_.load()
                             ? "rank 0 did not end the job by the deadline it announced"
                             : "rank 0 did not connect within " +
                                   std::to_string(static_cast<int>(connect_wait_s)) + " s"));
      break;
    }
    pollfd pfd{listener_.get(), POLLIN, 0};
    if (poll(&pfd, 1, 200) <= 0) continue;
    SockAddr peer;
    peer.len = sizeof peer.storage;
    int fd = accept4(listener_.get(), peer.get(), &peer.len, SOCK_CLOEXEC);
    if (fd < 0) continue;
    reap(false);
    // Rank 0 connects once, from one of its addresses: nobody else has any business here.
    if (coordinated_.load() || !allow_.allows(peer) || sessions_.size() >= 2 * kMaxSessions) {
      Fd drop(fd);
      continue;
    }
    if (sessions_.size() >= kMaxSessions) cut_oldest();
    auto done = std::make_shared<std::atomic<bool>>(false);
    auto cut = std::make_shared<std::atomic<bool>>(false);
    sessions_.push_back({std::thread([this, fd, done, cut] {
                           session(fd, cut.get());
                           done->store(true);
                         }),
                         done, cut, now_ns()});
  }
  stop_worker(config_.timeout_s + 2);
  reap(true);
  std::lock_guard<std::mutex> lock(mu_);
  return result_;
}

void Agent::reap(bool all) {
  for (auto it = sessions_.begin(); it != sessions_.end();) {
    if (all || it->done->load()) {
      it->thread.join();
      it = sessions_.erase(it);
    } else {
      ++it;
    }
  }
}

void Agent::cut_oldest() {
  SessionThread* oldest = nullptr;
  for (SessionThread& s : sessions_) {
    if (!s.done->load() && !s.cut->load() &&
        (oldest == nullptr || s.accepted_ns < oldest->accepted_ns)) {
      oldest = &s;
    }
  }
  // Rank 0's own session is past its handshake (coordinated_): no new one is accepted then.
  if (oldest != nullptr) oldest->cut->store(true);
}

void Agent::session(int fd, const std::atomic<bool>* cut) {
  ControlChannel ch(fd);
  ch.set_peer_label("rank 0");
  ch.set_max_body(64 * 1024);
  ch.set_cancel(cut);  // during the handshake: a newer connection may cut this one
  CoordinatorHello hello;
  Status s = accept_coordinator(ch, config_.key, std::min(config_.timeout_s, kProveWithin), &hello);
  ch.set_cancel(&closing_);
  if (s.ok() && coordinated_.exchange(true)) s = Status::failed("rank 0 is already connected");
  if (!s.ok()) {
    // Best effort: the connection is dropped either way.
    if (s.code() != Code::kInterrupted) ch.send_error(s.message(), 0.5).ignore_error();
    return;
  }
  deadline_ns_.store(now_ns() + static_cast<int64_t>((hello.deadline_s + kDeadlineGrace) * 1e9));
  session_loop(ch);
  stop_worker(config_.timeout_s + 2);
  if (worker_.thread.joinable()) worker_.thread.join();  // it may still send on `ch`
}

void Agent::session_loop(ControlChannel& ch) {
  for (;;) {
    auto frame = ch.recv(0.5);
    if (!frame.ok()) {
      if (frame.status().code() == Code::kTimeout) continue;
      if (frame.status().code() == Code::kInterrupted) return;
      end(Status::failed("lost rank 0 (" + frame.status().message() + ")"));
      return;
    }
    const nlohmann::json& body = frame->body;
    switch (frame->type) {
      case kAgentRun:
        start_run(ch, body);
        break;
      case kAgentPing:
        ch.send(kAgentPong,
                {{"pong", body.value("ping", uint64_t{0})}, {"busy", !worker_.done.load()}}, 2)
            .ignore_error();  // a broken connection is the next recv's to find
        break;
      case kAgentCancel:
        if (body.value("cancel", uint64_t{0}) == worker_.step) worker_.stop.store(true);
        break;
      case kAgentQuit:
        stop_worker(config_.timeout_s + 2);
        ch.send(kAgentBye, nlohmann::json::object(), 2).ignore_error();  // the job ends either way
        end(Status::success());
        return;
      default:
        ch.send_error(std::string("protocol error: unexpected ") + msg_type_name(frame->type) +
                          misdirected_note(frame->type, true),
                      1)
            .ignore_error();
        end(Status::failed(std::string("rank 0 sent an unexpected ") + msg_type_name(frame->type)));
        return;
    }
  }
}

bool Agent::stop_worker(double wait_s) {
  worker_.stop.store(true);
  Deadline deadline = Deadline::after(wait_s);
  while (!worker_.done.load()) {
    if (deadline.expired()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (worker_.thread.joinable()) worker_.thread.join();
  return true;
}

void Agent::start_run(ControlChannel& ch, const nlohmann::json& body) {
  uint64_t step = body.value("step", uint64_t{0});
  auto fail = [&](const std::string& why) {
    // A broken connection is the session loop's to find.
    ch.send(kAgentResult, {{"step", step}, {"error", why}}, 2).ignore_error();
  };
  int peer = body.value("peer", -1);
  size_t test = body.value("test", size_t{0});
  std::string name = body.value("name", std::string());
  double time_s = body.value("time_s", 0.0);
  if (test >= config_.runs->size() || (*config_.runs)[test].spec->name != name) {
    return fail("rank " + std::to_string(config_.rank) +
                " was started with other tests than "
                "rank 0 (every rank needs the same command line)");
  }
  if (peer < 0 || peer >= config_.size || peer == config_.rank) {
    return fail("peer rank " + std::to_string(peer) + " is not another rank of this job");
  }
  if (!(time_s >= 0 && time_s < 1e8)) return fail("bad time_s");
  if (!stop_worker(config_.timeout_s + 2)) return fail("the previous measurement is still running");
  // The peer's address comes from the job's table, never from the request.
  auto card = config_.boot->lookup(peer, config_.timeout_s);
  if (!card.ok()) return fail("rank " + std::to_string(peer) + ": " + card.status().message());
  if (!card->error.empty()) return fail("rank " + std::to_string(peer) + ": " + card->error);
  worker_.step = step;
  worker_.stop.store(config_.stop != nullptr && config_.stop->load());
  worker_.done.store(false);
  PairRun run;
  run.run = &(*config_.runs)[test];
  run.time_s = time_s;
  run.peer_addr = card->addr;
  run.peer_port = card->server_port;
  run.peer_key = card->key;
  run.bind = config_.bind;
  run.stop = &worker_.stop;
  FigureDef figure = figures_[test];
  worker_.thread = std::thread([this, &ch, run, figure, step] {
    PairOutcome outcome = run_pair(run, figure);
    nlohmann::json reply = {{"step", step}};
    if (worker_.stop.load()) {
      reply["error"] = "cancelled";  // at rank 0's deadline: a partial figure is no figure
    } else if (outcome.value) {
      reply["value"] = *outcome.value;
      if (outcome.noisy) reply["noisy"] = true;  // a host-noise warning on either side
    } else {
      reply["error"] = outcome.error;
    }
    ch.send(kAgentResult, reply, 5).ignore_error();  // the session loop finds a broken connection
    worker_.done.store(true);
  });
}

}  // namespace fabperf::cluster
