// Starting a session child: fork + exec of fabperf in its hidden mode, with the control
// connection as its only inherited descriptor, and its request written to its link.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "core/clock.h"
#include "session/child_link.h"
#include "session/session_child.h"

extern char** environ;

namespace fabperf {

namespace {

// Everything the child needs after fork, prepared before it: in a multi-threaded parent the
// child may only make async-signal-safe calls until exec (another thread may hold malloc's lock).
struct ExecPlan {
  const char* path;
  char** argv;
  char** envp;
  int control_fd;
  int link_fd;
  int null_fd;
  pid_t parent;
  int max_fd;  // for closing descriptors where close_range is missing
};

// Async-signal-safe: "{"type":"exec_failed","errno":N}\n" without printf.
void report_exec_failure(int fd, int err) {
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

[[noreturn]] void become_child(const ExecPlan& plan) {
  // Its own session and process group: a terminal's ^C to the server's group never reaches it.
  setsid();
  // Default dispositions (the server ignores SIGPIPE, handles SIGINT/SIGTERM) and no mask.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  // Never outlive the parent (kept across exec; re-armed by the child after its uid changes).
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != plan.parent) _exit(kChildExitParentGone);
  // Move the three descriptors above any target before placing them, then close the rest.
  int control = fcntl(plan.control_fd, F_DUPFD, 16);
  int link = fcntl(plan.link_fd, F_DUPFD, 16);
  int null = fcntl(plan.null_fd, F_DUPFD, 16);
  if (control < 0 || link < 0 || null < 0 || dup2(null, 0) < 0 ||
      dup2(control, kChildControlFd) < 0 || dup2(link, kChildLinkFd) < 0) {
    report_exec_failure(plan.link_fd, errno);
    _exit(kChildExitExecFailed);
  }
  if (syscall(SYS_close_range, kChildLinkFd + 1, ~0U, 0) != 0) {
    for (int fd = kChildLinkFd + 1; fd < plan.max_fd; ++fd) close(fd);
  }
  execve(plan.path, plan.argv, plan.envp);
  report_exec_failure(kChildLinkFd, errno);
  _exit(kChildExitExecFailed);
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
  Fd null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null.valid()) return Status::failed(errno_text("session child: /dev/null"));

  std::string parent = std::to_string(getpid());
  std::vector<std::string> args = {"fabperf", kSessionChildArg, parent};
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  ExecPlan plan{options.executable.c_str(),
                argv.data(),
                environ,
                control_fd,
                theirs.get(),
                null.get(),
                getpid(),
                static_cast<int>(nofile.rlim_cur > 65536 ? 65536 : nofile.rlim_cur)};

  // _Fork skips pthread_atfork handlers (libfabric's among them), which are not ours to run.
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
  pid_t pid = _Fork();
#else
  pid_t pid = fork();
#endif
  if (pid < 0) return Status::failed(errno_text("session child: fork"));
  if (pid == 0) become_child(plan);
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
