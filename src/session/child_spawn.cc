// Starting a session child: fabperf exec'd in its hidden mode (core/spawn.h), with the control
// connection and its link as its only descriptors, and its request written to the link.
#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>

#include "core/clock.h"
#include "core/spawn.h"
#include "session/child_link.h"
#include "session/session_child.h"

namespace fabperf {

namespace {

// Async-signal-safe, in the child (SpawnSpec::on_failure): "{"type":"exec_failed","errno":N}\n"
// on its link, without printf.
void report_exec_failure(int err, int fd) {
  char line[64] = "{\"type\":\"exec_failed\",\"errno\":";
  size_t n = sizeof "{\"type\":\"exec_failed\",\"errno\":" - 1;
  char digits[12];
  int d = 0;
  do {
    digits[d++] = static_cast<char>('0' + err % 10);
    err /= 10;
  } while (err > 0 && d < 11);
  while (d > 0) line[n++] = digits[--d];
  line[n++] = '}';
  line[n++] = '\n';
  ssize_t ignored = write(fd, line, n);
  (void)ignored;
}

// Writes the whole request, or as much as the child takes within the timeout.
void send_request(int fd, const std::string& text) {
  Deadline deadline = Deadline::after(10);
  size_t done = 0;
  while (done < text.size() && !deadline.expired()) {
    ssize_t n = send(fd, text.data() + done, text.size() - done, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      done += static_cast<size_t>(n);
    } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
      pollfd p{fd, POLLOUT, 0};
      poll(&p, 1, deadline.remaining_ms());
    } else {
      break;  // the child is gone; Wait() says how
    }
  }
  shutdown(fd, SHUT_WR);  // end of request
}

}  // namespace

Result<std::unique_ptr<SessionChild>> SessionChild::Start(int control_fd,
                                                          const ChildRequest& request,
                                                          const ChildOptions& options) {
  if (fcntl(control_fd, F_GETFD) < 0)
    return Status::failed(errno_text("session child: control fd"));
  auto uid = child_uid_for(request.limits.run_as);
  if (!uid.ok()) return uid.status();
  std::string text = request.to_json().dump() + "\n";
  if (text.size() > kMaxLinkMessage) return Status::failed("session child: request too large");

  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
    return Status::failed(errno_text("session child: socketpair"));
  }
  Fd ours(pair[0]), theirs(pair[1]);

  SpawnSpec spec;
  spec.path = options.executable;
  spec.argv = {"fabperf", kSessionChildArg, std::to_string(getpid())};
  // The control connection and the link are its only descriptors, at fixed places.
  spec.fds = {{kChildControlFd, control_fd}, {kChildLinkFd, theirs.get()}};
  spec.close_from = kChildLinkFd + 1;
  // Its own session and process group: a terminal's ^C to the server's group never reaches it.
  spec.new_session = true;
  // Default dispositions (the server ignores SIGPIPE, handles SIGINT/SIGTERM) and no mask.
  spec.default_signals = true;
  // Never outlive the parent (kept across exec; re-armed by the child after its uid changes).
  spec.die_with_parent = true;
  spec.parent_gone_exit = kChildExitParentGone;
  spec.exec_failed_exit = kChildExitExecFailed;
  spec.on_failure = report_exec_failure;
  spec.failure_fd = kChildLinkFd;
  auto spawned = spawn(spec);
  if (!spawned.ok()) return Status::failed("session child: " + spawned.status().message());
  const pid_t pid = *spawned;
  theirs.reset();
  Fd pidfd(options.use_pidfd ? static_cast<int>(syscall(SYS_pidfd_open, pid, 0)) : -1);
  auto child = std::unique_ptr<SessionChild>(
      new SessionChild(pid, std::move(pidfd), std::move(ours), options, *uid));
  child->limits_ = request.limits;
  send_request(child->link_.get(), text);
  fcntl(child->link_.get(), F_SETFL, O_NONBLOCK);
  return child;
}

SessionChild::SessionChild(pid_t pid, Fd pidfd, Fd link, ChildOptions options, uint32_t child_uid)
    : pid_(pid),
      pidfd_(std::move(pidfd)),
      link_(std::move(link)),
      options_(std::move(options)),
      child_uid_(child_uid),
      started_ns_(now_ns()) {
  outcome_.pid = pid;
}

Result<ChildOutcome> run_session_child(int control_fd, const ChildRequest& request,
                                       const ChildOptions& options) {
  auto child = SessionChild::Start(control_fd, request, options);
  if (!child.ok()) return child.status();
  return (*child)->Wait();
}

}  // namespace fabperf
