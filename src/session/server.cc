// The server's accept loop: access control, the client limit, supervision and a clean stop.
#include "session/server.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <thread>

#include "core/clock.h"
#include "core/text.h"
#include "net/control.h"

namespace fabperf {

namespace {

// How long Serve waits, after telling clients it is going, for their sessions to end.
double stop_grace_s(const ServerOptions& options) { return options.timeout_s + 5; }

}  // namespace

Result<std::unique_ptr<Server>> Server::listen(const ServerOptions& options) {
  auto fd = listen_tcp(options.bind_addr, options.port, 64);
  if (!fd.ok()) return fd.status();
  uint16_t port = local_address(fd->get()).port();
  return std::unique_ptr<Server>(new Server(options, std::move(*fd), port));
}

Server::Server(const ServerOptions& options, Fd listener, uint16_t port)
    : options_(options), listener_(std::move(listener)), port_(port), queue_(options.concurrent) {}

Server::~Server() {
  stop();
  std::unique_lock<std::mutex> lock(mu_);
  sessions_done_.wait(lock, [&] { return active_.load() == 0; });
}

void Server::log(const std::string& line) {
  if (!options_.log) return;
  std::lock_guard<std::mutex> lock(log_mu_);
  int64_t now = now_ns();
  if (now - log_window_ns_ >= 1'000'000'000) {
    if (log_suppressed_ > 0) {
      std::fprintf(stderr, "fabperf server: %d more log lines suppressed (too many at once)\n",
                   log_suppressed_);
    }
    log_window_ns_ = now;
    log_lines_ = 0;
    log_suppressed_ = 0;
  }
  if (++log_lines_ > kMaxLogLinesPerSecond) {
    ++log_suppressed_;
    return;
  }
  std::fprintf(stderr, "fabperf server: %s\n", printable(line, 2048).c_str());
}

namespace {

// How long a refused connection that has sent nothing may take to show its protocol (both a
// qperf client and a fabperf client speak first, at once), and how many may wait at a time.
constexpr int64_t kRefusalWaitNs = 1'000'000'000;
constexpr size_t kMaxPendingRefusals = 64;

}  // namespace

void Server::refuse(Fd conn, const SockAddr& peer, const std::string& why, bool may_wait) {
  // Read what the client already sent, so closing does not reset the connection and throw
  // away our answer before the client reads it. Never waits: the accept loop must go on.
  uint8_t scratch[4096];
  uint8_t opening = 0;
  size_t got = 0;
  for (ssize_t n; (n = ::recv(conn.get(), scratch, sizeof scratch, MSG_DONTWAIT)) > 0;) {
    if (got == 0) opening = scratch[0];
    got += static_cast<size_t>(n);
  }
  // Nothing yet: which protocol to answer in is not known. It waits, polled with the listener,
  // rather than hear fabperf's frame, which a qperf client reads as its data port (review N9).
  if (got == 0 && may_wait && options_.qperf != nullptr) {
    // A flood of silent connections: the oldest is answered (fabperf's way) to make room, so
    // a qperf client, whose request comes at once, still gets its wait.
    if (pending_refusals_.size() >= kMaxPendingRefusals) {
      PendingRefusal oldest = std::move(pending_refusals_.front());
      pending_refusals_.erase(pending_refusals_.begin());
      refuse(std::move(oldest.conn), oldest.peer, oldest.why, false);
    }
    pending_refusals_.push_back({std::move(conn), peer, why, now_ns() + kRefusalWaitNs});
    return;
  }
  // A qperf client hears why in its own terms (its request opens with a zero byte).
  if (options_.qperf != nullptr && got > 0 &&
      options_.qperf->refuse(conn.get(), &opening, 1, why)) {
    log(peer.host() + ": refused (a qperf client): " + why);
    return;
  }
  ControlChannel ch(conn.release());
  ch.send_error(why, 0.2).ignore_error();  // it may have gone already
  ::shutdown(ch.fd(), SHUT_WR);
  log(peer.host() + ": refused: " + why);
}

void Server::answer_pending(const std::vector<pollfd>& polled, bool all) {
  const int64_t now = now_ns();
  std::vector<PendingRefusal> waiting;
  for (size_t i = 0; i < pending_refusals_.size(); ++i) {
    PendingRefusal& p = pending_refusals_[i];
    // polled[0] is the listener; the pending refusals follow in order.
    bool spoke = i + 1 < polled.size() && polled[i + 1].revents != 0;
    if (all || spoke || now >= p.until_ns) {
      refuse(std::move(p.conn), p.peer, p.why, false);
    } else {
      waiting.push_back(std::move(p));
    }
  }
  pending_refusals_ = std::move(waiting);
}

void Server::cut_oldest_unproven() {
  std::lock_guard<std::mutex> lock(mu_);
  Slot* oldest = nullptr;
  for (Slot* slot : sessions_) {
    if (!slot->proven && !slot->told &&
        (oldest == nullptr || slot->accepted_ns < oldest->accepted_ns)) {
      oldest = slot;
    }
  }
  if (oldest == nullptr) return;
  oldest->told = true;
  oldest->stop.store(true);
  oldest->channel->shut_down();
}

Status Server::take_slot(Slot& slot) {
  std::lock_guard<std::mutex> lock(mu_);
  if (slot.told) return Status::interrupted("cut");
  if (proven_ >= options_.max_clients) {
    return Status::failed("server busy: " + std::to_string(options_.max_clients) +
                          " clients are being served (server option --max_clients); try again "
                          "later");
  }
  slot.proven = true;
  ++proven_;
  unproven_.fetch_sub(1);
  return Status::success();
}

void Server::supervise(bool stopping) {
  int64_t now = now_ns();
  std::lock_guard<std::mutex> lock(mu_);
  for (Slot* slot : sessions_) {
    if (options_.unproven_s > 0 && !slot->proven && !slot->told &&
        now - slot->accepted_ns >= static_cast<int64_t>(options_.unproven_s * 1e9)) {
      // A stranger, or a client too slow to prove the key: it goes without a word.
      slot->told = true;
      slot->stop.store(true);
      slot->channel->shut_down();
      continue;
    }
    if (slot->told || (!stopping && now < slot->deadline_ns)) continue;
    slot->told = true;
    slot->stop.store(true);
    char limit[32];
    snprintf(limit, sizeof limit, "%g", options_.limits.max_time);
    std::string why = stopping ? "server shutting down"
                               : std::string(
                                     "run time limit reached: the run passed the "
                                     "server's deadline (server option --max_time ") +
                                     limit + " s)";
    // Short deadline: a client that stopped reading must not hold up the supervisor.
    if (slot->tell) {
      slot->tell(why);  // bounded as well (qperf_wire::QperfControl::send_error)
    } else {
      slot->channel->send_error(why, 0.5).ignore_error();
    }
    slot->channel->shut_down();
    if (!stopping) log(slot->channel->peer_host() + ": " + why);
  }
}

Status Server::serve() {
  int64_t next_fd_warning = 0;
  while (!stop_.load() && !(options_.once && sessions_ended_.load() > 0)) {
    std::vector<pollfd> polled{{listener_.get(), POLLIN, 0}};
    for (const PendingRefusal& p : pending_refusals_) polled.push_back({p.conn.get(), POLLIN, 0});
    // Wake up to notice Stop(), run the watchdog (often enough to cut the unproven) and end
    // the pending refusals' waits.
    const bool often = !pending_refusals_.empty() || options_.unproven_s > 0;
    int rc = poll(polled.data(), polled.size(), often ? 50 : 200);
    supervise(false);
    answer_pending(polled, false);
    if (rc <= 0 || (polled[0].revents & POLLIN) == 0) continue;
    SockAddr peer;
    peer.len = sizeof peer.storage;
    int fd = accept4(listener_.get(), peer.get(), &peer.len, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        // Out of descriptors: the pending connection stays queued; do not spin on it.
        if (now_ns() >= next_fd_warning) {
          log(errno_text("accept") + " (waiting for sessions to end)");
          next_fd_warning = now_ns() + 10'000'000'000;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      }
      continue;
    }
    Fd conn(fd);
    if (!options_.allow.allows(peer)) {
      refuse(std::move(conn), peer,
             "access denied: " + peer.host() + " is not in this server's --allow list");
      continue;
    }
    if (options_.unproven_s > 0) {
      if (unproven_.load() >= kMaxUnproven) cut_oldest_unproven();
      unproven_.fetch_add(1);
      active_.fetch_add(1);
      std::thread([this, fd = conn.release()] { session(fd); }).detach();
      continue;
    }
    if (active_.load() >= options_.max_clients) {
      refuse(std::move(conn), peer,
             "server busy: " + std::to_string(options_.max_clients) +
                 (options_.max_clients == 1 ? " client is" : " clients are") +
                 " being served (server option --max_clients); try again later");
      continue;
    }
    active_.fetch_add(1);
    std::thread([this, fd = conn.release()] { session(fd); }).detach();
  }
  supervise(true);
  answer_pending({}, true);
  std::unique_lock<std::mutex> lock(mu_);
  auto grace = std::chrono::milliseconds(static_cast<int64_t>(stop_grace_s(options_) * 1000));
  if (!sessions_done_.wait_for(lock, grace, [&] { return active_.load() == 0; })) {
    return Status::timeout(std::to_string(active_.load()) +
                           " sessions did not end after the server stopped");
  }
  if (options_.once && !first_failure_.empty()) return Status::failed(first_failure_);
  return Status::success();
}

}  // namespace fabperf
