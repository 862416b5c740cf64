// The watch on a thread stuck inside one call (engine/stuck_call_watch.h): it takes over once a
// call has not returned for its limit, and never while calls come and go or none is under way.
#include "engine/stuck_call_watch.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/clock.h"
#include "socket_pair.h"
#include "thread_tables.h"

namespace fabperf {
namespace {

// Waits (polling, up to `limit_s`) until `flag` is set; false at the deadline.
bool wait_until(const std::atomic<bool>& flag, double limit_s) {
  const int64_t end = now_ns() + static_cast<int64_t>(limit_s * 1e9);
  while (!flag.load()) {
    if (now_ns() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

TEST(StuckCallWatch, TakesOverACallThatNeverReturnsAndHoldsItsOwnerUntilDone) {
  std::atomic<bool> stuck{false};
  std::atomic<bool> left{false};
  StuckCallWatch watch(0.2, [&] {
    stuck = true;
    // The owner, should its call return now, waits until this is over.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    EXPECT_FALSE(left.load());
  });
  watch.enter();
  // Generous: the limit is 0.2 s, the watch looks every 0.1 s, and a loaded host is slow.
  ASSERT_TRUE(wait_until(stuck, 30.0)) << "the watch never took over a call stuck for good";
  watch.leave();  // returns once on_stuck is over
  left = true;
}

// The test hook (FABPERF_TEST_STUCK_CALL_AFTER): after the calls it names have returned, the
// owner spins inside the next one for good, and the watch takes that over like any stuck call.
// In a child process, whose on_stuck ends it (as the client's does): the spinning thread never
// comes back.
TEST(StuckCallWatch, TheTestHookSpinsInsideACallOnceItsCountHasReturned) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    StuckCallWatch watch(0.2, [] { _exit(7); });
    watch.spin_inside_call_after(3);
    for (int call = 0; call < 3; ++call) {
      watch.enter();
      watch.leave();  // the third never returns
    }
    _exit(1);  // not reached: the hook did not spin
  }
  int status = 0;
  const int64_t end = now_ns() + 30'000'000'000;  // generous on a loaded host
  pid_t done = 0;
  while ((done = waitpid(child, &status, WNOHANG)) == 0 && now_ns() < end) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  if (done == 0) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    FAIL() << "the watch never took over the hook's spin";
  }
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 7) << "1: the hook let the owner go on";
}

TEST(StuckCallWatch, CallsThatKeepReturningAreNeverTakenOver) {
  std::atomic<bool> stuck{false};
  {
    StuckCallWatch watch(0.5, [&] { stuck = true; });
    const int64_t end = now_ns() + 1'500'000'000;
    uint64_t calls = 0;
    while (now_ns() < end) {
      watch.enter();
      watch.leave();
      ++calls;
    }
    EXPECT_GT(calls, 1000u);
  }  // the watch stops here: what it decided is decided
  EXPECT_FALSE(stuck.load()) << "a thread whose calls all returned was taken for stuck";
}

TEST(StuckCallWatch, AnOwnerOutsideAnyCallIsNeverTakenOver) {
  std::atomic<bool> stuck{false};
  {
    StuckCallWatch watch(0.2, [&] { stuck = true; });
    watch.enter();
    watch.leave();
    std::this_thread::sleep_for(std::chrono::milliseconds(800));  // 4 limits, nothing inside
  }
  EXPECT_FALSE(stuck.load()) << "an owner between calls was taken for stuck";
}

// The owner (a fabric client's loop) is alone on its descriptor table while the watch runs,
// so its calls borrow their files; the watch keeps what was open when it began (on_stuck
// writes the run's results through it).
TEST(StuckCallWatch, ItsThreadLeavesTheOwnersDescriptorTable) {
  SocketPair before;
  const std::set<pid_t> threads = process_threads();
  StuckCallWatch watch(60, [] {});
  const pid_t watcher = new_thread(threads, process_threads());
  ASSERT_NE(watcher, -1) << "the watch's thread was not found";
  SocketPair after;
  EXPECT_TRUE(open_in_thread(watcher, before.a));
  EXPECT_FALSE(open_in_thread(watcher, after.a)) << "the watch shares its owner's table";
  EXPECT_TRUE(open_in_thread(static_cast<pid_t>(gettid()), after.a));
}

}  // namespace
}  // namespace fabperf
