// Reporter: a renderer of results (qperf text, JSON, CSV, HTML); several may run in one
// invocation.
#pragma once

#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/interval.h"
#include "engine/test_result.h"
#include "options/display_options.h"

namespace fabperf {

// What every renderer may show about the run as a whole.
struct RunInfo {
  std::string started;            // ISO 8601, UTC
  std::vector<std::string> argv;  // the command as typed
  nlohmann::json client;          // node_info() of this side
  nlohmann::json server;          // the server's node_info(), once known
  int64_t server_pid = 0;         // the server's pid, as it says
  nlohmann::json server_options;  // the server's own per-process options, as it says
  std::string local_host;         // this side's address on the control connection
  std::string server_cpus;        // the CPUs the server may run on, as it says ("0-3"; "": unsaid)
  std::vector<double> percentiles;
};

class Reporter {
 public:
  virtual ~Reporter() = default;
  // The session is open (info.server known), before the first run.
  virtual void on_start(const RunInfo&) {}
  // A run begins (`pending` holds its test and options, nothing measured yet).
  virtual void on_run_start(const RunInfo&, const TestResult& /*pending*/) {}
  // Reporters that show every latency sample as it is measured (fab_* --report-all).
  virtual bool wants_samples() const { return false; }
  virtual void on_sample(double /*ns*/) {}
  static void sample_thunk(void* reporter, double ns) {
    static_cast<Reporter*>(reporter)->on_sample(ns);
  }
  // --interval: one interval of the run under way, as this client counted it (called on the
  // measuring thread between iterations, or on the streams' supervisor; keep it short).
  virtual void on_interval(const RunInfo&, const TestResult& /*pending*/, const IntervalRecord&) {}
  // The descriptors on_sample and on_interval write, above stderr (an open output file): a
  // measuring thread with a private descriptor table keeps them (engine/measuring_thread.h).
  virtual std::vector<int> descriptors() const { return {}; }
  virtual void on_result(const RunInfo& info, const TestResult& result) = 0;
  // Called once at the end (also after SIGINT): write whatever is buffered.
  virtual Status finish(const RunInfo& info) = 0;
};

std::unique_ptr<Reporter> make_qperf_text_reporter(const DisplayOptions& options);
// `path` "-" is standard output.
Result<std::unique_ptr<Reporter>> make_json_reporter(const std::string& path);
Result<std::unique_ptr<Reporter>> make_csv_reporter(const std::string& path);

// --json-stream: one JSON object per line (start, run, interval, result, end records; see
// report/json_stream.h), each line flushed as written. `path` "-" is standard output; it is
// checked now and opened at the first record.
Result<std::unique_ptr<Reporter>> make_json_stream_reporter(const std::string& path,
                                                            double interval_s);

// An --interval line of the text reports: "tcp_bw [0.10-0.20 s]  send_bw = 1.2 GB/sec ...".
std::string interval_line(const std::string& label, const TestResult& pending,
                          const IntervalRecord& record, const DisplayOptions& display);

// `path` "-" is standard output. Writes one self-contained HTML report (charts of the JSON
// document, report/report_model.h) at finish.
Result<std::unique_ptr<Reporter>> make_html_reporter(const std::string& path);

// Renders a run's whole document (run_document below) as a file's text.
using DocumentRenderer = std::function<Result<std::string>(const nlohmann::json& document)>;
// A reporter that keeps every result's JSON and at finish (also after SIGINT) writes
// render(document) whole to `path` ("-": standard output); `option` names it in errors.
Result<std::unique_ptr<Reporter>> make_document_reporter(const std::string& path,
                                                         const std::string& option,
                                                         DocumentRenderer render);

// Version of the JSON document; 2 added `latency_histogram`.
inline constexpr int kJsonSchema = 2;

// The JSON object of one result (shared by the JSON and HTML reporters and tests).
nlohmann::json result_to_json(const TestResult& result);
// A result's "intervals" (--interval): per interval start_s, t_s (its end), the counts of
// interval_counts_json and latency_ns (samples, mean, p50, p99) where it has samples.
nlohmann::json intervals_json(const std::vector<IntervalSummary>& intervals);
nlohmann::json interval_counts_json(const IntervalCounts& counts);
// The run's whole document around `results` (an array of result_to_json objects).
nlohmann::json run_document(const RunInfo& info, nlohmann::json results);
// A latency histogram's sparse form (Histogram::to_json) plus "scale": a bucket's reported
// value in ns is Histogram::bucket_value(index) * scale.
nlohmann::json latency_histogram_json(const Histogram& histogram, double scale);

}  // namespace fabperf
