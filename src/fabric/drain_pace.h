// How deep a bandwidth stream's window may be: what is in flight when the run ends has to
// complete before the run is over, so no more is kept in flight than drains within
// kMaxDrainNs at the rate completions come now.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>

namespace fabperf {

class DrainPace {
 public:
  // What is in flight at the end drains within this much at the current rate: far above a
  // round trip, so the pipe stays full, and far below a run (udp;ofi_rxd at ~8 MB/s drains
  // 1024 x 64 KiB in 8 s: review N5).
  static constexpr int64_t kMaxDrainNs = 250'000'000;
  // The window before completions give a rate, and the least one ever paced.
  static constexpr size_t kFirstWindow = 64;
  // The rate is the completions since a mark at least kMaxDrainNs old; marks are this far apart.
  static constexpr int kMarks = 8;
  static constexpr int64_t kMarkEveryNs = kMaxDrainNs / kMarks;

  // `window`: the most a run keeps in flight (its --tx_depth, or the provider's queue).
  explicit DrainPace(size_t window)
      : window_(window), least_(std::min(window, kFirstWindow)), paced_(least_) {}

  // The operations that may be in flight at `now`, `completed` having completed since the
  // first post. Called every pass of the loop: the rate is worked out at a mark only.
  size_t window(int64_t now, uint64_t completed) {
    if (now >= next_mark_) mark(now, completed);
    // For the first kMaxDrainNs the rate is not yet known; what has completed so far took
    // less than kMaxDrainNs, so as many again drain within it at the same rate: the window
    // grows with every completion, as a slow start, never ahead of what the provider shows.
    if (young_) paced_ = clamp(completed);
    return paced_;
  }

 private:
  struct Mark {
    int64_t at_ns;
    uint64_t completed;
  };

  size_t clamp(uint64_t n) const {
    return static_cast<size_t>(std::min<uint64_t>(std::max<uint64_t>(n, least_), window_));
  }

  // A mark every kMarkEveryNs (the first at the first call). Once the oldest kept mark is
  // kMaxDrainNs old, the window is what completed since it, scaled to kMaxDrainNs: the rate
  // of the last kMaxDrainNs (at most a mark's spacing more), so a provider that slows down
  // (a deep window's drops and resends on udp;ofi_rxd, a loaded host) narrows the window
  // within kMaxDrainNs and two marks' spacing, where a rate over the whole run would have kept
  // a fast start's.
  void mark(int64_t now, uint64_t completed) {
    marks_[(first_ + count_) % marks_.size()] = {now, completed};
    if (count_ < marks_.size()) {
      ++count_;
    } else {
      first_ = (first_ + 1) % marks_.size();
    }
    next_mark_ = now + kMarkEveryNs;
    // Drops the oldest while the next is old enough on its own.
    while (count_ > 1 && now - marks_[(first_ + 1) % marks_.size()].at_ns >= kMaxDrainNs) {
      first_ = (first_ + 1) % marks_.size();
      --count_;
    }
    const Mark& oldest = marks_[first_];
    const int64_t age = now - oldest.at_ns;
    if (age < kMaxDrainNs) return;  // still young: window() paces by the count
    young_ = false;
    const double per_ns =
        static_cast<double>(completed - oldest.completed) / static_cast<double>(age);
    paced_ = clamp(static_cast<uint64_t>(per_ns * static_cast<double>(kMaxDrainNs)));
  }

  size_t window_;
  size_t least_;
  size_t paced_;
  bool young_ = true;
  int64_t next_mark_ = 0;  // the first call marks
  // A ring of the marks of the last kMaxDrainNs and the one before them.
  std::array<Mark, kMarks + 2> marks_{};
  size_t first_ = 0;
  size_t count_ = 0;
};

}  // namespace fabperf
