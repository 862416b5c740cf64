// CSV renderer: a header, then one row per result as it completes.
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "core/json_numbers.h"
#include "core/output_file.h"
#include "report/csv_field.h"
#include "report/reporter.h"

namespace fabperf {

std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c == '\n' || c == '\r' ? ' ' : c;
  }
  return out + "\"";
}

namespace {

std::string num(double v) {
  char buf[64];
  snprintf(buf, sizeof buf, "%.6g", finite_or_zero(v));
  return buf;
}

class CsvReporter : public Reporter {
 public:
  CsvReporter(FILE* out, bool owned) : out_(out), owned_(owned) {}
  ~CsvReporter() override {
    if (owned_) fclose(out_);
  }

  void on_result(const RunInfo& info, const TestResult& r) override {
    if (!header_done_) {
      std::string header =
          "test,status,error,msg_size,time_s,elapsed_s,no_msgs,loop,latency_ns_mean,latency_ns_min,"
          "latency_ns_max,latency_ns_stddev";
      for (double p : info.percentiles) header += ",latency_ns_" + percentile_key(p);
      header +=
          ",latency_samples,send_Bps,recv_Bps,msg_rate,msgs_sent,msgs_received,msgs_lost,"
          "loc_cpus_used,rem_cpus_used,loc_proc_cpus_used,rem_proc_cpus_used,verify_checked,"
          "verify_errors,overlapped,direction,client_to_server_Bps,server_to_client_Bps";
      fprintf(out_, "%s\n", header.c_str());
      header_done_ = true;
    }
    const Figures& f = r.figures;
    std::string loop;
    for (const auto& [name, value] : r.loop_values) {
      if (!loop.empty()) loop += ";";
      loop += std::string(name->name) + "=" +
              std::visit(
                  [](const auto& v) {
                    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, std::string>)
                      return v;
                    else
                      return nlohmann::json(v).dump();
                  },
                  value);
    }
    bool measured =
        r.spec != nullptr && r.spec->kind != TestKind::kMisc && r.status != RunStatus::kNotRun;
    std::string row =
        csv_field(r.test) + "," + run_status_name(r.status) + "," + csv_field(r.error);
    row += "," + (measured ? std::to_string(r.local_opts.msg_size) : "");
    // -n governs: the run's -t was not used (its real length is elapsed_s).
    row += "," + (measured && r.local_opts.no_msgs == 0 ? num(r.local_opts.time) : "");
    row += "," + (measured ? num(static_cast<double>(r.loc.real_time_ns) * 1e-9) : "");
    row += "," + (measured ? std::to_string(r.local_opts.no_msgs) : "");
    row += "," + csv_field(loop);
    if (f.latency) {
      row += "," + num(f.latency->mean) + "," + num(f.latency->min) + "," + num(f.latency->max) +
             "," + num(f.latency->stddev);
      for (double p : info.percentiles) {
        double v = 0;
        for (const auto& [q, value] : f.latency->percentiles)
          if (q == p) v = value;
        row += "," + num(v);
      }
      row += "," + std::to_string(f.latency->samples);
    } else {
      row += std::string(4 + info.percentiles.size() + 1, ',');
    }
    row += "," + (f.has_bandwidth ? num(f.send_Bps) : "") + "," +
           (f.has_bandwidth ? num(f.recv_Bps) : "") + "," + (measured ? num(f.msg_rate) : "");
    row += "," + std::to_string(f.msgs_sent) + "," + std::to_string(f.msgs_received) + "," +
           std::to_string(f.msgs_lost);
    row += "," + num(r.loc.cpu.cpus_used) + "," + num(r.rem.cpu.cpus_used) + "," +
           num(r.loc.cpu.proc_used) + "," + num(r.rem.cpu.proc_used);
    row += "," + std::to_string(f.verify_checked) + "," + std::to_string(f.verify_errors);
    row += "," + std::to_string(r.overlapped.size());
    // Which way the data went; a two-way test's two directions (appended: earlier columns
    // keep their places).
    row += "," + std::string(f.has_bandwidth ? bandwidth_direction(f) : "");
    row += "," + (f.bidirectional ? num(f.to_server_Bps) : "") + "," +
           (f.bidirectional ? num(f.to_client_Bps) : "");
    fprintf(out_, "%s\n", row.c_str());
    fflush(out_);
  }

  Status finish(const RunInfo&) override {
    fflush(out_);
    return ferror(out_) ? Status::failed("--csv: write failed") : Status::success();
  }

 private:
  FILE* out_;
  bool owned_;
  bool header_done_ = false;
};

}  // namespace

Result<std::unique_ptr<Reporter>> make_csv_reporter(const std::string& path) {
  if (path == "-") return std::unique_ptr<Reporter>(new CsvReporter(stdout, false));
  FP_RETURN_IF_ERROR(check_writable(path, "--csv"));
  FILE* f = fopen(path.c_str(), "w");
  if (f == nullptr) {
    return Status::usage("--csv " + path + ": cannot write the file: " + std::strerror(errno));
  }
  return std::unique_ptr<Reporter>(new CsvReporter(f, true));
}

}  // namespace fabperf
