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

// A point in time after which a wait gives up.
class Deadline {
 public:
  static Deadline After(double seconds) {
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
