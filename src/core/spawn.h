// Starting a program in a child process: the one fork-and-exec of fabperf and its tests (the
// server's session children, the test launchers). What the child does between fork and exec
// is prepared in the parent (argv, the environment, the descriptors to place), because the
// child of a multi-threaded parent may make only async-signal-safe calls until exec: another
// thread may have held malloc's lock at the fork.
//
// Forks that run fabperf's own code in the child without exec (the heatsink's workers, tests
// of what a forked peer holds) are not this: they need fork()'s atfork handlers, which leave
// malloc and libfabric usable in the child; spawn skips them (glibc's _Fork), as a child that
// only execs has no use for them.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/status.h"

namespace fabperf {

struct SpawnSpec {
  std::string path;               // the program, exec'd as given (no PATH search)
  std::vector<std::string> argv;  // argv[0] first; empty: {path}
  // The child's environment, "NAME=value" each; unset: this process's.
  std::optional<std::vector<std::string>> env;
  // Descriptors the child starts with, {target, source}: each source is placed at its
  // target (sources may themselves be targets: all are moved out of the way first). A target
  // not given keeps what the child inherits, but for stdin, which is /dev/null unless given.
  std::vector<std::pair<int, int>> fds;
  // Closes every descriptor from this one up once the targets are placed (-1: keeps them;
  // this process's descriptors marked close-on-exec go at exec either way).
  int close_from = -1;
  bool new_session = false;        // setsid(): no terminal's ^C to this group reaches it
  bool new_process_group = false;  // setpgid(0, 0): killable as a group
  // Every signal's disposition back to its default and none blocked (a server ignores
  // SIGPIPE and blocks SIGINT/SIGTERM for its signal thread; the child must not inherit that).
  bool default_signals = false;
  // Killed when this process dies (PR_SET_PDEATHSIG, SIGKILL); a child whose parent died
  // before it got there exits at once with parent_gone_exit.
  bool die_with_parent = false;
  int parent_gone_exit = 127;
  int exec_failed_exit = 127;  // as a shell says it
  // Told in the child, async-signal-safe, when placing a descriptor or exec fails: errno, and
  // where target failure_fd's descriptor is at that moment (its source before it was placed,
  // the target after). Then the child exits with exec_failed_exit.
  void (*on_failure)(int err, int fd) = nullptr;
  int failure_fd = -1;
};

// Forks and execs `spec`; the child's pid, or why not (the fork's errno: an exec that fails is
// the child's exec_failed_exit). The caller reaps it.
Result<pid_t> spawn(const SpawnSpec& spec);

}  // namespace fabperf
