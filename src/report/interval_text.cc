// The --interval line of the text reports (qperf's and the fab_* tools').
#include <cstdio>

#include "core/json_numbers.h"
#include "report/qperf_format.h"
#include "report/reporter.h"

namespace fabperf {

std::string interval_line(const std::string& label, const TestResult& pending,
                          const IntervalRecord& r, const DisplayOptions& display) {
  FormatOptions format;
  format.precision = display.precision;
  format.unify_units = display.unify_units;
  format.bits = display.bits;
  const IntervalFigures f = interval_figures(r);
  char span[64];
  std::snprintf(span, sizeof span, "[%.2f-%.2f s]", r.start_s, r.end_s);
  std::string out = label + " " + span;
  auto add = [&](const char* name, double value, Unit unit) {
    Shown s = format_figure(finite_or_zero(value), unit, format);
    out += std::string("  ") + name + " = " + s.value;
    if (!s.unit.empty()) out += " " + s.unit;
  };
  const TestSpec* spec = pending.spec;
  const bool latency = spec != nullptr && spec->kind == TestKind::kLatency;
  if (!f.rated) {
    // Only a whole run shorter than kMinRateSpanS: its counts, never a rate over so little.
    out += "  (under 1 ms: no rate)";
    add("msgs",
        static_cast<double>(r.counts.send_msgs > 0 ? r.counts.send_msgs : r.counts.recv_msgs),
        Unit::kCount);
  } else {
    if (!latency && spec != nullptr && spec->kind != TestKind::kMsgRate) {
      if (r.counts.send_bytes > 0 || r.counts.recv_bytes == 0) {
        add("send_bw", f.send_Bps, Unit::kBandwidth);
      }
      if (r.counts.recv_bytes > 0) add("recv_bw", f.recv_Bps, Unit::kBandwidth);
    }
    add("msg_rate", f.msg_rate, Unit::kRate);
  }
  if (latency) {
    add("latency", f.mean_ns * 1e-9, Unit::kTime);
    add("p99", f.p99_ns * 1e-9, Unit::kTime);
  }
  // TCP's own view, as iperf3's Retr and Cwnd columns (TCP tests; the client's connections).
  if (r.tcp.valid()) {
    add("retr", static_cast<double>(r.tcp.retransmits), Unit::kCount);
    add("cwnd", static_cast<double>(r.tcp.cwnd_bytes), Unit::kSize);
    add("rtt", r.tcp.rtt_us * 1e-6, Unit::kTime);
  }
  // Loss this side counts itself: replies that never came, or, receiving a paced UDP stream
  // (-R --udp_rate), sequence numbers that never arrived, with the RFC 3550 jitter.
  if (latency && !spec->reliable) add("lost", static_cast<double>(r.counts.lost), Unit::kCount);
  if (!latency && r.counts.jitter_ns >= 0) {
    add("lost", static_cast<double>(r.counts.lost), Unit::kCount);
    add("jitter", r.counts.jitter_ns * 1e-9, Unit::kTime);
  }
  return out + "\n";
}

}  // namespace fabperf
