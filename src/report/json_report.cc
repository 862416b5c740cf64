// JSON renderer: one valid document per run (never NaN or Infinity), written at the end; the
// document reporter that writes it also serves the HTML report.
#include "core/clock.h"
#include "core/json_numbers.h"
#include "core/output_file.h"
#include "options/run_options_json.h"
#include "report/json_text.h"
#include "report/reporter.h"

namespace fabperf {

namespace {

nlohmann::json cpu_json(const CpuUsage& c) {
  return {
      {"used", finite_or_zero(c.cpus_used)},      {"user", finite_or_zero(c.cpus_user)},
      {"kernel", finite_or_zero(c.cpus_kernel)},  {"intr", finite_or_zero(c.cpus_intr)},
      {"iowait", finite_or_zero(c.cpus_iowait)},  {"proc_used", finite_or_zero(c.proc_used)},
      {"proc_user", finite_or_zero(c.proc_user)}, {"proc_kernel", finite_or_zero(c.proc_kernel)},
      {"real_s", finite_or_zero(c.real_s)}};
}

// The JSON and HTML reporters: every result's JSON kept, the whole document rendered and
// written at the end, so the file is never half a document.
class DocumentReporter : public Reporter {
 public:
  DocumentReporter(std::string path, std::string option, DocumentRenderer render)
      : path_(std::move(path)), option_(std::move(option)), render_(std::move(render)) {}

  void on_result(const RunInfo&, const TestResult& result) override {
    results_.push_back(result_to_json(result));
  }

  Status finish(const RunInfo& info) override {
    auto text = render_(run_document(info, results_));
    if (!text.ok()) return text.status().prefixed(option_ + " " + path_);
    return write_file_atomically(path_, *text, option_);
  }

 private:
  std::string path_, option_;
  DocumentRenderer render_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace

nlohmann::json run_document(const RunInfo& info, nlohmann::json results) {
  return {{"tool", "fabperf"},
          {"version", FABPERF_VERSION},
          {"schema", kJsonSchema},
          {"started", info.started},
          {"clock", kClockName},
          {"command", info.argv},
          {"client", info.client},
          {"server", info.server.is_null() ? nlohmann::json::object() : info.server},
          {"percentiles", info.percentiles},
          {"results", std::move(results)}};
}

nlohmann::json latency_histogram_json(const Histogram& histogram, double scale) {
  nlohmann::json j = histogram.to_json();
  j["scale"] = finite_or_zero(scale);
  return j;
}

nlohmann::json interval_counts_json(const IntervalCounts& c) {
  // "bytes" and "msgs": the direction this side moved data in (what it sent, or, where it only
  // received, what it received), the figures the HTML report draws over time.
  nlohmann::json j = {{"send_bytes", c.send_bytes},
                      {"send_msgs", c.send_msgs},
                      {"recv_bytes", c.recv_bytes},
                      {"recv_msgs", c.recv_msgs},
                      {"lost", c.lost},
                      {"bytes", c.send_bytes > 0 ? c.send_bytes : c.recv_bytes},
                      {"msgs", c.send_msgs > 0 ? c.send_msgs : c.recv_msgs}};
  if (c.jitter_ns >= 0) j["jitter_ns"] = finite_or_zero(c.jitter_ns);  // a paced UDP receiver's
  return j;
}

nlohmann::json intervals_json(const std::vector<IntervalSummary>& intervals) {
  nlohmann::json out = nlohmann::json::array();
  for (const IntervalSummary& i : intervals) {
    nlohmann::json e = {{"start_s", finite_or_zero(i.start_s)}, {"t_s", finite_or_zero(i.end_s)}};
    e.update(interval_counts_json(i.counts));
    // The rates the text and JSON lines showed; none over a span too short for one.
    if (i.rated) {
      e["send_Bps"] = finite_or_zero(i.send_Bps);
      e["recv_Bps"] = finite_or_zero(i.recv_Bps);
      e["Bps"] = finite_or_zero(i.counts.send_bytes > 0 ? i.send_Bps : i.recv_Bps);
      e["msg_rate"] = finite_or_zero(i.msg_rate);
    }
    if (i.tcp.valid()) e["tcp"] = i.tcp.to_json();
    if (i.samples > 0) {
      e["latency_ns"] = {{"samples", i.samples},
                         {"mean", finite_or_zero(i.mean_ns)},
                         {"p50", finite_or_zero(i.p50_ns)},
                         {"p99", finite_or_zero(i.p99_ns)}};
    }
    out.push_back(std::move(e));
  }
  return out;
}

namespace {

// What was run and how: the test, its outcome, its parameters (both sides'), --loop's values
// and --repeat's place.
nlohmann::json run_head_json(const TestResult& r) {
  nlohmann::json j = {{"test", r.test}, {"status", run_status_name(r.status)}};
  if (!r.error.empty()) j["error"] = r.error;
  // The measured phase as it really ran (an interrupted run's figures cover this much).
  j["elapsed_s"] = finite_or_zero(static_cast<double>(r.loc.real_time_ns) * 1e-9);
  if (!r.overlapped.empty()) j["overlapped"] = r.overlapped;
  nlohmann::json params = to_json(r.local_opts);
  // Where the server ran with other values (--rem_X), both are recorded.
  const nlohmann::json remote = to_json(r.remote_opts);
  for (const auto& [name, value] : remote.items()) {
    if (params[name] != value) params["rem_" + name] = value;
  }
  j["params"] = params;
  // A run limited by a count (-n) does not use its time (-t): said, so no reader takes the
  // default 2 s (or a -t given beside -n) for the run's length.
  if (r.local_opts.no_msgs > 0 && r.spec != nullptr && r.spec->kind != TestKind::kMisc) {
    j["unused_params"] = {"time"};
  }
  if (!r.loop_values.empty()) {
    nlohmann::json loop = nlohmann::json::object();
    for (const auto& loop_value : r.loop_values) {
      std::visit([&](const auto& v) { loop[loop_value.first->name] = v; }, loop_value.second);
    }
    j["loop"] = loop;
  }
  // --repeat: every repetition is a result of its own; readers group them by test and
  // parameters and take the spread between them (fabperf compare).
  if (r.repetitions > 1) {
    j["repetition"] = r.repetition;
    j["repetitions"] = r.repetitions;
  }
  return j;
}

// The figures: latency with its histogram, bandwidth and its direction, per-stream rates.
void add_figures(const TestResult& r, nlohmann::json& j) {
  const Figures& f = r.figures;
  if (f.latency) {
    nlohmann::json lat = f.latency->to_json();
    for (auto& [key, value] : lat.items()) {
      if (value.is_number_float()) value = finite_or_zero(value.get<double>());
    }
    j["latency_ns"] = lat;
    if (f.latency_histogram) {
      j["latency_histogram"] = latency_histogram_json(*f.latency_histogram, f.latency_scale);
    }
  }
  if (f.has_bandwidth) {
    j["bandwidth"] = {{"send_Bps", finite_or_zero(f.send_Bps)},
                      {"recv_Bps", finite_or_zero(f.recv_Bps)}};
    // Which way the data went: both (two-way tests, each direction's received rate beside the
    // sum), or one way, client to server unless -R.
    j["bandwidth"]["direction"] = bandwidth_direction(f);
    if (f.bidirectional) {
      j["bandwidth"]["client_to_server_Bps"] = finite_or_zero(f.to_server_Bps);
      j["bandwidth"]["server_to_client_Bps"] = finite_or_zero(f.to_client_Bps);
    }
  }
  if (!f.streams.empty()) {
    nlohmann::json streams = nlohmann::json::array();
    for (size_t i = 0; i < f.streams.size(); ++i) {
      const StreamFigures& sf = f.streams[i];
      streams.push_back({{"stream", i},
                         {"send_bytes", sf.send_bytes},
                         {"recv_bytes", sf.recv_bytes},
                         {"send_Bps", finite_or_zero(sf.send_Bps)},
                         {"recv_Bps", finite_or_zero(sf.recv_Bps)}});
    }
    j["streams"] = streams;
  }
}

// The conditions of the measurement: how the sides waited and where they ran, the loop's
// kind, the messages, CPU, TCP's counters and the data check.
void add_conditions(const TestResult& r, nlohmann::json& j) {
  const Figures& f = r.figures;
  // How the sides waited (busy-poll or blocking) and where they ran (-ca, and its effect).
  auto mode_of = [](const RunOptions& o) { return o.cq_poll ? "poll" : "block"; };
  j["mode"] = mode_of(r.local_opts);
  if (std::string(mode_of(r.remote_opts)) != mode_of(r.local_opts)) {
    j["rem_mode"] = mode_of(r.remote_opts);
  }
  j["affinity"] = {{"loc", r.loc.cpus}, {"rem", r.rem.cpus}};
  if (f.latency) j["latency_mode"] = f.open_loop ? "open_loop" : "closed_loop";
  if (f.open_loop) {
    j["open_loop"] = {{"asked_rate", finite_or_zero(f.rate_asked)},
                      {"reached_rate", finite_or_zero(f.msg_rate)},
                      {"fell_short", f.rate_short}};
  }
  j["msg_rate"] = finite_or_zero(f.msg_rate);
  if (f.jitter_ns >= 0) j["jitter_ns"] = finite_or_zero(f.jitter_ns);
  if (r.local_opts.omit > 0) j["omitted_s"] = finite_or_zero(r.local_opts.omit);
  j["messages"] = {{"sent", f.msgs_sent}, {"received", f.msgs_received}, {"lost", f.msgs_lost}};
  j["cpu"] = {{"loc", cpu_json(r.loc.cpu)}, {"rem", cpu_json(r.rem.cpu)}};
  // TCP's own counters of each side's data connections at the end (TCP tests).
  if (r.loc.tcp.valid() || r.rem.tcp.valid()) {
    j["tcp"] = nlohmann::json::object();
    if (r.loc.tcp.valid()) j["tcp"]["loc"] = r.loc.tcp.to_json();
    if (r.rem.tcp.valid()) j["tcp"]["rem"] = r.rem.tcp.to_json();
  }
  if (f.has_verify) j["verify"] = {{"checked", f.verify_checked}, {"errors", f.verify_errors}};
}

// Each side's own record: intervals, counters, host noise and what the side chose (info).
void add_sides(const TestResult& r, nlohmann::json& j) {
  if (!r.intervals.empty()) j["intervals"] = intervals_json(r.intervals);
  // The server's own view of each interval (a receiving server's loss and jitter).
  if (!r.server_intervals.empty()) {
    std::vector<IntervalSummary> server;
    for (const IntervalRecord& rec : r.server_intervals) server.push_back(IntervalSummary::of(rec));
    j["server_intervals"] = intervals_json(server);
  }
  j["counters"] = {{"loc", r.loc.to_json()}, {"rem", r.rem.to_json()}};
  for (const char* side : {"loc", "rem"}) {
    j["counters"][side].erase("cpu");
    j["counters"][side].erase("host_noise");  // its own object below
    j["counters"][side].erase("tcp");
  }
  // What the host did to the run on each side, and whether that makes it untrustworthy.
  if (r.loc.noise.measured || r.rem.noise.measured) {
    nlohmann::json noise = {{"verdict", r.noisy() ? "noisy" : "quiet"}};
    if (r.loc.noise.measured) noise["loc"] = r.loc.noise.to_json();
    if (r.rem.noise.measured) noise["rem"] = r.rem.noise.to_json();
    j["host_noise"] = noise;
  }
  if (!r.loc.info.empty() || !r.rem.info.empty())
    j["info"] = {{"loc", r.loc.info}, {"rem", r.rem.info}};
}

}  // namespace

nlohmann::json result_to_json(const TestResult& r) {
  nlohmann::json j = run_head_json(r);
  if (r.spec != nullptr && r.spec->misc == MiscAction::kConf) {
    j["conf"] = {{"loc", r.conf_local}, {"rem", r.conf_remote}};
    return j;
  }
  if (r.spec == nullptr || r.spec->kind == TestKind::kMisc) return j;
  if (r.status == RunStatus::kNotRun) return j;  // nothing was measured
  add_figures(r, j);
  add_conditions(r, j);
  add_sides(r, j);
  return j;
}

Result<std::unique_ptr<Reporter>> make_document_reporter(const std::string& path,
                                                         const std::string& option,
                                                         DocumentRenderer render) {
  FP_RETURN_IF_ERROR(check_writable(path, option));
  return std::unique_ptr<Reporter>(new DocumentReporter(path, option, std::move(render)));
}

Result<std::unique_ptr<Reporter>> make_json_reporter(const std::string& path) {
  return make_document_reporter(path, "--json", [](const nlohmann::json& document) {
    return Result<std::string>(json_text(document));
  });
}

}  // namespace fabperf
