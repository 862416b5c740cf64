// Waiting for a session child: its deadline, its messages, its peak memory, and its end in words.
#include "session/session_child.h"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>

#include "core/clock.h"
#include "net/shm_cleanup.h"
#include "net/tcp_state.h"
#include "security/limits.h"
#include "session/child_link.h"

namespace fabperf {

namespace {

constexpr int kSampleMs = 100;  // how often the parent reads the child's VmHWM

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g s", s);
  return buf;
}

}  // namespace

nlohmann::json ChildRequest::to_json() const {
  return {{"test", test},
          {"params", params},
          {"timeout_s", timeout_s},
          {"limits", limits.to_json()},
          {"peer", peer}};
}

Result<ChildRequest> ChildRequest::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::failed("child request: not a JSON object");
  ChildRequest r;
  auto test = j.find("test");
  if (test == j.end() || !test->is_string()) return Status::failed("child request: no test name");
  r.test = *test;
  if (auto p = j.find("params"); p != j.end()) r.params = *p;
  if (auto p = j.find("peer"); p != j.end()) r.peer = *p;
  if (auto t = j.find("timeout_s"); t != j.end() && t->is_number()) r.timeout_s = *t;
  if (auto l = j.find("limits"); l != j.end()) {
    auto limits = ChildLimits::from_json(*l);
    if (!limits.ok()) return limits.status();
    r.limits = *limits;
  }
  return r;
}

std::string signal_words(int signal) {
  const char* name = sigdescr_np(signal);  // unlike strsignal, no shared buffer
  return "signal " + std::to_string(signal) + " (" + (name != nullptr ? name : "unknown") + ")";
}

Status ChildOutcome::status() const {
  if (child_error) return *child_error;
  if (end == End::kExited && exit_code == 0) return Status::success();
  Code code = end == End::kKilledAtDeadline || end == End::kKilledPeerSilent ? Code::kTimeout
                                                                             : Code::kFailed;
  return Status(code, "session process " + description);
}

SessionChild::~SessionChild() {
  if (reaped_) return;
  Kill(ChildOutcome::End::kKilledOnCancel);
  Wait();
}

void SessionChild::Kill(ChildOutcome::End why) {
  if (killed_) return;
  killed_ = why;
  if (!pidfd_.valid() || syscall(SYS_pidfd_send_signal, pidfd_.get(), SIGKILL, nullptr, 0) != 0) {
    kill(pid_, SIGKILL);  // still our unreaped child: the pid cannot have been reused
  }
}

void SessionChild::SampleRss() {
  uint64_t hwm = vm_hwm_kib("/proc/" + std::to_string(pid_) + "/status") * 1024;
  if (hwm > outcome_.peak_rss_bytes) outcome_.peak_rss_bytes = hwm;
}

bool SessionChild::Ended(int timeout_ms) {
  // Without a pidfd the link wakes us, and the exit is noticed at the next tick. A fd of -1
  // is skipped by poll.
  int hangup_fd = peer_hung_up_ ? -1 : options_.hangup_fd;
  pollfd p[3] = {{link_.get(), POLLIN, 0}, {pidfd_.get(), POLLIN, 0}, {hangup_fd, POLLRDHUP, 0}};
  poll(p, 3, timeout_ms);
  if (p[0].revents != 0) ReadLink();
  if ((p[2].revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0) peer_hung_up_ = true;
  siginfo_t info{};
  return waitid(P_PID, pid_, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid_;
}

void SessionChild::ReadLink() {
  char buf[8192];
  for (;;) {
    ssize_t n = recv(link_.get(), buf, sizeof buf, MSG_DONTWAIT);
    if (n <= 0) return;
    inbox_.append(buf, static_cast<size_t>(n));
    size_t eol;
    while ((eol = inbox_.find('\n')) != std::string::npos) {
      auto message = nlohmann::json::parse(inbox_.substr(0, eol), nullptr, false);
      inbox_.erase(0, eol + 1);
      if (!message.is_object()) continue;
      try {
        Take(message);
      } catch (const nlohmann::json::exception&) {
        // A malformed message from the child is ignored; how it ended is still told.
      }
    }
    if (inbox_.size() > kMaxLinkMessage) inbox_.clear();  // no line that long is ours
  }
}

void SessionChild::Take(const nlohmann::json& message) {
  std::string type = message.value("type", "");
  if (type == "result" && message.contains("result")) {
    outcome_.result = message["result"];
  } else if (type == "error") {
    outcome_.child_error = status_from_child(message);
  } else if (type == "setup") {
    outcome_.setup = message;
    outcome_.setup.erase("type");
  } else if (type == "end") {
    uint64_t hwm = message.value("vm_hwm_kib", uint64_t{0}) * 1024;
    if (hwm > outcome_.peak_rss_bytes) outcome_.peak_rss_bytes = hwm;
  } else if (type == "exec_failed") {
    exec_errno_ = message.value("errno", 0);
  } else if (type == "watch_peer") {
    watching_peer_ = true;
  }
}

bool SessionChild::peer_silent() {
  if (!watching_peer_ || options_.peer_silence_s <= 0 || options_.hangup_fd < 0) return false;
  auto tcp = tcp_state(options_.hangup_fd);
  return tcp.ok() && tcp->last_data_recv_ms > options_.peer_silence_s * 1000;
}

ChildOutcome SessionChild::Wait() {
  if (reaped_) return outcome_;
  int64_t cancel_at = INT64_MAX;
  for (;;) {
    int64_t now = now_ns();
    bool cancelled = peer_hung_up_ || (options_.cancel != nullptr && options_.cancel->load());
    if (cancelled && cancel_at == INT64_MAX) {
      cancel_at = now + static_cast<int64_t>(options_.cancel_grace_s * 1e9);
    }
    if (!killed_ && (now >= options_.deadline_ns || now >= cancel_at)) {
      SampleRss();  // its last moment alive
      Kill(now >= options_.deadline_ns ? ChildOutcome::End::kKilledAtDeadline
                                       : ChildOutcome::End::kKilledOnCancel);
    } else if (!killed_ && peer_silent()) {
      SampleRss();
      Kill(ChildOutcome::End::kKilledPeerSilent);
    }
    int64_t next =
        std::min<int64_t>({now + kSampleMs * int64_t{1000000}, options_.deadline_ns, cancel_at});
    int wait_ms = static_cast<int>(std::max<int64_t>(1, (next - now + 999'999) / 1'000'000));
    if (killed_) wait_ms = kSampleMs;
    if (Ended(wait_ms)) break;
    SampleRss();
  }
  ReadLink();  // whatever it wrote before it ended
  // Still a zombie: its pid cannot be reused, so the shm files named after it are its own.
  outcome_.shm_removed = remove_shm_files_of(pid_, child_uid_);
  outcome_.peer_hung_up = peer_hung_up_;
  int status = 0;
  rusage usage{};
  while (wait4(pid_, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  reaped_ = true;
  outcome_.wall_s = (now_ns() - started_ns_) / 1e9;
  Describe(status, usage);
  return outcome_;
}

void SessionChild::Describe(int status, const rusage& usage) {
  ChildOutcome& o = outcome_;
  if (WIFEXITED(status)) {
    o.exit_code = WEXITSTATUS(status);
    o.end = o.exit_code == kChildExitOutOfMemory ? ChildOutcome::End::kOutOfMemory
                                                 : ChildOutcome::End::kExited;
  } else if (WIFSIGNALED(status)) {
    o.signal = WTERMSIG(status);
    double cpu_s = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec +
                   (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    bool over_cpu = limits_.cpu_seconds != 0 && cpu_s >= limits_.cpu_seconds;
    if (o.signal == SIGKILL && killed_) {
      o.end = *killed_;
    } else if (o.signal == SIGXCPU || (o.signal == SIGKILL && over_cpu)) {
      o.end = ChildOutcome::End::kCpuLimit;
    } else {
      o.end = ChildOutcome::End::kSignaled;
    }
  }
  std::string memory_limit =
      limits_.memory_bytes != 0 ? size_text(limits_.memory_bytes) : std::string("memory");
  switch (o.end) {
    case ChildOutcome::End::kExited:
      if (o.exit_code == kChildExitExecFailed && exec_errno_ != 0) {
        o.description =
            "could not be started: " + options_.executable + ": " + strerror(exec_errno_);
      } else if (o.exit_code == kChildExitParentGone) {
        o.description = "ended at once: its parent was gone";
      } else {
        o.description = "exit code " + std::to_string(o.exit_code);
      }
      break;
    case ChildOutcome::End::kOutOfMemory:
      o.description = "ran out of memory: over its " + memory_limit + " limit";
      break;
    case ChildOutcome::End::kKilledAtDeadline:
      o.description =
          "killed at " + options_.deadline_name + " of " +
          seconds_text(options_.deadline_span_s > 0 ? options_.deadline_span_s
                                                    : (options_.deadline_ns - started_ns_) / 1e9);
      break;
    case ChildOutcome::End::kKilledPeerSilent:
      o.description = "killed: nothing from its client for " +
                      seconds_text(options_.peer_silence_s) + " (stopped or gone?)";
      break;
    case ChildOutcome::End::kKilledOnCancel:
      o.description = "killed: it did not end within " + seconds_text(options_.cancel_grace_s) +
                      (peer_hung_up_ ? " of its client hanging up" : " of being told to stop");
      break;
    case ChildOutcome::End::kCpuLimit:
      o.description = "used up its CPU time limit of " + std::to_string(limits_.cpu_seconds) + " s";
      break;
    case ChildOutcome::End::kSignaled:
      o.description = "killed by " + signal_words(o.signal);
      break;
  }
  // A failure the child reported itself is its own best account, but a limit that caused it
  // is ours to name: a failed allocation under a memory limit, or an end we caused.
  bool limited = o.setup.contains("limits") &&
                 o.setup["limits"].value("memory", "").rfind("RLIMIT_DATA", 0) == 0;
  if (o.child_error && limited &&
      o.child_error->message().find(strerror(ENOMEM)) != std::string::npos) {
    o.child_error = Status(
        o.child_error->code(),
        o.child_error->message() + " (the session process's memory limit is " + memory_limit + ")");
  }
  if (o.child_error && o.end != ChildOutcome::End::kExited) {
    o.child_error = Status(o.child_error->code(),
                           o.child_error->message() + " (session process " + o.description + ")");
  }
}

}  // namespace fabperf
