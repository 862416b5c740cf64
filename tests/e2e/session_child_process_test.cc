// Session children among other processes: signals to the server's group, a server that dies,
// the unprivileged user, and the shm files a dead child leaves.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <thread>

#include "core/clock.h"
#include "core/spawn.h"
#include "e2e_util.h"
#include "net/shm_cleanup.h"
#include "session/session_child.h"
#include "session_child_util.h"

namespace fabperf {
namespace {

using testing::beside_fabperf;
using testing::gone;
using testing::stat_fields;
using testing::uid_line;
using testing::wait_until;

// The helper's --parent mode in a process group of its own, its stdout on a pipe.
struct HelperParent {
  HelperParent(const std::string& entry, double seconds) {
    int out[2];
    EXPECT_EQ(pipe2(out, O_CLOEXEC), 0);
    std::string exe = beside_fabperf("session_child_helper");
    std::string secs = std::to_string(seconds);
    SpawnSpec spec;
    spec.path = exe;
    spec.argv = {exe, "--parent", entry, secs};
    spec.new_process_group = true;
    spec.fds = {{1, out[1]}};
    auto spawned = spawn(spec);
    EXPECT_TRUE(spawned.ok()) << spawned.status().message();
    pid = spawned.ok() ? *spawned : -1;
    close(out[1]);
    stdout_fd = out[0];
  }
  ~HelperParent() {
    if (pid > 0) {
      kill(pid, SIGKILL);
      waitpid(pid, nullptr, 0);
    }
    close(stdout_fd);
  }
  // The next line it prints, within 60 s ("" when none came).
  std::string line() {
    std::string text;
    Deadline deadline = Deadline::after(60);
    char c;
    while (!deadline.expired()) {
      pollfd p{stdout_fd, POLLIN, 0};
      if (poll(&p, 1, deadline.remaining_ms()) <= 0 || read(stdout_fd, &c, 1) != 1) break;
      if (c == '\n') return text;
      text.push_back(c);
    }
    return text;
  }
  int exit_code() {
    int status = 0;
    waitpid(pid, &status, 0);
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  pid_t pid = -1;
  int stdout_fd = -1;
};

pid_t child_pid_from(const std::string& line) {
  return line.rfind("child ", 0) == 0 ? std::atoi(line.c_str() + 6) : -1;
}

// Its process group (field 5 of /proc/PID/stat).
pid_t process_group_of(pid_t pid) {
  auto fields = stat_fields(pid);
  return fields.size() > 2 ? std::atoi(fields[2].c_str()) : -1;
}

TEST(SessionChildProcessTest, SigintToTheServersGroupDoesNotReachTheChild) {
  HelperParent parent("wait", 20);  // the child waits 10 s, then reports and exits 0
  pid_t child = child_pid_from(parent.line());
  ASSERT_GT(child, 0);
  ASSERT_TRUE(wait_until([&] { return process_group_of(child) == child; }, 30))
      << "the child did not get a process group of its own";
  ASSERT_EQ(kill(-parent.pid, SIGINT), 0);  // what ^C on the server's terminal does
  auto outcome = nlohmann::json::parse(parent.line(), nullptr, false);
  ASSERT_TRUE(outcome.is_object());
  EXPECT_EQ(outcome["sigints"], 1);                  // the server's group got it...
  EXPECT_EQ(outcome["description"], "exit code 0");  // ...and the child ran on to its end
  EXPECT_EQ(outcome["result"]["told"], false);
  EXPECT_EQ(parent.exit_code(), 0);
}

TEST(SessionChildProcessTest, AKilledParentTakesTheChildWithIt) {
  HelperParent parent("spin", 600);
  pid_t child = child_pid_from(parent.line());
  ASSERT_GT(child, 0);
  ASSERT_TRUE(wait_until([&] { return process_group_of(child) == child; }, 30));
  kill(parent.pid, SIGKILL);
  EXPECT_EQ(parent.exit_code(), 128 + SIGKILL);
  EXPECT_TRUE(wait_until([&] { return gone(child); }, 30)) << "child " << child << " outlived";
}

TEST(SessionChildProcessTest, AsRootTheChildRunsAsNobody) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: only root can drop to another user";
  passwd* nobody = getpwnam("nobody");
  if (nobody == nullptr) GTEST_SKIP() << "no user nobody on this host";
  EXPECT_EQ(default_run_as(), "nobody");
  char path[] = "/tmp/fabperf_root_only_XXXXXX";
  int fd = mkstemp(path);  // root's, mode 0600
  ASSERT_GE(fd, 0);
  close(fd);
  int pair[2];
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
  ChildRequest request;
  request.test = "whoami";
  request.params = {{"path", path}};
  request.limits.run_as = "nobody";
  ChildOptions options;
  options.executable = beside_fabperf("session_child_helper");
  options.deadline_ns = now_ns() + int64_t{120'000'000'000};
  auto child = SessionChild::Start(pair[1], request, options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  std::string nobody_uid = std::to_string(nobody->pw_uid);
  std::string expected =
      "Uid:\t" + nobody_uid + "\t" + nobody_uid + "\t" + nobody_uid + "\t" + nobody_uid;
  EXPECT_TRUE(wait_until([&] { return uid_line((*child)->pid()) == expected; }, 30))
      << uid_line((*child)->pid());
  char go = 'x';
  EXPECT_EQ(write(pair[0], &go, 1), 1);
  ChildOutcome o = (*child)->Wait();
  unlink(path);
  close(pair[0]);
  close(pair[1]);
  ASSERT_TRUE(o.result.has_value()) << o.description;
  EXPECT_EQ((*o.result)["uid"], nobody->pw_uid);
  EXPECT_EQ((*o.result)["euid"], nobody->pw_uid);
  EXPECT_EQ((*o.result)["open_error"], "Permission denied");
  EXPECT_EQ((*o.result)["regained_root"], false);
  EXPECT_EQ(o.setup["uid"], nobody->pw_uid);
}

TEST(SessionChildProcessTest, RunAsIsCheckedInWords) {
  EXPECT_EQ(check_run_as("no_such_user_fabperf").message(),
            "--run_as no_such_user_fabperf: no such user on this host");
  EXPECT_TRUE(check_run_as("").ok());
  if (geteuid() == 0) {
    EXPECT_TRUE(check_run_as("nobody").ok());
  } else {
    EXPECT_EQ(check_run_as("root").message(),
              "--run_as root: only a server started as root can run sessions as another user");
    EXPECT_EQ(default_run_as(), "");
  }
}

// A decoy in /dev/shm that the cleanup must leave alone.
std::string make_file(const std::string& name, uid_t owner) {
  std::string path = "/dev/shm/" + name;
  int fd = open(path.c_str(), O_CREAT | O_WRONLY | O_TRUNC | O_CLOEXEC, 0600);
  EXPECT_GE(fd, 0) << path;
  if (fd >= 0) {
    if (owner != geteuid()) {
      EXPECT_EQ(fchown(fd, owner, -1), 0);
    }
    close(fd);
  }
  return path;
}

bool exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

TEST(SessionChildProcessTest, ShmFilesOfADeadChildAreRemovedAndOthersAreNot) {
  int pair[2];
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
  ChildRequest request;
  request.test = "shm";
  ChildOptions options;
  options.executable = beside_fabperf("session_child_helper");
  options.deadline_ns = now_ns() + int64_t{120'000'000'000};
  auto child = SessionChild::Start(pair[1], request, options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  pid_t pid = (*child)->pid();
  std::string me = std::to_string(geteuid());
  std::string p = std::to_string(pid);
  std::string own0 = "/dev/shm/" + p + ":" + me + ":0";
  ASSERT_TRUE(wait_until([&] { return exists(own0); }, 30));
  std::vector<std::string> decoys = {
      make_file(std::to_string(getpid()) + ":" + me + ":0", geteuid()),  // another pid's
      make_file(p + "0:" + me + ":0", geteuid()),                        // a longer pid
      make_file(p + ":" + me + ":0.bak", geteuid()),                     // not the pattern
  };
  if (geteuid() == 0) decoys.push_back(make_file(p + ":" + me + ":7", 65534));  // not its owner
  char go = 'x';
  EXPECT_EQ(write(pair[0], &go, 1), 1);
  ChildOutcome o = (*child)->Wait();
  close(pair[0]);
  close(pair[1]);
  EXPECT_EQ(o.exit_code, 0) << o.description;
  std::sort(o.shm_removed.begin(), o.shm_removed.end());
  EXPECT_EQ(o.shm_removed, (std::vector<std::string>{p + ":" + me + ":0", p + ":" + me + ":1"}));
  EXPECT_FALSE(exists(own0));
  for (const std::string& decoy : decoys) {
    EXPECT_TRUE(exists(decoy)) << decoy << " was removed";
    unlink(decoy.c_str());
  }
}

}  // namespace
}  // namespace fabperf
