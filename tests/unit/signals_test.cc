// Unit tests: the signal thread (core/signals.h). While a SignalsOffTable lives, the thread that
// takes SIGINT and SIGTERM is off the caller's descriptor table (a fabric client's loop is then
// alone on it) and still takes the signals; afterwards it shares the table again. Each test
// runs in a child process of its own: the signal thread and its mask are the whole process's.
#include "core/signals.h"

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

// Each step a child can fail at, as its exit status.
enum Step : int {
  kPassed = 0,
  kNoSignalThread = 10,
  kFirstSharesNothing,
  kNoReplacement,
  kReplacementSharesTheTable,
  kReplacementMissesWhatWasOpen,
  kSignalNotTaken,
  kNoThreadAfter,
  kAfterDoesNotShare,
};

bool wait_for(const std::atomic<bool>& flag) {
  const int64_t end = now_ns() + 30'000'000'000;  // generous: a loaded host is slow
  while (!flag.load()) {
    if (now_ns() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return true;
}

int off_table_run() {
  SocketPair before;
  const std::set<pid_t> alone = process_threads();
  start_signal_thread();
  const std::set<pid_t> with_first = process_threads();
  const pid_t first = new_thread(alone, with_first);
  if (first == -1) return kNoSignalThread;
  SocketPair opened;
  if (!open_in_thread(first, opened.a)) return kFirstSharesNothing;
  static std::atomic<bool> ran{false};
  add_stop_callback([] { ran = true; });
  {
    SignalsOffTable off;
    std::set<pid_t> now = process_threads();
    now.erase(first);  // retired and joined; its entry may linger a moment
    const pid_t second = new_thread(alone, now);
    if (second == -1) return kNoReplacement;
    SocketPair later;
    if (open_in_thread(second, later.a)) return kReplacementSharesTheTable;
    if (!open_in_thread(second, before.a)) return kReplacementMissesWhatWasOpen;
    kill(getpid(), SIGTERM);
    if (!wait_for(stop_flag()) || !wait_for(ran)) return kSignalNotTaken;
  }
  std::set<pid_t> after = process_threads();
  SocketPair last;
  for (pid_t t : after) {
    if (alone.count(t) != 0 || t == first) continue;
    if (!open_in_thread(t, last.a)) continue;
    return kPassed;  // a signal thread back on the table
  }
  return after.size() > alone.size() ? kAfterDoesNotShare : kNoThreadAfter;
}

TEST(Signals, OffTableTheSignalThreadLeavesTheTableAndStillTakesSignals) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(_exit(off_table_run()), testing::ExitedWithCode(kPassed), "");
}

// Without start_signal_thread (a library user, a test), the scope changes nothing.
TEST(Signals, OffTableWithoutASignalThreadDoesNothing) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        const std::set<pid_t> alone = process_threads();
        { SignalsOffTable off; }
        _exit(process_threads() == alone ? 0 : 1);
      },
      testing::ExitedWithCode(0), "");
}

// A worker forked from a process with a signal thread (fab_heatsink_check's) has none: its
// scope neither retires the parent's thread nor waits for it (it hung there once).
TEST(Signals, OffTableInAForkedChildDoesNotWaitForItsParentsThread) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        start_signal_thread();
        pid_t child = fork();
        if (child == 0) {
          { SignalsOffTable off; }
          _exit(0);
        }
        const int64_t end = now_ns() + 30'000'000'000;
        int status = 0;
        while (waitpid(child, &status, WNOHANG) == 0) {
          if (now_ns() > end) {
            kill(child, SIGKILL);
            _exit(2);
          }
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 3);
      },
      testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace fabperf
