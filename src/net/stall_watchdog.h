// StallWatchdog: a deadline on blocking socket calls without a kernel timer on every call.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>

namespace fabperf {

// SO_RCVTIMEO/SO_SNDTIMEO arm and cancel a kernel timer on every blocking wait, which costs a
// loopback ping-pong 2-5% of its round trip on a small VM. A watchdog thread instead looks, a
// few times per limit, at whether the owner is inside a blocking call that has made no
// progress (no call finished, no byte left the send queue) for the whole limit; then it
// interrupts that call with a signal (EINTR), and take_expiry() tells the owner why.
// The owner brackets each blocking call with enter()/leave(): relaxed stores, no clock read;
// several calls in a row may share one bracket, each counted with finished_call().
// Each look wakes the thread, which preempts whatever runs on its CPU (the measuring thread,
// under taskset): looks 40 times a second cost a 1-byte udp_bw 1.5-2% (bench/README.md), so
// the thread looks no more often than kMinPeriodNs.
class StallWatchdog {
 public:
  StallWatchdog(int fd, double limit_s);
  ~StallWatchdog();
  StallWatchdog(const StallWatchdog&) = delete;
  StallWatchdog& operator=(const StallWatchdog&) = delete;

  void enter() {
    owner_.store(this_thread_id(), std::memory_order_relaxed);
    expired_.store(false, std::memory_order_relaxed);
    calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    busy_.store(true, std::memory_order_relaxed);
  }
  void leave() { busy_.store(false, std::memory_order_relaxed); }
  // Between enter() and leave(), one call of several made in one bracket has finished: as
  // much progress as a leave() and enter() would show, without the two stores.
  void finished_call() {
    calls_.store(calls_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  // After a watched call failed with EINTR: true if the watchdog interrupted it (the limit
  // ran out), false for any other signal.
  bool take_expiry() { return expired_.exchange(false, std::memory_order_acq_rel); }
  // A new limit (a datagram ping-pong's reply wait, say), in force from now: the thread is
  // woken to take it.
  void set_limit(double limit_s);
  double limit_s() const;

  // How often the thread looks: a quarter of the limit, so a stalled call is interrupted
  // between the limit and 1.25 times it, but at most ten times a second: a limit under
  // 0.4 s (a datagram receiver's 0.1 s wait for the end) is kept within 100 ms of itself.
  static constexpr int64_t kMinPeriodNs = 100'000'000;
  static int64_t period_ns(int64_t limit_ns);

 private:
  // The kernel's id of the calling thread, read once per thread. A kernel id, not a
  // pthread_t: signalling a thread that has just ended is then a harmless ESRCH.
  static pid_t this_thread_id();
  void watch();

  const int fd_;
  std::atomic<int64_t> limit_ns_;
  std::atomic<pid_t> owner_{0};
  std::atomic<uint64_t> calls_{0};
  std::atomic<bool> busy_{false};
  std::atomic<bool> expired_{false};
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  bool new_limit_ = false;  // set_limit was called: the thread recomputes its period
  std::thread thread_;
};

}  // namespace fabperf
