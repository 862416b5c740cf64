// TestResult: one run of one test (one loop value), as measured and derived; renderers read it.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "engine/side_stats.h"
#include "engine/test_context.h"
#include "options/display_options.h"
#include "options/option_table.h"
#include "options/run_options.h"
#include "stats/latency.h"

namespace fabperf {

// One stream's figures in a multi-stream test (--streams): its sender's and receiver's view.
struct StreamFigures {
  uint64_t send_bytes = 0, recv_bytes = 0;
  double send_Bps = 0, recv_Bps = 0;
};

// The figures derived from both sides' counters, by the test's kind.
struct Figures {
  std::optional<LatencySummary> latency;  // ns, already scaled (half RTT for ping-pongs)
  // Every sample's bucket, for reports that redraw or merge the distribution; a reported value
  // is bucket value * latency_scale. Shared: results are copied, the 272 KiB histogram is not.
  std::shared_ptr<const Histogram> latency_histogram;
  double latency_scale = 1;
  double send_Bps = 0;
  double recv_Bps = 0;
  bool has_bandwidth = false;
  bool bidirectional = false;
  // Two-way tests: each direction's received rate (what arrived), client to server and server
  // to client; recv_Bps is their sum.
  double to_server_Bps = 0, to_client_Bps = 0;
  bool reverse = false;  // one-way test run with -R: the server sent, the client received
  double msg_rate = 0;   // per second
  uint64_t msgs_sent = 0, msgs_received = 0, msgs_lost = 0;
  bool counts_loss = false;  // an unreliable transport: the loss is a figure of its own
  uint64_t verify_checked = 0, verify_errors = 0;
  bool has_verify = false;
  std::vector<StreamFigures> streams;  // empty unless the test ran several streams
  bool open_loop = false;              // --rate: latency timed from each intended send time
  // Open loop: the rate asked (--rate) and whether msg_rate, the rate reached, fell short of it
  // (below kRateShortfall of it: the client or the path could not keep the schedule).
  double rate_asked = 0;
  bool rate_short = false;
  // udp_bw --udp_rate: the receiver's RFC 3550 jitter at the end (ns; -1: not measured).
  double jitter_ns = -1;
};

// Which way a bandwidth test's data went, as JSON and CSV name it: "both" (two-way),
// "server_to_client" (-R) or "client_to_server".
const char* bandwidth_direction(const Figures& f);

// An open loop reaching less than this share of its --rate is reported as falling short.
inline constexpr double kRateShortfall = 0.95;

// How a run ended: measured to the end, failed, cut short by SIGINT/SIGTERM (its figures
// cover the real elapsed time), or never started because the plan was cut before it (listed
// so a reader of the JSON or CSV knows the run was cut, review N12).
enum class RunStatus { kOk, kError, kInterrupted, kNotRun };
const char* run_status_name(RunStatus status);  // "ok", "error", "interrupted", "not run"

// One --interval record as a result keeps it (the JSON result's "intervals", which the HTML
// report draws over time): what the client counted in it, and its latency figures (scaled).
struct IntervalSummary {
  double start_s = 0, end_s = 0;
  IntervalCounts counts;
  uint64_t samples = 0;
  double mean_ns = 0, p50_ns = 0, p99_ns = 0;
  // Its rates, as its text line and JSON line show them (none where !rated: too short).
  bool rated = false;
  double send_Bps = 0, recv_Bps = 0, msg_rate = 0;
  TcpCounters tcp;  // TCP tests: retransmits in the interval, window and round trip at its end
  static IntervalSummary of(const IntervalRecord& record);
};

struct TestResult {
  const TestSpec* spec = nullptr;
  std::string test;
  RunStatus status = RunStatus::kOk;
  std::string error;
  std::vector<std::string> overlapped;  // other clients' runs measured at the same time
  RunOptions local_opts;                // the client's side
  RunOptions remote_opts;               // the server's side, as asked for
  std::vector<std::pair<const OptionSpec*, OptionValue>> loop_values;  // this run's -oo values
  SideStats loc;                                                       // the client
  SideStats rem;                                                       // the server
  Figures figures;
  nlohmann::json conf_local, conf_remote;  // for conf
  std::vector<IntervalSummary> intervals;  // --interval, in order
  // --interval: the server's own records (what a receiving server counted: a paced UDP
  // stream's loss and jitter), from its reply.
  std::vector<IntervalRecord> server_intervals;
  // The display options seen before this test on the command line (qperf's positional -v);
  // none: the reporter's own.
  std::optional<DisplayOptions> display;
  uint64_t repetition = 1, repetitions = 1;  // --repeat: this run's round, of how many

  // Measured (to its end or until interrupted): it has figures to show.
  bool ok() const { return status == RunStatus::kOk || status == RunStatus::kInterrupted; }
  // Either side measured under host noise past the thresholds (derive_figures judged it).
  bool noisy() const { return loc.noise.noisy() || rem.noise.noisy(); }
};

// Fills result.figures from the sides' stats and the client's latency recorder, and judges
// each side's host noise (loc.noise, rem.noise).
void derive_figures(TestResult& result, const LatencyRecorder& latency,
                    const std::vector<double>& percentiles);

}  // namespace fabperf
