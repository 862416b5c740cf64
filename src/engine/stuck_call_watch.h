// StuckCallWatch: gives up on a thread stuck inside one call, from a thread of its own. A
// fabric provider can spin for good inside a call (libfabric shm on a dead peer's region lock,
// review N4), and nothing on the stuck thread ever looks at a clock or a stop flag again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>

namespace fabperf {

class StuckCallWatch {
 public:
  // Once the owner has been inside one call (enter() without leave(), and no other call
  // finished meanwhile) for `limit_s`, `on_stuck` runs on the watch's thread, while the owner
  // is held: should the call ever return, leave() waits until on_stuck is over (it is meant
  // to end the process: write what there is, then _exit). The watch's thread runs on a copy
  // of the descriptor table (core/private_fds.h take_fd_table_copy): on_stuck may use only
  // descriptors open when the watch was made.
  StuckCallWatch(double limit_s, std::function<void()> on_stuck);
  ~StuckCallWatch();
  StuckCallWatch(const StuckCallWatch&) = delete;
  StuckCallWatch& operator=(const StuckCallWatch&) = delete;

  // One relaxed store each, no clock read: cheap enough for every post and completion poll
  // (over shm a post's own stores cost the row: bench/README.md, "rdm_atomic_bw over shm:
  // fabperf's own work"). The count is odd inside a call; only the owner writes it.
  void enter() { step(); }
  void leave() {
    step();
    // One flag for what is rare (the watch taking over, the test hook's countdown), so that
    // a call's leave looks at one word.
    if (attention_.load(std::memory_order_relaxed)) [[unlikely]]
      attend();
  }
  // Test hook (FABPERF_TEST_STUCK_CALL_AFTER, tests/e2e/e2e_deadlines_test.cc): once `calls`
  // more calls have left, the owner spins for good as if inside the next one, as libfabric shm
  // did on a dead peer's lock (review N4), which no run here reproduces on demand. The
  // owner's thread only, before its calls.
  void spin_inside_call_after(uint64_t calls);

  // How often the watch looks: a quarter of the limit, at least every 100 ms apart.
  static int64_t period_ns(int64_t limit_ns);
  // How long the watch waits, once it has decided, for a call that returns just then to
  // show it (the stores above are relaxed) before it takes over.
  static constexpr int64_t kGraceNs = 20'000'000;

 private:
  static bool inside_call(uint64_t state) { return (state & 1) != 0; }
  // The owner's own count moves on (no other thread writes it: a load and a store, not an
  // atomic increment).
  void step() {
    state_.store(state_.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
  }
  void watch();
  void attend();  // leave()'s rare path: the hook's countdown, then hold() if taking over
  void hold();    // the owner, come back while the watch decides or after it took over

  const int64_t limit_ns_;
  std::function<void()> on_stuck_;
  // Calls entered and left, counted: odd while the owner is inside one, unchanged while it
  // stays there.
  std::atomic<uint64_t> state_{0};
  std::atomic<bool> taking_over_{false};
  std::atomic<bool> hook_armed_{false};  // spin_inside_call_after was called
  std::atomic<bool> attention_{false};   // taking_over_ or hook_armed_: leave() looks further
  uint64_t spin_after_ = 0;              // the hook's countdown, the owner's own
  std::mutex mu_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace fabperf
