// Session children (src/session/): deadlines, limits and the words for each way a child ends,
// with the stand-in entries of tests/session_child_helper/session_child_helper.cc.
#include "session/session_child.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <set>

#include "core/clock.h"
#include "e2e_util.h"
#include "net/shm_cleanup.h"
#include "security/limits.h"
#include "session/child_link.h"

namespace fabperf {
namespace {

using testing::beside_fabperf;
using testing::contains;

// A control connection for the child: ours is the other end, kept open so the child's reads
// block until we write or close.
struct ControlPair {
  ControlPair() {
    int fds[2];
    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds);
    ours.reset(fds[0]);
    theirs.reset(fds[1]);
  }
  Fd ours, theirs;
};

ChildOptions options_with_deadline(double seconds) {
  ChildOptions options;
  options.executable = beside_fabperf("session_child_helper");
  options.deadline_ns = now_ns() + static_cast<int64_t>(seconds * 1e9);
  options.deadline_span_s = seconds;
  return options;
}

ChildRequest request_for(const std::string& entry,
                         nlohmann::json params = nlohmann::json::object()) {
  ChildRequest request;
  request.test = entry;
  request.params = std::move(params);
  request.timeout_s = 7;
  return request;
}

ChildOutcome run(const std::string& entry, nlohmann::json params = nlohmann::json::object(),
                 double deadline_s = 120, ChildLimits limits = {}) {
  ControlPair control;
  ChildRequest request = request_for(entry, std::move(params));
  request.limits = limits;
  auto outcome =
      run_session_child(control.theirs.get(), request, options_with_deadline(deadline_s));
  EXPECT_TRUE(outcome.ok()) << outcome.status().message();
  return outcome.ok() ? *outcome : ChildOutcome{};
}

bool has_effective_capability(int cap) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("CapEff:", 0) == 0) return (std::stoull(line.substr(7), nullptr, 16) >> cap) & 1;
  }
  return false;
}

TEST(SessionChildTest, RequestSurvivesTheLink) {
  ChildRequest request = request_for("rdm_write_bw", {{"msg_size", 65536}, {"provider", "shm"}});
  request.limits = child_limits_for(uint64_t{64} << 20, 30, "nobody");
  auto back = ChildRequest::from_json(request.to_json());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->test, "rdm_write_bw");
  EXPECT_EQ(back->params, request.params);
  EXPECT_EQ(back->timeout_s, 7);
  EXPECT_EQ(back->limits.memory_bytes, (uint64_t{64} << 20) + kChildBaseMemory);
  EXPECT_EQ(back->limits.open_files, kChildOpenFiles);
  EXPECT_EQ(back->limits.cpu_seconds, 70u);
  EXPECT_EQ(back->limits.run_as, "nobody");
  EXPECT_FALSE(ChildRequest::from_json({{"params", {}}}).ok());
  EXPECT_FALSE(ChildRequest::from_json("text").ok());
}

TEST(SessionChildTest, ChildErrorsKeepTheirCodeAndNeverBecomeOk) {
  Status back = status_from_child(child_error_message(Status::timeout("no completion")));
  EXPECT_EQ(back.code(), Code::kTimeout);
  EXPECT_EQ(back.message(), "no completion");
  EXPECT_EQ(status_from_child({{"code", 0}, {"message", "odd"}}).code(), Code::kFailed);
  EXPECT_EQ(status_from_child({{"code", 99}}).message(), "(no message)");
}

TEST(SessionChildTest, StatsComeBackIntact) {
  nlohmann::json params = {{"msg_size", 1048576},
                           {"name", "x\"y\n\u00e9\u2603"},
                           {"nested", {{"list", {1, 2.5, -3, true, nullptr}}}},
                           {"big", uint64_t{18446744073709551615u}}};
  ChildOutcome o = run("echo", params);
  EXPECT_EQ(o.end, ChildOutcome::End::kExited);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.description, "exit code 0");
  EXPECT_TRUE(o.status().ok());
  ASSERT_TRUE(o.result.has_value());
  EXPECT_EQ((*o.result)["params"], params);
  EXPECT_EQ((*o.result)["timeout_s"], 7);
  EXPECT_EQ(o.setup["pid"], o.pid);
  EXPECT_GT(o.peak_rss_bytes, 0u);  // its own last report
}

TEST(SessionChildTest, KilledAtTheDeadlineWhileSpinning) {
  ChildOutcome o = run("spin", {}, 1);
  EXPECT_EQ(o.end, ChildOutcome::End::kKilledAtDeadline);
  EXPECT_EQ(o.signal, SIGKILL);
  EXPECT_EQ(o.description, "killed at the server's deadline of 1 s");
  EXPECT_EQ(o.status().code(), Code::kTimeout);
  EXPECT_EQ(o.status().message(), "session process killed at the server's deadline of 1 s");
  EXPECT_GE(o.wall_s, 0.9);
}

TEST(SessionChildTest, WithoutAPidfdTheEndIsFoundByPolling) {
  ControlPair control;
  ChildOptions options = options_with_deadline(1);
  options.use_pidfd = false;
  auto spin = run_session_child(control.theirs.get(), request_for("spin"), options);
  ASSERT_TRUE(spin.ok());
  EXPECT_EQ(spin->description, "killed at the server's deadline of 1 s");
  options = options_with_deadline(120);
  options.use_pidfd = false;
  auto echo = run_session_child(control.theirs.get(), request_for("echo", {{"a", 1}}), options);
  ASSERT_TRUE(echo.ok());
  EXPECT_EQ(echo->description, "exit code 0");
  ASSERT_TRUE(echo->result.has_value());
  EXPECT_EQ((*echo->result)["params"]["a"], 1);
}

TEST(SessionChildTest, KilledAtTheDeadlineWhileBlocked) {
  ChildOutcome o = run("block", {}, 1.5);
  EXPECT_EQ(o.end, ChildOutcome::End::kKilledAtDeadline);
  EXPECT_EQ(o.description, "killed at the server's deadline of 1.5 s");
}

TEST(SessionChildTest, CancelGivesGraceThenKills) {
  ControlPair control;
  std::atomic<bool> cancel{false};
  ChildOptions options = options_with_deadline(120);
  options.cancel = &cancel;
  options.cancel_grace_s = 0.5;
  auto child = SessionChild::Start(control.theirs.get(), request_for("spin"), options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  cancel.store(true);
  ChildOutcome o = (*child)->Wait();
  EXPECT_EQ(o.end, ChildOutcome::End::kKilledOnCancel);
  EXPECT_EQ(o.description, "killed: it did not end within 0.5 s of being told to stop");
  EXPECT_LT(o.wall_s, 60);
}

TEST(SessionChildTest, AClientHangingUpEndsASpinningChild) {
  ControlPair control;
  ChildOptions options = options_with_deadline(120);
  options.hangup_fd = control.theirs.get();
  options.cancel_grace_s = 0.5;
  auto child = SessionChild::Start(control.theirs.get(), request_for("spin"), options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  control.ours.reset();  // the client dies
  ChildOutcome o = (*child)->Wait();
  EXPECT_EQ(o.end, ChildOutcome::End::kKilledOnCancel);
  EXPECT_EQ(o.description, "killed: it did not end within 0.5 s of its client hanging up");
  EXPECT_LT(o.wall_s, 60);
}

TEST(SessionChildTest, ACancelledChildThatEndsInTimeIsNotKilled) {
  ControlPair control;
  std::atomic<bool> cancel{false};
  ChildOptions options = options_with_deadline(120);
  options.cancel = &cancel;
  options.cancel_grace_s = 60;
  auto child = SessionChild::Start(control.theirs.get(), request_for("wait"), options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  cancel.store(true);
  control.ours.reset();  // what the server's supervisor does: shut the connection
  ChildOutcome o = (*child)->Wait();
  EXPECT_EQ(o.end, ChildOutcome::End::kExited) << o.description;
  ASSERT_TRUE(o.result.has_value());
  EXPECT_EQ((*o.result)["told"], true);
}

TEST(SessionChildTest, EveryEndIsSaidInWords) {
  ChildOutcome crash = run("crash");
  EXPECT_EQ(crash.end, ChildOutcome::End::kSignaled);
  EXPECT_EQ(crash.description, "killed by signal 6 (Aborted)");
  ChildOutcome code = run("exit", {{"code", 3}});
  EXPECT_EQ(code.description, "exit code 3");
  EXPECT_EQ(code.status().message(), "session process exit code 3");
  ChildOutcome failed = run("fail");
  EXPECT_EQ(failed.exit_code, 1);
  EXPECT_EQ(failed.status().message(), "stand-in failure: the peer went away");
}

TEST(SessionChildTest, AMissingExecutableIsSaidInWords) {
  ControlPair control;
  ChildOptions options = options_with_deadline(60);
  options.executable = "/nonexistent/fabperf";
  auto o = run_session_child(control.theirs.get(), request_for("echo"), options);
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->exit_code, kChildExitExecFailed);
  EXPECT_EQ(o->description,
            "could not be started: /nonexistent/fabperf: No such file or directory");
}

TEST(SessionChildTest, AnUnknownUserIsRefusedBeforeForking) {
  ControlPair control;
  ChildRequest request = request_for("echo");
  request.limits.run_as = "no_such_user_fabperf";
  auto o = run_session_child(control.theirs.get(), request, options_with_deadline(60));
  ASSERT_FALSE(o.ok());
  EXPECT_EQ(o.status().message(), "--run_as no_such_user_fabperf: no such user on this host");
}

TEST(SessionChildTest, OnlyStdioTheControlConnectionAndTheLinkAreInherited) {
  // No O_CLOEXEC, and numbered above what the child opens itself: it must be closed anyway.
  int null = open("/dev/null", O_RDONLY);
  int leak = fcntl(null, F_DUPFD, 100);
  close(null);
  ChildOutcome o = run("list_fds");
  close(leak);
  ASSERT_TRUE(o.result.has_value()) << o.description;
  std::set<int> fds = (*o.result)["fds"].get<std::set<int>>();
  // 0-2, the control connection (3), the link (4), and the directory being listed.
  EXPECT_EQ(fds.size(), 6u) << (*o.result)["fds"].dump();
  for (int fd : {0, 1, 2, kChildControlFd, kChildLinkFd}) EXPECT_TRUE(fds.count(fd)) << fd;
  EXPECT_FALSE(fds.count(leak));
}

TEST(SessionChildTest, TheDescriptorLimitHolds) {
  ChildLimits limits;
  limits.open_files = 32;
  ChildOutcome o = run("fds", {}, 120, limits);
  ASSERT_TRUE(o.result.has_value()) << o.description;
  EXPECT_EQ((*o.result)["opened"], 32 - 5);  // 0-4 are taken
  EXPECT_EQ((*o.result)["error"], "Too many open files");
  EXPECT_EQ(o.setup["limits"]["open_files"], 32);
}

TEST(SessionChildTest, AnAllocationBeyondTheMemoryLimitEndsTheChild) {
  ChildLimits limits;
  limits.memory_bytes = uint64_t{96} << 20;
  if (!memory_limit_supported()) {
    ChildOutcome o = run("echo", {}, 120, limits);
    EXPECT_EQ(o.setup["limits"]["memory"], kMemoryLimitSkipped);
    GTEST_SKIP() << "memory limit not applied: " << kMemoryLimitSkipped;
  }
  ChildOutcome o = run("alloc", {{"mib", 512}}, 120, limits);
  EXPECT_EQ(o.end, ChildOutcome::End::kOutOfMemory);
  EXPECT_EQ(o.exit_code, kChildExitOutOfMemory);
  EXPECT_EQ(o.description, "ran out of memory: over its 96M limit");
  EXPECT_EQ(o.setup["limits"]["memory"], "RLIMIT_DATA 96M");
  // Locked memory follows the limit, up to the hard limit where we may not raise it
  // (CAP_SYS_RESOURCE, which some containers withhold even from root).
  rlimit locked{};
  getrlimit(RLIMIT_MEMLOCK, &locked);
  bool may_raise = has_effective_capability(24);  // CAP_SYS_RESOURCE
  std::string expected =
      may_raise || locked.rlim_max >= limits.memory_bytes ? "96M" : size_text(locked.rlim_max);
  EXPECT_EQ(o.setup["limits"]["locked_memory"], expected);
  EXPECT_FALSE(o.result.has_value());
  // A failure the child reports itself names the limit too.
  ChildOutcome mapped = run("mmap", {{"mib", 512}}, 120, limits);
  EXPECT_EQ(mapped.status().message(),
            "mmap of 536870912 bytes failed: Cannot allocate memory (the session process's "
            "memory limit is 96M)");
  // Within the limit the same entry runs.
  ChildOutcome fits = run("alloc", {{"mib", 32}}, 120, limits);
  EXPECT_EQ(fits.end, ChildOutcome::End::kExited) << fits.description;
}

TEST(SessionChildTest, TheCpuLimitEndsAChildThatSpins) {
  ChildLimits limits;
  limits.cpu_seconds = 1;
  ChildOutcome o = run("spin", {}, 120, limits);
  EXPECT_EQ(o.end, ChildOutcome::End::kCpuLimit) << o.description;
  EXPECT_EQ(o.description, "used up its CPU time limit of 1 s");
}

TEST(SessionChildTest, PeakResidentMemoryIsMeasured) {
  ChildOutcome o = run("alloc", {{"mib", 200}});
  EXPECT_GE(o.peak_rss_bytes, uint64_t{200} << 20);
  EXPECT_LT(o.peak_rss_bytes, uint64_t{400} << 20);
  // A child killed at the deadline cannot report; the parent's samples still saw the peak.
  ChildOutcome killed = run("alloc", {{"mib", 200}, {"then_spin", true}}, 3);
  EXPECT_EQ(killed.end, ChildOutcome::End::kKilledAtDeadline);
  ASSERT_TRUE(killed.result.has_value());  // sent before it spun: delivered all the same
  EXPECT_GE(killed.peak_rss_bytes, uint64_t{200} << 20);
}

TEST(SessionChildTest, ShmRegionNamesAreTiedToOnePidAndUid) {
  EXPECT_TRUE(is_shm_region_of("1234:0:0", 1234, 0));
  EXPECT_TRUE(is_shm_region_of("1234:65534:12", 1234, 65534));
  EXPECT_FALSE(is_shm_region_of("12345:0:0", 1234, 0));
  EXPECT_FALSE(is_shm_region_of("1234:0:", 1234, 0));
  EXPECT_FALSE(is_shm_region_of("1234:0:0x", 1234, 0));
  EXPECT_FALSE(is_shm_region_of("1234:1000:0", 1234, 0));
  EXPECT_FALSE(is_shm_region_of("127.0.0.1:0:0", 127, 0));
  EXPECT_FALSE(is_shm_region_of("x1234:0:0", 1234, 0));
}

}  // namespace
}  // namespace fabperf
