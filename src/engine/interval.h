// IntervalMeter (--interval S): the figures of every S seconds of a run's measured phase, on
// the client. The measuring loops call it with the clock they already read (due() is one
// compare, no system call); at a boundary it takes the difference of the cumulative counters
// and latency histogram since the previous boundary and hands the record to a sink. The last
// interval is closed by finish() with the loop's final counts, so the intervals' counts sum to
// the run's total and their histograms merge to its histogram, exactly.
//
// A closed interval is held back half a period before it goes to the sink: a run whose end
// falls less than half a period after a boundary folds that sliver into the held interval
// (one record of up to 1.5 periods) rather than reporting a rate over a few microseconds
// (a 52 us interval holding one 64 KiB message read 1.2 GB/s; one of no length, 72 GB/s).
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>

#include "engine/side_stats.h"
#include "net/tcp_info.h"
#include "stats/histogram.h"
#include "stats/latency.h"

namespace fabperf {

// What the measuring side has counted so far (cumulative) or in one interval (a difference).
struct IntervalCounts {
  uint64_t send_bytes = 0, send_msgs = 0, recv_bytes = 0, recv_msgs = 0, lost = 0;
  // A gauge, not a count: a paced UDP receiver's RFC 3550 jitter (ns) as the interval ended
  // (udp_bw --udp_rate; -1 where nothing measures it). An interval takes its end's value.
  double jitter_ns = -1;

  static IntervalCounts of(const SideStats& s) {
    return {s.send_bytes, s.send_msgs, s.recv_bytes, s.recv_msgs, s.lost_msgs, s.jitter_ns};
  }
  bool operator==(const IntervalCounts&) const = default;
};

// One closed interval.
struct IntervalRecord {
  uint64_t index = 0;             // 0, 1, ... within the run
  double start_s = 0, end_s = 0;  // since the measured phase began (real, not nominal)
  IntervalCounts counts;          // counted in this interval
  // This interval's latency samples (null where the test records none); a reported value
  // is Histogram::bucket_value(index) * latency_scale.
  const Histogram* latency = nullptr;
  double latency_scale = 1;
  bool last = false;  // the run's last record (closed, or released, by finish())
  // TCP tests: the data connections' TCP_INFO at the record's end, with `retransmits` those
  // of this record only (invalid where the test has no TCP connection).
  TcpCounters tcp;
};

// No rate is computed over a record shorter than this: its counts are kept, its rates are not
// (only a whole run this short has such a record once slivers are folded).
inline constexpr double kMinRateSpanS = 0.001;

// An interval's figures, derived from its record (rates over its real duration).
struct IntervalFigures {
  double seconds = 0;
  bool rated = false;  // seconds >= kMinRateSpanS: the rates below mean something (else 0)
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
  // TCP tests: reads the data connections' counters at each boundary (once an interval, off
  // the per-message path). Set before start(); cleared by configure().
  void set_tcp_probe(std::function<TcpCounters()> probe) { tcp_probe_ = std::move(probe); }
  double seconds() const { return static_cast<double>(period_ns_) * 1e-9; }

  // The measured phase begins now with these cumulative counts (warm-up included, so only
  // what follows is counted). Called from TestContext::mark_start; a second call restarts.
  void start(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency);
  // True once the meter has something to do: the current interval has ended, or a held one
  // is due at the sink (never while off or not started).
  bool due(int64_t now) const { return now >= next_ns_; }
  // When the meter next has something to do (INT64_MAX while off or not started).
  int64_t next_due_ns() const { return next_ns_; }
  // Closes the interval, or releases the held one, when due: the hot-path call of the loops.
  void tick(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency) {
    if (now >= next_ns_) advance(now, cumulative, latency);
  }
  // The run's measured phase ended at `now` with these counts: the last interval (also a
  // partial one) is closed, folded into the held one when shorter than half a period; nothing
  // counted since the last boundary adds no record. Later ticks do nothing.
  void finish(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency);

  uint64_t intervals() const { return index_; }

 private:
  void advance(int64_t now, const IntervalCounts& cumulative, const LatencyRecorder* latency);
  // The record of [last boundary, now]; its histogram is interval_histogram_.
  IntervalRecord take(int64_t now, const IntervalCounts& cumulative,
                      const LatencyRecorder* latency);
  void hold(const IntervalRecord& record);
  void release_held(bool last);
  void emit(IntervalRecord record);
  void schedule();

  static constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  int64_t period_ns_ = 0;
  Sink sink_;
  bool running_ = false;
  int64_t start_ns_ = 0, last_ns_ = 0, next_ns_ = kNever;
  int64_t boundary_ns_ = kNever;  // the current interval's end on the grid
  uint64_t index_ = 0;            // records handed to the sink
  IntervalCounts base_;
  std::function<TcpCounters()> tcp_probe_;
  uint64_t base_retransmits_ = 0;
  // The closed interval waiting half a period (emit_ns_) for a sliver to fold in.
  bool held_ = false;
  IntervalRecord held_record_;
  int64_t held_end_ns_ = 0, emit_ns_ = kNever;
  // Allocated by configure(), never in the loop: the cumulative histogram at the last
  // boundary, the interval's own, and the held interval's.
  std::unique_ptr<Histogram> base_histogram_, interval_histogram_, held_histogram_;
};

}  // namespace fabperf
