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
  return {{"used", finite_or_zero(c.cpus_used)},     {"user", finite_or_zero(c.cpus_user)},
          {"kernel", finite_or_zero(c.cpus_kernel)}, {"intr", finite_or_zero(c.cpus_intr)},
          {"iowait", finite_or_zero(c.cpus_iowait)}, {"proc_used", finite_or_zero(c.proc_used)},
          {"proc_user", finite_or_zero(c.proc_user)},
          {"proc_kernel", finite_or_zero(c.proc_kernel)}, {"real_s", finite_or_zero(c.real_s)}};
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
    if (!text.ok()) return text.status().Prefixed(option_ + " " + path_);
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
  return {{"send_bytes", c.send_bytes}, {"send_msgs", c.send_msgs},
          {"recv_bytes", c.recv_bytes}, {"recv_msgs", c.recv_msgs},
          {"lost", c.lost},
          {"bytes", c.send_bytes > 0 ? c.send_bytes : c.recv_bytes},
          {"msgs", c.send_msgs > 0 ? c.send_msgs : c.recv_msgs}};
}

nlohmann::json intervals_json(const std::vector<IntervalSummary>& intervals) {
  nlohmann::json out = nlohmann::json::array();
  for (const IntervalSummary& i : intervals) {
    nlohmann::json e = {{"start_s", finite_or_zero(i.start_s)}, {"t_s", finite_or_zero(i.end_s)}};
    e.update(interval_counts_json(i.counts));
    if (i.samples > 0) {
      e["latency_ns"] = {{"samples", i.samples}, {"mean", finite_or_zero(i.mean_ns)},
                         {"p50", finite_or_zero(i.p50_ns)}, {"p99", finite_or_zero(i.p99_ns)}};
    }
    out.push_back(std::move(e));
  }
  return out;
}

nlohmann::json result_to_json(const TestResult& r) {
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
  if (!r.loop_values.empty()) {
    nlohmann::json loop = nlohmann::json::object();
    for (const auto& loop_value : r.loop_values) {
      std::visit([&](const auto& v) { loop[loop_value.first->name] = v; }, loop_value.second);
    }
    j["loop"] = loop;
  }
  if (r.spec != nullptr && r.spec->misc == MiscAction::kConf) {
    j["conf"] = {{"loc", r.conf_local}, {"rem", r.conf_remote}};
    return j;
  }
  if (r.spec == nullptr || r.spec->kind == TestKind::kMisc) return j;
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
  j["messages"] = {{"sent", f.msgs_sent}, {"received", f.msgs_received}, {"lost", f.msgs_lost}};
  j["cpu"] = {{"loc", cpu_json(r.loc.cpu)}, {"rem", cpu_json(r.rem.cpu)}};
  if (f.has_verify) j["verify"] = {{"checked", f.verify_checked}, {"errors", f.verify_errors}};
  if (!r.intervals.empty()) j["intervals"] = intervals_json(r.intervals);
  j["counters"] = {{"loc", r.loc.to_json()}, {"rem", r.rem.to_json()}};
  j["counters"]["loc"].erase("cpu");
  j["counters"]["rem"].erase("cpu");
  if (!r.loc.info.empty() || !r.rem.info.empty()) j["info"] = {{"loc", r.loc.info}, {"rem", r.rem.info}};
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
