// spawn: fork and exec with everything the child does prepared before the fork (core/spawn.h).
#include "core/spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace fabperf {

namespace {

// The spec as the child reads it: plain pointers and arrays, nothing to allocate.
struct ChildPlan {
  const SpawnSpec* spec;
  char** argv;
  char** envp;
  const std::pair<int, int>* fds;
  int* moved;  // one per fd, where its source was moved (above every target)
  size_t fd_count;
  int lowest_free;  // above every target: where sources are moved first
  pid_t parent;
  int max_fd;  // for closing descriptors where close_range is missing
};

[[noreturn]] void child_failed(const ChildPlan& plan, int err, int fd) {
  if (plan.spec->on_failure != nullptr) plan.spec->on_failure(err, fd);
  _exit(plan.spec->exec_failed_exit);
}

// Where target failure_fd's descriptor is before the targets are placed.
int failure_source(const ChildPlan& plan) {
  for (size_t i = 0; i < plan.fd_count; ++i) {
    if (plan.fds[i].first == plan.spec->failure_fd) return plan.fds[i].second;
  }
  return plan.spec->failure_fd;
}

void default_signals() {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) sigaction(sig, &dfl, nullptr);
  }
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
}

// Moves every source above every target, then places each: a source that is another entry's
// target is not overwritten before it is read. The moved copies close at exec.
bool place_fds(const ChildPlan& plan) {
  for (size_t i = 0; i < plan.fd_count; ++i) {
    plan.moved[i] = fcntl(plan.fds[i].second, F_DUPFD_CLOEXEC, plan.lowest_free);
    if (plan.moved[i] < 0) return false;
  }
  for (size_t i = 0; i < plan.fd_count; ++i) {
    if (dup2(plan.moved[i], plan.fds[i].first) < 0) return false;
  }
  return true;
}

// The child, from fork to exec: only async-signal-safe calls.
[[noreturn]] void become_child(const ChildPlan& plan) {
  const SpawnSpec& spec = *plan.spec;
  if (spec.new_session) setsid();
  if (spec.new_process_group) setpgid(0, 0);
  if (spec.default_signals) default_signals();
  if (spec.die_with_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // kept across exec
    if (getppid() != plan.parent) _exit(spec.parent_gone_exit);
  }
  if (!place_fds(plan)) child_failed(plan, errno, failure_source(plan));
  if (spec.close_from >= 0 &&
      syscall(SYS_close_range, static_cast<unsigned>(spec.close_from), ~0U, 0) != 0) {
    for (int fd = spec.close_from; fd < plan.max_fd; ++fd) close(fd);
  }
  execve(spec.path.c_str(), plan.argv, plan.envp);
  child_failed(plan, errno, spec.failure_fd);
}

std::string errno_says(const std::string& what, int err) {
  return what + ": " + std::strerror(err);
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

Result<pid_t> spawn(const SpawnSpec& spec) {
  std::vector<std::string> args = spec.argv.empty() ? std::vector{spec.path} : spec.argv;
  std::vector<char*> argv = pointers(args);
  std::vector<std::string> env_strings = spec.env.value_or(std::vector<std::string>{});
  std::vector<char*> envp = pointers(env_strings);

  std::vector<std::pair<int, int>> fds = spec.fds;
  int null = -1;  // stdin, unless given: closed here once the child has its copy
  if (std::none_of(fds.begin(), fds.end(), [](const auto& f) { return f.first == 0; })) {
    null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0) return Status::failed(errno_says("spawn " + spec.path + ": /dev/null", errno));
    fds.emplace_back(0, null);
  }
  int lowest_free = 3;
  for (const auto& [target, source] : fds) lowest_free = std::max(lowest_free, target + 1);
  std::vector<int> moved(fds.size(), -1);
  rlimit nofile{};
  getrlimit(RLIMIT_NOFILE, &nofile);
  ChildPlan plan{
      &spec,       argv.data(),  spec.env.has_value() ? envp.data() : environ,
      fds.data(),  moved.data(), fds.size(),
      lowest_free, getpid(),     static_cast<int>(std::min<rlim_t>(nofile.rlim_cur, 65536))};

  // _Fork skips pthread_atfork handlers (libfabric's among them), which are not ours to run
  // in a child that only execs.
#if defined(__GLIBC__) && __GLIBC_PREREQ(2, 34)
  pid_t pid = _Fork();
#else
  pid_t pid = fork();
#endif
  const int fork_errno = errno;
  if (pid == 0) become_child(plan);
  if (null >= 0) close(null);
  if (pid < 0) return Status::failed(errno_says("spawn " + spec.path + ": fork", fork_errno));
  return pid;
}

}  // namespace fabperf
