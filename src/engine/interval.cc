// The interval meter: differences of cumulative counters and histograms at each boundary.
#include "engine/interval.h"

#include <algorithm>
#include <utility>

namespace fabperf {

namespace {

uint64_t minus(uint64_t now, uint64_t then) { return now > then ? now - then : 0; }

IntervalCounts difference(const IntervalCounts& now, const IntervalCounts& then) {
  return {minus(now.send_bytes, then.send_bytes),
          minus(now.send_msgs, then.send_msgs),
          minus(now.recv_bytes, then.recv_bytes),
          minus(now.recv_msgs, then.recv_msgs),
          minus(now.lost, then.lost),
          now.jitter_ns};
}

}  // namespace

IntervalFigures interval_figures(const IntervalRecord& r) {
  IntervalFigures f;
  f.seconds = r.end_s - r.start_s;
  f.rated = f.seconds >= kMinRateSpanS;
  const double s = f.rated ? f.seconds : 0;
  auto rate = [&](uint64_t amount) { return s > 0 ? static_cast<double>(amount) / s : 0.0; };
  f.send_Bps = rate(r.counts.send_bytes);
  f.recv_Bps = rate(r.counts.recv_bytes);
  f.msg_rate = rate(r.counts.send_msgs > 0 ? r.counts.send_msgs : r.counts.recv_msgs);
  if (r.latency != nullptr && r.latency->count() > 0) {
    const Histogram& h = *r.latency;
    f.samples = h.count();
    double sum = 0;
    for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
      if (uint64_t c = h.count_at(i))
        sum += static_cast<double>(Histogram::bucket_value(i)) * static_cast<double>(c);
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
  tcp_probe_ = nullptr;
  for (auto* h : {&base_histogram_, &interval_histogram_, &held_histogram_}) {
    if (!*h) *h = std::make_unique<Histogram>();
  }
}

void IntervalMeter::start(int64_t now, const IntervalCounts& cumulative,
                          const LatencyRecorder* latency) {
  if (!enabled()) return;
  running_ = true;
  start_ns_ = last_ns_ = now;
  boundary_ns_ = now + period_ns_;
  held_ = false;
  emit_ns_ = kNever;
  index_ = 0;
  base_ = cumulative;
  base_retransmits_ = tcp_probe_ ? tcp_probe_().retransmits : 0;
  if (latency != nullptr) {
    *base_histogram_ = latency->histogram();
  } else {
    base_histogram_->reset();
  }
  schedule();
}

void IntervalMeter::schedule() {
  next_ns_ = running_ ? std::min(boundary_ns_, held_ ? emit_ns_ : kNever) : kNever;
}

void IntervalMeter::advance(int64_t now, const IntervalCounts& cumulative,
                            const LatencyRecorder* latency) {
  if (!running_) return;
  // The held interval first: a loop away past both its release and the next boundary hands
  // it on before closing the next.
  if (held_ && now >= emit_ns_) release_held(false);
  if (now >= boundary_ns_) {
    IntervalRecord r = take(now, cumulative, latency);
    if (held_) release_held(false);
    hold(r);
    // A loop blocked past several boundaries closed one interval spanning them; the next
    // boundary stays on the grid.
    const int64_t periods = (now - start_ns_) / period_ns_ + 1;
    boundary_ns_ = start_ns_ + periods * period_ns_;
  }
  schedule();
}

void IntervalMeter::finish(int64_t now, const IntervalCounts& cumulative,
                           const LatencyRecorder* latency) {
  if (!running_) return;
  if (now < last_ns_) now = last_ns_;
  IntervalCounts counted = cumulative;
  counted.jitter_ns = base_.jitter_ns;  // a gauge: its moving is no count
  const bool nothing = counted == base_ && (latency == nullptr || latency->histogram().count() ==
                                                                      base_histogram_->count());
  IntervalRecord sliver = take(now, cumulative, latency);
  if (held_ && now - held_end_ns_ < period_ns_ / 2) {
    // The run ended less than half a period after the held interval: one record covers both.
    IntervalRecord& h = held_record_;
    h.end_s = sliver.end_s;
    h.counts.send_bytes += sliver.counts.send_bytes;
    h.counts.send_msgs += sliver.counts.send_msgs;
    h.counts.recv_bytes += sliver.counts.recv_bytes;
    h.counts.recv_msgs += sliver.counts.recv_msgs;
    h.counts.lost += sliver.counts.lost;
    h.counts.jitter_ns = sliver.counts.jitter_ns;
    if (sliver.latency != nullptr) held_histogram_->merge(*sliver.latency);
    if (sliver.tcp.valid()) {
      const uint64_t retransmits = h.tcp.retransmits + sliver.tcp.retransmits;
      h.tcp = sliver.tcp;  // the window and round trip as the run ended
      h.tcp.retransmits = retransmits;
    }
    release_held(true);
  } else if (held_ && nothing) {
    release_held(true);  // nothing came after it: it is the run's last record
  } else {
    if (held_) release_held(false);
    // A run that ended just after a boundary with nothing counted since adds no record (its
    // sums are whole already); otherwise the last, partial interval is its own record.
    if (!nothing || index_ == 0) {
      sliver.last = true;
      emit(sliver);
    }
  }
  running_ = false;
  schedule();
}

IntervalRecord IntervalMeter::take(int64_t now, const IntervalCounts& cumulative,
                                   const LatencyRecorder* latency) {
  IntervalRecord r;
  r.start_s = static_cast<double>(last_ns_ - start_ns_) * 1e-9;
  r.end_s = static_cast<double>(now - start_ns_) * 1e-9;
  r.counts = difference(cumulative, base_);
  if (tcp_probe_) {
    r.tcp = tcp_probe_();
    const uint64_t total = r.tcp.retransmits;
    r.tcp.retransmits = total >= base_retransmits_ ? total - base_retransmits_ : 0;
    base_retransmits_ = total;
  }
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
  return r;
}

void IntervalMeter::hold(const IntervalRecord& record) {
  held_record_ = record;
  if (record.latency != nullptr) {
    std::swap(held_histogram_, interval_histogram_);  // no copy: the buffers trade places
    held_record_.latency = held_histogram_.get();
  }
  held_end_ns_ = last_ns_;
  emit_ns_ = last_ns_ + period_ns_ / 2;
  held_ = true;
}

void IntervalMeter::release_held(bool last) {
  held_ = false;
  emit_ns_ = kNever;
  held_record_.last = last;
  emit(held_record_);
}

void IntervalMeter::emit(IntervalRecord record) {
  record.index = index_++;
  if (sink_) sink_(record);
}

}  // namespace fabperf
