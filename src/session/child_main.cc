// The hidden child mode: confine this process, then run the registered measurement entry.
#include "session/child_main.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <new>

#include "core/clock.h"
#include "net/socket.h"
#include "session/child_link.h"
#include "session/session_child.h"

namespace fabperf {

namespace {

SessionChildEntry& registered_entry() {
  static SessionChildEntry entry;
  return entry;
}

// Async-signal-safe enough for a failed allocation: no allocation, one write, _exit.
void on_out_of_memory() {
  static const char kLine[] = "{\"type\":\"oom\"}\n";
  ssize_t ignored = write(kChildLinkFd, kLine, sizeof kLine - 1);
  (void)ignored;
  _exit(kChildExitOutOfMemory);
}

// The parent-death signal is cleared when the uid changes, so it is armed again after the
// drop; and a parent that died before it was armed is noticed by its pid.
Status arm_parent_death(pid_t parent) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return Status::failed(errno_text("PR_SET_PDEATHSIG"));
  if (getppid() != parent) return Status::failed("the server that started this process is gone");
  return Status::success();
}

// The request: all the parent writes before it shuts its side down.
Result<nlohmann::json> read_request(int fd) {
  std::string text;
  Deadline deadline = Deadline::after(10);
  char buf[4096];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, deadline.remaining_ms()) <= 0) {
      return Status::timeout("no request from the server within 10 s");
    }
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0) return Status::failed(errno_text("reading the request"));
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
    if (text.size() > kMaxLinkMessage) return Status::failed("request larger than 1 MiB");
  }
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded()) return Status::failed("request is not valid JSON");
  return j;
}

}  // namespace

// A setup failure is reported like a test's, then ends the child with its own exit code.
[[noreturn]] static void setup_failed(ResultSink& sink, const Status& s) {
  sink.fail(s.prefixed("session process setup")).ignore_error();  // the exit code says it too
  _exit(kChildExitSetupFailed);
}

Status ResultSink::write(const nlohmann::json& message) {
  // dump() escapes control characters, so the line has no newline of its own.
  std::string line = message.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::send(fd_, line.data() + done, line.size() - done, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return Status::failed(errno_text("writing to the server"));
    done += static_cast<size_t>(n);
  }
  return Status::success();
}

Status ResultSink::send(const nlohmann::json& result) {
  return write({{"type", "result"}, {"result", result}});
}

Status ResultSink::watch_peer() { return write({{"type", "watch_peer"}}); }

Status ResultSink::fail(const Status& status) {
  nlohmann::json message = child_error_message(status);
  message["type"] = "error";
  return write(message);
}

void set_session_child_entry(SessionChildEntry entry) { registered_entry() = std::move(entry); }

bool is_session_child_args(const std::vector<std::string>& args) {
  return !args.empty() && args[0] == kSessionChildArg;
}

Status session_child_main(const std::vector<std::string>& args) {
  pid_t parent = args.size() == 2 ? static_cast<pid_t>(std::atoi(args[1].c_str())) : 0;
  if (parent <= 0 || fcntl(kChildControlFd, F_GETFD) < 0 || fcntl(kChildLinkFd, F_GETFD) < 0) {
    return Status::usage(std::string("fabperf: ") + kSessionChildArg +
                         " is the server's own mode for running a session; it is not for use "
                         "from a shell");
  }
  fcntl(kChildControlFd, F_SETFD, FD_CLOEXEC);
  fcntl(kChildLinkFd, F_SETFD, FD_CLOEXEC);
  // A write to a closed connection is a failure to report, not a reason to die unannounced.
  signal(SIGPIPE, SIG_IGN);
  ResultSink sink(kChildLinkFd);
  if (Status s = arm_parent_death(parent); !s.ok()) {
    std::fprintf(stderr, "fabperf: %s\n", s.message().c_str());
    _exit(kChildExitParentGone);
  }
  auto request_json = read_request(kChildLinkFd);
  if (!request_json.ok()) setup_failed(sink, request_json.status());
  auto request = ChildRequest::from_json(*request_json);
  if (!request.ok()) setup_failed(sink, request.status());
  auto applied = apply_child_limits(request->limits);
  if (!applied.ok()) setup_failed(sink, applied.status());
  auto uid = drop_privileges(request->limits.run_as);
  if (!uid.ok()) setup_failed(sink, uid.status());
  if (Status s = arm_parent_death(parent); !s.ok()) _exit(kChildExitParentGone);
  // A parent that cannot read this learns how the child ended from its exit all the same.
  sink.write({{"type", "setup"},
              {"uid", *uid},
              {"gid", getgid()},
              {"limits", *applied},
              {"pid", getpid()}})
      .ignore_error();
  std::set_new_handler(on_out_of_memory);
  if (!registered_entry()) setup_failed(sink, Status::failed("this program has no session entry"));
  int code;
  try {
    code = registered_entry()(kChildControlFd, *request_json, sink);
  } catch (const std::bad_alloc&) {
    on_out_of_memory();
  } catch (const std::exception& e) {
    sink.fail(Status::failed(std::string("session process: ") + e.what())).ignore_error();
    code = 1;
  }
  sink.write({{"type", "end"}, {"exit", code}, {"vm_hwm_kib", vm_hwm_kib("/proc/self/status")}})
      .ignore_error();
  std::fflush(stdout);
  std::fflush(stderr);
  // A child process's own exit, with its entry's code (read by SessionChild in the parent).
  // _exit, not exit: a provider's destructors may block on a dead peer (security review D3);
  // the parent removes what the providers leave.
  _exit(code);
}

}  // namespace fabperf
