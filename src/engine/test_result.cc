// Deriving figures by test kind (the engine checks kinds and capabilities, never names).
#include "engine/test_result.h"

#include <algorithm>

namespace fabperf {

const char* bandwidth_direction(const Figures& f) {
  if (f.bidirectional) return "both";
  return f.reverse ? "server_to_client" : "client_to_server";
}

const char* run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return "ok";
    case RunStatus::kError:
      return "error";
    case RunStatus::kInterrupted:
      return "interrupted";
    case RunStatus::kNotRun:
      return "not run";
  }
  return "error";
}

namespace {
double rate(double amount, int64_t ns) {
  return ns > 0 ? amount * 1e9 / static_cast<double>(ns) : 0;
}
}  // namespace

IntervalSummary IntervalSummary::of(const IntervalRecord& record) {
  IntervalSummary s;
  s.start_s = record.start_s;
  s.end_s = record.end_s;
  s.counts = record.counts;
  IntervalFigures f = interval_figures(record);
  s.samples = f.samples;
  s.mean_ns = f.mean_ns;
  s.p99_ns = f.p99_ns;
  s.rated = f.rated;
  s.send_Bps = f.send_Bps;
  s.recv_Bps = f.recv_Bps;
  s.msg_rate = f.msg_rate;
  s.tcp = record.tcp;
  if (record.latency != nullptr && record.latency->count() > 0) {
    s.p50_ns = static_cast<double>(record.latency->value_at_percentile(50)) * record.latency_scale;
  }
  return s;
}

namespace {

// A latency test's figures: the distribution, and the rate (the schedule's, as achieved, in
// open loop).
void latency_figures(TestResult& result, const LatencyRecorder& latency,
                     const std::vector<double>& percentiles) {
  Figures& f = result.figures;
  const SideStats& loc = result.loc;
  f.latency = latency.summarize(percentiles);
  f.latency_histogram = std::make_shared<const Histogram>(latency.histogram());
  f.latency_scale = latency.scale();
  f.msg_rate = f.latency->mean > 0 ? 1e9 / f.latency->mean : 0;
  // Open loop: the rate is the schedule's, as achieved, not the inverse of the latency.
  f.open_loop = result.local_opts.rate > 0;
  if (f.open_loop) {
    f.msg_rate = rate(static_cast<double>(loc.recv_msgs), loc.real_time_ns);
    f.rate_asked = static_cast<double>(result.local_opts.rate);
    f.rate_short = f.msg_rate < kRateShortfall * f.rate_asked;
  }
  f.msgs_sent = loc.send_msgs;
  f.msgs_received = loc.recv_msgs;
  f.msgs_lost = loc.lost_msgs;
}

// A one-way bandwidth test's figures, the whole and per stream.
void bandwidth_figures(TestResult& result, bool unreliable) {
  Figures& f = result.figures;
  const SideStats& loc = result.loc;
  const SideStats& rem = result.rem;
  f.has_bandwidth = true;
  // The sender is the client, or with -R the server; the other side receives.
  f.reverse = result.local_opts.reverse;
  const SideStats& snd = f.reverse ? rem : loc;
  const SideStats& rcv = f.reverse ? loc : rem;
  int64_t send_ns = snd.send_time_ns > 0 ? snd.send_time_ns : snd.real_time_ns;
  f.send_Bps = rate(static_cast<double>(snd.send_bytes), send_ns);
  // A receiver that cannot count (one-sided writes) leaves the sender's completions.
  if (rcv.recv_bytes > 0) {
    f.recv_Bps = rate(static_cast<double>(rcv.recv_bytes), rcv.recv_time_ns);
    f.msg_rate = rate(static_cast<double>(rcv.recv_msgs), rcv.recv_time_ns);
  } else {
    f.recv_Bps = unreliable ? 0 : f.send_Bps;
    f.msg_rate = unreliable ? 0 : rate(static_cast<double>(snd.send_msgs), send_ns);
  }
  f.msgs_sent = snd.send_msgs;
  f.jitter_ns = rcv.jitter_ns;
  f.msgs_received = rcv.recv_bytes > 0 || unreliable ? rcv.recv_msgs : snd.send_msgs;
  f.msgs_lost = f.msgs_sent > f.msgs_received ? f.msgs_sent - f.msgs_received : 0;
  if (!unreliable) f.msgs_lost = 0;
  // Stream i of the client is stream i of the server: both open them in the same order.
  size_t n = std::max(snd.streams.size(), rcv.streams.size());
  for (size_t i = 0; i < n; ++i) {
    StreamCounters send = i < snd.streams.size() ? snd.streams[i] : StreamCounters{};
    StreamCounters recv = i < rcv.streams.size() ? rcv.streams[i] : StreamCounters{};
    StreamFigures sf;
    sf.send_bytes = send.send_bytes;
    sf.recv_bytes = recv.recv_bytes;
    sf.send_Bps = rate(static_cast<double>(send.send_bytes), send.send_time_ns);
    sf.recv_Bps = recv.recv_bytes > 0
                      ? rate(static_cast<double>(recv.recv_bytes), recv.recv_time_ns)
                      : (unreliable ? 0 : sf.send_Bps);
    f.streams.push_back(sf);
  }
}

// A two-way bandwidth test's figures: each direction's received rate and their sum.
void bidirectional_figures(TestResult& result, bool unreliable) {
  Figures& f = result.figures;
  const SideStats& loc = result.loc;
  const SideStats& rem = result.rem;
  f.has_bandwidth = true;
  f.bidirectional = true;
  int64_t loc_ns = loc.send_time_ns > 0 ? loc.send_time_ns : loc.real_time_ns;
  int64_t rem_ns = rem.send_time_ns > 0 ? rem.send_time_ns : rem.real_time_ns;
  f.send_Bps = rate(static_cast<double>(loc.send_bytes), loc_ns) +
               rate(static_cast<double>(rem.send_bytes), rem_ns);
  int64_t loc_rns = loc.recv_time_ns > 0 ? loc.recv_time_ns : loc_ns;
  int64_t rem_rns = rem.recv_time_ns > 0 ? rem.recv_time_ns : rem_ns;
  f.to_client_Bps = rate(static_cast<double>(loc.recv_bytes), loc_rns);
  f.to_server_Bps = rate(static_cast<double>(rem.recv_bytes), rem_rns);
  f.recv_Bps = f.to_client_Bps + f.to_server_Bps;
  f.msg_rate = rate(static_cast<double>(loc.recv_msgs), loc_rns) +
               rate(static_cast<double>(rem.recv_msgs), rem_rns);
  f.msgs_sent = loc.send_msgs + rem.send_msgs;
  f.msgs_received = loc.recv_msgs + rem.recv_msgs;
  f.msgs_lost = unreliable && f.msgs_sent > f.msgs_received ? f.msgs_sent - f.msgs_received : 0;
}

}  // namespace

void derive_figures(TestResult& result, const LatencyRecorder& latency,
                    const std::vector<double>& percentiles) {
  Figures& f = result.figures;
  const SideStats& loc = result.loc;
  const SideStats& rem = result.rem;
  const TestSpec& spec = *result.spec;
  const bool unreliable = !spec.reliable;
  f.counts_loss = unreliable;
  f.verify_checked = loc.verify_checked + rem.verify_checked;
  f.verify_errors = loc.verify_errors + rem.verify_errors;
  f.has_verify = f.verify_checked > 0 || result.local_opts.verify;
  switch (spec.kind) {
    case TestKind::kLatency:
      latency_figures(result, latency, percentiles);
      break;
    case TestKind::kBandwidth:
      bandwidth_figures(result, unreliable);
      break;
    case TestKind::kBiBandwidth:
      bidirectional_figures(result, unreliable);
      break;
    case TestKind::kMsgRate:
    case TestKind::kVerify: {
      int64_t ns = loc.send_time_ns > 0 ? loc.send_time_ns : loc.real_time_ns;
      f.msg_rate = rate(static_cast<double>(loc.send_msgs), ns);
      f.msgs_sent = loc.send_msgs;
      f.msgs_received = loc.recv_msgs;
      break;
    }
    case TestKind::kMisc:
      break;
  }
  if (f.verify_errors > 0 && result.error.empty()) {
    result.error = "verification failed: " + std::to_string(f.verify_errors) + " of " +
                   std::to_string(f.verify_checked) + " checks did not match";
  }
  // Host noise, judged here for both sides with the same thresholds (a server's record is
  // raw): preemptions are counted against what the side counted.
  for (SideStats* side : {&result.loc, &result.rem}) {
    if (!side->noise.measured) continue;
    side->noise.operations = std::max(side->send_msgs, side->recv_msgs);
    // A latency test's messages are its samples; a bandwidth test's are only messages.
    side->noise.operations_are_samples = spec.kind == TestKind::kLatency;
    judge_host_noise(side->noise);
  }
}

}  // namespace fabperf
