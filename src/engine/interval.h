// IntervalMeter (--interval S): the figures of every S seconds of a run's measured phase, on
// the client. The measuring loops call it with the clock they already read (due() is one
// compare, no system call); at a boundary it takes the difference of the cumulative counters
// and latency histogram since the previous boundary and hands the record to a sink. The last
// interval is closed by finish() with the loop's final counts, so the intervals' counts sum to
// the run's total and their histograms merge to its histogram, exactly.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>

#include "engine/side_stats.h"
#include "stats/histogram.h"
#include "stats/latency.h"

namespace fabperf {

// What the measuring side has counted so far (cumulative) or in one interval (a difference).
struct IntervalCounts {
  uint64_t send_bytes = 0, send_msgs = 0, recv_bytes = 0, recv_msgs = 0, lost = 0;

  static IntervalCounts of(const SideStats& s) {
    return {s.send_bytes, s.send_msgs, s.recv_bytes, s.recv_msgs, s.lost_msgs};
  }
  bool operator==(const IntervalCounts&) const = default;
};

// One closed interval.
struct IntervalRecord {
  uint64_t index = 0;           // 0, 1, ... within the run
  double start_s = 0, end_s = 0;  // since the measured phase began (real, not nominal)
  IntervalCounts counts;        // counted in this interval
  // This interval's latency samples (null where the test records none); a reported value
  // is Histogram::bucket_value(index) * latency_scale.
  const Histogram* latency = nullptr;
  double latency_scale = 1;
  bool last = false;  // closed by finish(): the run's end (none where nothing came after the
                      // last boundary)
};

// An interval's figures, derived from its record (rates over its real duration).
struct IntervalFigures {
  double seconds = 0;
  double send_Bps = 0, recv_Bps = 0;
  double msg_rate = 0;  // messages sent a second (received, where this side only receives)
  uint64_t samples = 0;
  double mean_ns = 0, p99_ns = 0;  // scaled, as the run's latency figures
};
IntervalFigures interval_figures(const IntervalRecord& record);

class IntervalMeter {
 public:
  using Sink = std::function<void(const IntervalRecord&)>;

  // Turns the meter on: every `seconds` (> 0) a record goes to `sink`. Off by default.
  void configure(double seconds, Sink sink);
  bool enabled() const { return period_ns_ > 0; }
  double seconds() const { return static_cast<double>(period_ns_) * 1e-9; }

  // The measured phase begins now with these cumulative counts (warm-up included, so only
  // what follows is counted). Called from TestContext::mark_start; a second call restarts.
  void start(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency);
  // True once the current interval has ended (never while off or not started).
  bool due(int64_t now) const { return now >= next_ns_; }
  // When the current interval ends (INT64_MAX while off or not started).
  int64_t next_due_ns() const { return next_ns_; }
  // Closes the interval when due: the hot-path call of the loops.
  void tick(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency) {
    if (now >= next_ns_) close(now, cumulative, latency, false);
  }
  // The run's measured phase ended at `now` with these counts: the last interval (also a
  // partial one) is closed, unless nothing was counted since the last boundary. Later ticks
  // do nothing.
  void finish(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency);

  uint64_t intervals() const { return index_; }

 private:
  void close(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency,
             bool last);

  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  int64_t period_ns_ = 0;
  Sink sink_;
  bool running_ = false;
  int64_t start_ns_ = 0, last_ns_ = 0, next_ns_ = kNever;
  uint64_t index_ = 0;
  IntervalCounts base_;
  // Allocated by configure(), never in the loop: the cumulative histogram at the last
  // boundary, and the interval's own.
  std::unique_ptr<Histogram> base_histogram_, interval_histogram_;
};

}  // namespace fabperf
