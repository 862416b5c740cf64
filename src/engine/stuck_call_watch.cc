// StuckCallWatch: a thread that notices a call that never returns, and gives up on it.
#include "engine/stuck_call_watch.h"

#include <algorithm>
#include <chrono>

#include "core/clock.h"
#include "core/private_fds.h"

namespace fabperf {

int64_t StuckCallWatch::period_ns(int64_t limit_ns) {
  return std::max<int64_t>(limit_ns / 4, 100'000'000);
}

StuckCallWatch::StuckCallWatch(double limit_s, std::function<void()> on_stuck)
    : limit_ns_(static_cast<int64_t>(limit_s * 1e9)), on_stuck_(std::move(on_stuck)) {
  // Off the owner's descriptor table, so that the owner's calls borrow their files;
  // on_stuck still has every descriptor open when the watch began.
  thread_ = start_thread_off_table([this] { watch(); });
}

StuckCallWatch::~StuckCallWatch() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  thread_.join();
}

void StuckCallWatch::spin_inside_call_after(uint64_t calls) {
  if (calls == 0) return;
  spin_after_ = calls;
  hook_armed_.store(true, std::memory_order_relaxed);
  attention_.store(true, std::memory_order_relaxed);
}

void StuckCallWatch::attend() {
  if (spin_after_ > 0 && --spin_after_ == 0) {
    step();  // inside a call again, and for good
    // A spin lock's wait: no system call, nothing a signal handler could end. The empty asm
    // is a side effect the compiler must keep (an empty loop it may not assume ends).
    for (;;) asm volatile("" ::: "memory");
  }
  if (taking_over_.load(std::memory_order_relaxed)) hold();
}

void StuckCallWatch::hold() {
  // Until the watch has looked again and let go (the call was not stuck after all), or for
  // as long as on_stuck takes to end the process.
  while (taking_over_.load(std::memory_order_acquire)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

void StuckCallWatch::watch() {
  uint64_t seen = state_.load(std::memory_order_relaxed);
  int64_t still_since = now_ns();
  std::unique_lock<std::mutex> lock(mu_);
  const auto period = std::chrono::nanoseconds(period_ns(limit_ns_));
  while (!wake_.wait_for(lock, period, [this] { return stop_; })) {
    int64_t now = now_ns();
    uint64_t state = state_.load(std::memory_order_relaxed);
    if (!inside_call(state) || state != seen) {
      seen = state;
      still_since = now;
      continue;
    }
    if (now - still_since < limit_ns_) continue;
    // Decided; a call returning at this very moment shows itself within the grace and is let
    // go (its owner, should it have seen the flag, waits in hold() until then).
    taking_over_.store(true, std::memory_order_release);
    attention_.store(true, std::memory_order_release);
    lock.unlock();
    std::this_thread::sleep_for(std::chrono::nanoseconds(kGraceNs));
    lock.lock();
    if (stop_ || state_.load(std::memory_order_relaxed) != seen) {
      taking_over_.store(false, std::memory_order_release);
      attention_.store(hook_armed_.load(std::memory_order_relaxed), std::memory_order_relaxed);
      seen = state_.load(std::memory_order_relaxed);
      still_since = now_ns();
      continue;
    }
    lock.unlock();
    on_stuck_();
    lock.lock();
    // on_stuck came back (it did not end the process): the owner may go on if it ever can.
    taking_over_.store(false, std::memory_order_release);
    attention_.store(hook_armed_.load(std::memory_order_relaxed), std::memory_order_relaxed);
    still_since = now_ns();
  }
}

}  // namespace fabperf
