// The --json-stream reporter: JSON lines flushed as written.
#include "report/json_stream.h"

#include <cerrno>
#include <cstring>

#include "core/clock.h"
#include "core/json_numbers.h"
#include "core/output_file.h"
#include "options/run_options_json.h"

namespace fabperf {

Status JsonLineWriter::write(const nlohmann::json& record) {
  if (!status_.ok()) return status_;
  std::string line = record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  line.push_back('\n');
  if (std::fwrite(line.data(), 1, line.size(), f_) != line.size() || std::fflush(f_) != 0) {
    status_ = Status::failed(std::string("write failed: ") + std::strerror(errno));
  }
  return status_;
}

nlohmann::json stream_start_record(const RunInfo& info, double interval_s) {
  return {{"record", "start"},
          {"tool", "fabperf"},
          {"version", FABPERF_VERSION},
          {"schema", kJsonSchema},
          {"started", info.started},
          {"clock", kClockName},
          {"command", info.argv},
          {"client", info.client},
          {"server", info.server.is_null() ? nlohmann::json::object() : info.server},
          {"percentiles", info.percentiles},
          {"interval_s", finite_or_zero(interval_s)}};
}

nlohmann::json stream_run_record(size_t run, const TestResult& pending) {
  nlohmann::json j = {{"record", "run"},
                      {"run", run},
                      {"test", pending.test},
                      {"params", to_json(pending.local_opts)}};
  if (!pending.loop_values.empty()) {
    nlohmann::json loop = nlohmann::json::object();
    for (const auto& lv : pending.loop_values) {
      std::visit([&](const auto& v) { loop[lv.first->name] = v; }, lv.second);
    }
    j["loop"] = loop;
  }
  return j;
}

nlohmann::json stream_interval_record(size_t run, const TestResult& pending,
                                      const IntervalRecord& r) {
  IntervalFigures f = interval_figures(r);
  nlohmann::json j = {{"record", "interval"},
                      {"run", run},
                      {"test", pending.test},
                      {"interval", r.index},
                      {"start_s", finite_or_zero(r.start_s)},
                      {"end_s", finite_or_zero(r.end_s)},
                      {"last", r.last}};
  j.update(interval_counts_json(r.counts));
  // No rate over a span too short to mean one (a whole run under kMinRateSpanS).
  if (f.rated) {
    j["send_Bps"] = finite_or_zero(f.send_Bps);
    j["recv_Bps"] = finite_or_zero(f.recv_Bps);
    j["msg_rate"] = finite_or_zero(f.msg_rate);
  }
  if (r.tcp.valid()) j["tcp"] = r.tcp.to_json();
  if (r.latency != nullptr) {
    j["latency_ns"] = {{"samples", f.samples},
                       {"mean", finite_or_zero(f.mean_ns)},
                       {"p99", finite_or_zero(f.p99_ns)}};
    j["latency_histogram"] = latency_histogram_json(*r.latency, r.latency_scale);
  }
  return j;
}

nlohmann::json stream_result_record(size_t run, const TestResult& result) {
  return {{"record", "result"}, {"run", run}, {"result", result_to_json(result)}};
}

nlohmann::json stream_end_record(size_t results, size_t errors, bool interrupted) {
  return {
      {"record", "end"}, {"results", results}, {"errors", errors}, {"interrupted", interrupted}};
}

namespace {

class JsonStreamReporter : public Reporter {
 public:
  JsonStreamReporter(std::string path, double interval_s)
      : path_(std::move(path)), interval_s_(interval_s) {}
  ~JsonStreamReporter() override {
    if (file_ != nullptr && file_ != stdout) std::fclose(file_);
  }

  void on_start(const RunInfo& info) override { begin(info); }
  void on_run_start(const RunInfo& info, const TestResult& pending) override {
    begin(info);
    write(stream_run_record(runs_, pending));
  }
  void on_interval(const RunInfo&, const TestResult& pending, const IntervalRecord& r) override {
    write(stream_interval_record(runs_, pending, r));
  }
  void on_result(const RunInfo& info, const TestResult& result) override {
    begin(info);
    write(stream_result_record(runs_++, result));
    if (result.status == RunStatus::kError) ++errors_;
    if (result.status == RunStatus::kInterrupted) interrupted_ = true;
  }
  std::vector<int> descriptors() const override {
    if (file_ == nullptr) return {};
    return {fileno(file_)};
  }
  Status finish(const RunInfo& info) override {
    begin(info);
    write(stream_end_record(runs_, errors_, interrupted_));
    if (!open_status_.ok()) return open_status_;
    if (writer_ && !writer_->status().ok()) {
      return writer_->status().prefixed("--json-stream " + path_);
    }
    return Status::success();
  }

 private:
  // The start record goes first, whenever the first record comes (a server that cannot be
  // reached gives a result with no on_start before it).
  void begin(const RunInfo& info) {
    if (started_) return;
    started_ = true;
    if (path_ == "-") {
      file_ = stdout;
    } else {
      file_ = std::fopen(path_.c_str(), "w");
      if (file_ == nullptr) {
        open_status_ = Status::failed("--json-stream " + path_ +
                                      ": cannot write the file: " + std::strerror(errno));
        return;
      }
    }
    writer_ = std::make_unique<JsonLineWriter>(file_);
    write(stream_start_record(info, interval_s_));
  }
  void write(const nlohmann::json& record) {
    if (writer_) writer_->write(record).ignore_error();
  }

  std::string path_;
  double interval_s_;
  bool started_ = false;
  std::FILE* file_ = nullptr;
  std::unique_ptr<JsonLineWriter> writer_;
  Status open_status_;
  size_t runs_ = 0, errors_ = 0;
  bool interrupted_ = false;
};

}  // namespace

Result<std::unique_ptr<Reporter>> make_json_stream_reporter(const std::string& path,
                                                            double interval_s) {
  FP_RETURN_IF_ERROR(check_writable(path, "--json-stream"));
  return std::unique_ptr<Reporter>(new JsonStreamReporter(path, interval_s));
}

}  // namespace fabperf
