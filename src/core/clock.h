// The one clock every measurement uses: CLOCK_MONOTONIC_RAW through the vDSO.
#pragma once

#include <time.h>

#include <cstdint>

namespace fabperf {

inline constexpr const char* kClockName = "CLOCK_MONOTONIC_RAW";

inline int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// The clock of a loop whose iterations can be far shorter than a clock read is worth: it is
// read on every k-th tick() only, k adapted (1 to kMaxStride) so that reads land about
// kTargetNs apart, and k = 1 while an iteration takes longer than that. A 64-byte TCP send
// takes ~270 ns on a fast host, where a read (~18 ns) was 7% of the socket send loop; a
// 1 KiB UDP send ~1.5 us, where it was 1.7%. A tick() returns a time at most ~2 * kTargetNs
// old, so a -t limit ends that much late at most (once iterations slow down suddenly,
// kMaxStride of them); callers that need the exact time of an end read now_ns() there. The
// socket bandwidth loops use it for their -t limit (send) and their last message's time
// (receive, which restart()s it after a wait it saw).
class StridedClock {
 public:
  static constexpr int64_t kTargetNs = 10000;
  static constexpr uint32_t kMaxStride = 64;

  explicit StridedClock(int64_t now) : last_(now) {}
  int64_t tick() {
    if (--left_ > 0) return last_;
    const int64_t now = now_ns();
    const int64_t gap = now - last_;
    if (gap < kTargetNs / 2) {
      if (stride_ < kMaxStride) stride_ *= 2;
    } else if (gap > 2 * kTargetNs && stride_ > 1) {
      stride_ /= 2;
    }
    left_ = stride_;
    last_ = now;
    return now;
  }
  // Ticks for `n` iterations at once (a batch the loop made without looking at the clock):
  // the clock is read, as n single ticks would read it, when they reach the end of the stride.
  // A batch of at most left() keeps the reads where single ticks would place them.
  int64_t tick_n(uint32_t n) {
    if (n < left_) {
      left_ -= n;
      return last_;
    }
    left_ = 1;
    return tick();
  }
  // Iterations until the next read: the largest batch that tick_n reads after, not before.
  uint32_t left() const { return left_; }
  // The loop waited (it read the clock then): the next tick() reads it again, and the stride
  // starts over from 1.
  void restart(int64_t now) {
    last_ = now;
    stride_ = 1;
    left_ = 1;
  }
  int64_t last() const { return last_; }
  uint32_t stride() const { return stride_; }

 private:
  int64_t last_;
  uint32_t stride_ = 1;
  uint32_t left_ = 1;
};

// A point in time after which a wait gives up.
class Deadline {
 public:
  static Deadline after(double seconds) {
    return Deadline(now_ns() + static_cast<int64_t>(seconds * 1e9));
  }
  explicit Deadline(int64_t at_ns) : at_ns_(at_ns) {}
  bool expired() const { return now_ns() >= at_ns_; }
  // Milliseconds left, for poll(); never negative, at least 1 while not expired.
  int remaining_ms() const {
    int64_t left = at_ns_ - now_ns();
    if (left <= 0) return 0;
    int64_t ms = (left + 999999) / 1000000;
    return ms > 1000000000 ? 1000000000 : static_cast<int>(ms);
  }
  int64_t at_ns() const { return at_ns_; }

 private:
  int64_t at_ns_;
};

}  // namespace fabperf
