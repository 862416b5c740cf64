// The interval meter: differences of cumulative counters and histograms at each boundary.
#include "engine/interval.h"

namespace fabperf {

namespace {

uint64_t minus(uint64_t now, uint64_t then) { return now > then ? now - then : 0; }

IntervalCounts difference(const IntervalCounts& now, const IntervalCounts& then) {
  return {minus(now.send_bytes, then.send_bytes), minus(now.send_msgs, then.send_msgs),
          minus(now.recv_bytes, then.recv_bytes), minus(now.recv_msgs, then.recv_msgs),
          minus(now.lost, then.lost)};
}

}  // namespace

IntervalFigures interval_figures(const IntervalRecord& r) {
  IntervalFigures f;
  f.seconds = r.end_s - r.start_s;
  const double s = f.seconds > 0 ? f.seconds : 0;
  auto rate = [&](uint64_t amount) { return s > 0 ? static_cast<double>(amount) / s : 0.0; };
  f.send_Bps = rate(r.counts.send_bytes);
  f.recv_Bps = rate(r.counts.recv_bytes);
  f.msg_rate = rate(r.counts.send_msgs > 0 ? r.counts.send_msgs : r.counts.recv_msgs);
  if (r.latency != nullptr && r.latency->count() > 0) {
    const Histogram& h = *r.latency;
    f.samples = h.count();
    double sum = 0;
    for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
      if (uint64_t c = h.count_at(i)) sum += static_cast<double>(Histogram::bucket_value(i)) * static_cast<double>(c);
    }
    f.mean_ns = sum / static_cast<double>(f.samples) * r.latency_scale;
    f.p99_ns = static_cast<double>(h.value_at_percentile(99)) * r.latency_scale;
  }
  return f;
}

void IntervalMeter::configure(double seconds, Sink sink) {
  period_ns_ = seconds > 0 ? static_cast<int64_t>(seconds * 1e9) : 0;
  if (period_ns_ <= 0) {
    period_ns_ = 0;
    return;
  }
  sink_ = std::move(sink);
  if (!base_histogram_) base_histogram_ = std::make_unique<Histogram>();
  if (!interval_histogram_) interval_histogram_ = std::make_unique<Histogram>();
}

void IntervalMeter::start(int64_t now, const IntervalCounts& cumulative,
                          const LatencyRecorder* latency) {
  if (!enabled()) return;
  running_ = true;
  start_ns_ = last_ns_ = now;
  next_ns_ = now + period_ns_;
  index_ = 0;
  base_ = cumulative;
  if (latency != nullptr) {
    *base_histogram_ = latency->histogram();
  } else {
    base_histogram_->reset();
  }
}

void IntervalMeter::finish(int64_t now, const IntervalCounts& cumulative,
                           const LatencyRecorder* latency) {
  if (!running_) return;
  // A run that ended just after a boundary with nothing counted since adds no record (its
  // sums are whole already); otherwise the last, partial interval is closed.
  const bool nothing = cumulative == base_ &&
                       (latency == nullptr || latency->histogram().count() == base_histogram_->count());
  if (!nothing || index_ == 0) close(now < last_ns_ ? last_ns_ : now, cumulative, latency, true);
  running_ = false;
  next_ns_ = kNever;
}

void IntervalMeter::close(int64_t now, const IntervalCounts& cumulative,
                          const LatencyRecorder* latency, bool last) {
  if (!running_) return;
  IntervalRecord r;
  r.index = index_++;
  r.start_s = static_cast<double>(last_ns_ - start_ns_) * 1e-9;
  r.end_s = static_cast<double>(now - start_ns_) * 1e-9;
  r.counts = difference(cumulative, base_);
  r.last = last;
  if (latency != nullptr) {
    // The interval's samples: the cumulative histogram less what it held at the last
    // boundary (the buckets only ever grow).
    const Histogram& total = latency->histogram();
    Histogram& mine = *interval_histogram_;
    mine.reset();
    if (total.count() != base_histogram_->count()) {
      for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
        uint64_t now_count = total.count_at(i), then = base_histogram_->count_at(i);
        if (now_count > then) mine.record_n(Histogram::bucket_lower(i), now_count - then);
      }
      *base_histogram_ = total;
    }
    r.latency = &mine;
    r.latency_scale = latency->scale();
  }
  base_ = cumulative;
  last_ns_ = now;
  if (!last) {
    const int64_t periods = (now - start_ns_) / period_ns_ + 1;
    next_ns_ = start_ns_ + periods * period_ns_;
  }
  if (sink_) sink_(r);
}

}  // namespace fabperf
