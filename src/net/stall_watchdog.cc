// StallWatchdog: interrupts a blocking call on a socket that makes no progress in time.
#include "net/stall_watchdog.h"

#include <linux/sockios.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "core/clock.h"

namespace fabperf {

namespace {

// The signal that interrupts a stalled call: a real-time one nothing else here uses, with a
// handler that does nothing and no SA_RESTART, so the blocked system call returns EINTR.
int wake_signal() { return SIGRTMIN + 7; }

void install_wake_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    struct sigaction sa {};
    sa.sa_handler = [](int) {};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;
    sigaction(wake_signal(), &sa, nullptr);
  });
}

// Bytes still in the socket's send queue; a blocking send of a large message makes progress
// inside one call, and this is where it shows. -1 where the protocol does not say.
int64_t send_queue_bytes(int fd) {
  int queued = 0;
  return ioctl(fd, SIOCOUTQ, &queued) == 0 ? queued : -1;
}

}  // namespace

pid_t StallWatchdog::this_thread_id() {
  thread_local const pid_t id = static_cast<pid_t>(syscall(SYS_gettid));
  return id;
}

int64_t StallWatchdog::period_ns(int64_t limit_ns) {
  return std::max<int64_t>(limit_ns / 4, kMinPeriodNs);
}

StallWatchdog::StallWatchdog(int fd, double limit_s)
    : fd_(fd), limit_ns_(static_cast<int64_t>(limit_s * 1e9)) {
  install_wake_handler();
  thread_ = std::thread([this] { watch(); });
}

StallWatchdog::~StallWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StallWatchdog::set_limit(double limit_s) {
  // The thread may be asleep for a quarter of the old limit: it is woken to take the new one.
  limit_ns_.store(static_cast<int64_t>(limit_s * 1e9), std::memory_order_relaxed);
  {
    std::lock_guard<std::mutex> lock(mu_);
    new_limit_ = true;
  }
  wake_.notify_all();
}

double StallWatchdog::limit_s() const {
  return static_cast<double>(limit_ns_.load(std::memory_order_relaxed)) / 1e9;
}

void StallWatchdog::watch() {
  uint64_t last_calls = calls_.load(std::memory_order_relaxed);
  int64_t last_queue = send_queue_bytes(fd_);
  int64_t still_since = now_ns();
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    const int64_t limit = limit_ns_.load(std::memory_order_relaxed);
    const auto period = std::chrono::nanoseconds(period_ns(limit));
    if (wake_.wait_for(lock, period, [this] { return stop_ || new_limit_; })) {
      if (stop_) return;
      new_limit_ = false;
      continue;  // the next look comes a period of the new limit from now
    }
    int64_t now = now_ns();
    uint64_t calls = calls_.load(std::memory_order_relaxed);
    int64_t queue = send_queue_bytes(fd_);
    if (!busy_.load(std::memory_order_relaxed) || calls != last_calls || queue != last_queue) {
      still_since = now;  // between calls, or moving: not a stall
      last_calls = calls;
      last_queue = queue;
      continue;
    }
    if (now - still_since >= limit) {
      expired_.store(true, std::memory_order_release);
      syscall(SYS_tgkill, getpid(), owner_.load(std::memory_order_relaxed), wake_signal());
      still_since = now;  // the owner may wait again (a datagram ping-pong counts a loss)
    }
  }
}

}  // namespace fabperf
