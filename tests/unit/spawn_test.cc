// Unit tests: spawn (core/spawn.h), the one fork-and-exec: what the child starts with is what
// the spec says, and a failed exec is told and exits as said.
#include "core/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>

namespace fabperf {
namespace {

// Everything the child writes on `fd` until it closes it.
std::string drain(int fd) {
  std::string text;
  char buf[256];
  ssize_t n;
  while ((n = read(fd, buf, sizeof buf)) > 0) text.append(buf, static_cast<size_t>(n));
  close(fd);
  return text;
}

int reap(pid_t pid) {
  int status = 0;
  EXPECT_EQ(waitpid(pid, &status, 0), pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

SpawnSpec shell(const std::string& script) {
  SpawnSpec spec;
  spec.path = "/bin/sh";
  spec.argv = {"sh", "-c", script};
  return spec;
}

// Runs `spec` with its stdout on a pipe: (exit status, what it printed).
std::pair<int, std::string> run(SpawnSpec spec) {
  int out[2];
  EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
  spec.fds.emplace_back(1, out[1]);
  auto pid = spawn(spec);
  close(out[1]);
  EXPECT_TRUE(pid.ok()) << pid.status().message();
  if (!pid.ok()) {
    close(out[0]);
    return {-1, ""};
  }
  std::string text = drain(out[0]);
  return {reap(*pid), text};
}

TEST(Spawn, StdoutAndStderrGoWhereTheSpecPlacesThemAndStdinIsDevNull) {
  int err[2];
  ASSERT_EQ(pipe2(err, O_CLOEXEC), 0);
  SpawnSpec spec = shell("echo out; echo err >&2; readlink /proc/self/fd/0");
  spec.fds = {{2, err[1]}};
  auto [code, out] = run(spec);
  close(err[1]);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(out, "out\n/dev/null\n");
  EXPECT_EQ(drain(err[0]), "err\n");
}

// Two descriptors swapped: each source is read before the other's target overwrites it.
// (8 and 9: the shell redirects single-digit descriptors only.)
TEST(Spawn, SwappedDescriptorsEachReachTheirTarget) {
  if (fcntl(8, F_GETFD) >= 0 || fcntl(9, F_GETFD) >= 0) GTEST_SKIP() << "8 or 9 is in use here";
  int a[2], b[2];
  ASSERT_EQ(pipe2(a, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(b, O_CLOEXEC), 0);
  ASSERT_EQ(dup3(a[1], 8, O_CLOEXEC), 8);
  ASSERT_EQ(dup3(b[1], 9, O_CLOEXEC), 9);
  close(a[1]);
  close(b[1]);
  SpawnSpec spec = shell("echo to8 >&8; echo to9 >&9");
  spec.fds = {{8, 9}, {9, 8}};
  auto [code, out] = run(spec);
  close(8);
  close(9);
  EXPECT_EQ(code, 0);
  EXPECT_EQ(drain(a[0]), "to9\n");  // pipe a was at 8: the child's 9
  EXPECT_EQ(drain(b[0]), "to8\n");
}

TEST(Spawn, CloseFromClosesEveryInheritedDescriptorAboveIt) {
  ASSERT_EQ(dup2(2, 217), 217);  // inheritable: no close-on-exec
  SpawnSpec keep = shell("[ -e /proc/self/fd/217 ] && echo open || echo closed");
  EXPECT_EQ(run(keep).second, "open\n");
  SpawnSpec closing = keep;
  closing.close_from = 3;
  EXPECT_EQ(run(closing).second, "closed\n");
  close(217);
}

TEST(Spawn, TheEnvironmentIsTheSpecsWhereGiven) {
  setenv("FABPERF_SPAWN_INHERITED", "inherited", 1);
  SpawnSpec spec = shell("echo \"$FABPERF_SPAWN_INHERITED:$FABPERF_SPAWN_GIVEN\"");
  EXPECT_EQ(run(spec).second, "inherited:\n");
  spec.env = std::vector<std::string>{"FABPERF_SPAWN_GIVEN=given"};
  EXPECT_EQ(run(spec).second, ":given\n");
  unsetenv("FABPERF_SPAWN_INHERITED");
}

// The failure is told in the child, on the failure descriptor, and it exits as said.
TEST(Spawn, AFailedExecIsToldAndExitsWithItsStatus) {
  int link[2];
  ASSERT_EQ(pipe2(link, O_CLOEXEC), 0);
  SpawnSpec spec;
  spec.path = "/nonexistent/fabperf-spawn-test";
  spec.fds = {{5, link[1]}};
  spec.failure_fd = 5;
  spec.exec_failed_exit = 99;
  spec.on_failure = [](int err, int fd) {
    const char byte = static_cast<char>(err);
    ssize_t ignored = write(fd, &byte, 1);
    (void)ignored;
  };
  auto pid = spawn(spec);
  close(link[1]);
  ASSERT_TRUE(pid.ok()) << pid.status().message();
  const std::string told = drain(link[0]);
  EXPECT_EQ(reap(*pid), 99);
  ASSERT_EQ(told.size(), 1u);
  EXPECT_EQ(told[0], static_cast<char>(ENOENT));
}

TEST(Spawn, DefaultSignalsUndoWhatTheParentIgnores) {
  struct sigaction ign {
  }, old{};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  ASSERT_EQ(sigaction(SIGUSR2, &ign, &old), 0);
  // SIGUSR2 is signal 12: bit 0x800 of SigIgn.
  SpawnSpec spec = shell("grep SigIgn /proc/self/status");
  const std::string inherited = run(spec).second;
  spec.default_signals = true;
  const std::string defaulted = run(spec).second;
  sigaction(SIGUSR2, &old, nullptr);
  auto usr2_ignored = [](const std::string& line) {
    return (std::stoull(line.substr(line.find(':') + 1), nullptr, 16) & 0x800) != 0;
  };
  ASSERT_FALSE(inherited.empty());
  ASSERT_FALSE(defaulted.empty());
  EXPECT_TRUE(usr2_ignored(inherited)) << inherited;
  EXPECT_FALSE(usr2_ignored(defaulted)) << defaulted;
}

TEST(Spawn, ANewProcessGroupIsTheChildsOwn) {
  int gate[2];
  ASSERT_EQ(pipe2(gate, O_CLOEXEC), 0);
  SpawnSpec spec = shell("read x");
  spec.fds = {{0, gate[0]}};
  spec.new_process_group = true;
  auto pid = spawn(spec);
  close(gate[0]);
  ASSERT_TRUE(pid.ok());
  // The child sets its group before exec; the parent waits until it has.
  pid_t group = -1;
  for (int i = 0; i < 5000 && (group = getpgid(*pid)) != *pid; ++i) usleep(1000);
  close(gate[1]);  // end of its stdin: it exits
  EXPECT_EQ(group, *pid);
  EXPECT_EQ(reap(*pid), 1);  // read at end of input
}

}  // namespace
}  // namespace fabperf
