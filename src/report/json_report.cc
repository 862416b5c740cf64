// JSON renderer: one valid document per run (never NaN or Infinity), written at the end.
#include <cstdio>
#include <fstream>

#include "core/clock.h"
#include "report/reporter.h"

namespace fabperf {

namespace {

constexpr int kSchema = 1;

nlohmann::json cpu_json(const CpuUsage& c) {
  return {{"used", finite_or_zero(c.cpus_used)},     {"user", finite_or_zero(c.cpus_user)},
          {"kernel", finite_or_zero(c.cpus_kernel)}, {"intr", finite_or_zero(c.cpus_intr)},
          {"iowait", finite_or_zero(c.cpus_iowait)}, {"proc_used", finite_or_zero(c.proc_used)},
          {"proc_user", finite_or_zero(c.proc_user)},
          {"proc_kernel", finite_or_zero(c.proc_kernel)}, {"real_s", finite_or_zero(c.real_s)}};
}

class JsonReporter : public Reporter {
 public:
  explicit JsonReporter(std::string path) : path_(std::move(path)) {}

  void Result(const RunInfo&, const TestResult& result) override {
    results_.push_back(result_to_json(result));
  }

  Status Finish(const RunInfo& info) override {
    nlohmann::json doc = {{"tool", "fabperf"},
                          {"version", FABPERF_VERSION},
                          {"schema", kSchema},
                          {"started", info.started},
                          {"clock", kClockName},
                          {"command", info.argv},
                          {"client", info.client},
                          {"server", info.server.is_null() ? nlohmann::json::object() : info.server},
                          {"percentiles", info.percentiles},
                          {"results", results_}};
    std::string text = doc.dump(2) + "\n";
    if (path_ == "-") {
      std::fwrite(text.data(), 1, text.size(), stdout);
      std::fflush(stdout);
      return Status::Ok();
    }
    std::ofstream out(path_, std::ios::trunc);
    out << text;
    out.close();
    if (!out) return Status::Failed("--json " + path_ + ": cannot write the file");
    return Status::Ok();
  }

 private:
  std::string path_;
  nlohmann::json results_ = nlohmann::json::array();
};

}  // namespace

nlohmann::json result_to_json(const TestResult& r) {
  nlohmann::json j = {{"test", r.test}, {"status", r.ok ? "ok" : "error"}};
  if (!r.ok) j["error"] = r.error;
  nlohmann::json params = r.local_params.to_json();
  // Where the server ran with other values (--rem_X), both are recorded.
  for (const std::string& name : r.remote_params.names()) {
    if (!r.local_params.has(name) || r.local_params.raw(name) != r.remote_params.raw(name)) {
      std::visit([&](const auto& v) { params["rem_" + name] = v; }, r.remote_params.raw(name));
    }
  }
  j["params"] = params;
  if (!r.loop_values.empty()) {
    nlohmann::json loop = nlohmann::json::object();
    for (const auto& loop_value : r.loop_values) {
      std::visit([&](const auto& v) { loop[loop_value.first] = v; }, loop_value.second);
    }
    j["loop"] = loop;
  }
  if (r.test == "conf") {
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
  }
  if (f.has_bandwidth) {
    j["bandwidth"] = {{"send_Bps", finite_or_zero(f.send_Bps)},
                      {"recv_Bps", finite_or_zero(f.recv_Bps)}};
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
  auto mode_of = [](const ParamSet& p) {
    return p.has("cq_poll") && p.on("cq_poll") ? "poll" : "block";
  };
  j["mode"] = mode_of(r.local_params);
  if (std::string(mode_of(r.remote_params)) != mode_of(r.local_params)) {
    j["rem_mode"] = mode_of(r.remote_params);
  }
  j["affinity"] = {{"loc", r.loc.cpus}, {"rem", r.rem.cpus}};
  if (f.latency) j["latency_mode"] = f.open_loop ? "open_loop" : "closed_loop";
  j["msg_rate"] = finite_or_zero(f.msg_rate);
  j["messages"] = {{"sent", f.msgs_sent}, {"received", f.msgs_received}, {"lost", f.msgs_lost}};
  j["cpu"] = {{"loc", cpu_json(r.loc.cpu)}, {"rem", cpu_json(r.rem.cpu)}};
  if (f.has_verify) j["verify"] = {{"checked", f.verify_checked}, {"errors", f.verify_errors}};
  j["counters"] = {{"loc", r.loc.to_json()}, {"rem", r.rem.to_json()}};
  j["counters"]["loc"].erase("cpu");
  j["counters"]["rem"].erase("cpu");
  if (!r.loc.info.empty() || !r.rem.info.empty()) j["info"] = {{"loc", r.loc.info}, {"rem", r.rem.info}};
  return j;
}

Result<std::unique_ptr<Reporter>> make_json_reporter(const std::string& path) {
  if (path != "-") {
    std::ofstream probe(path, std::ios::app);
    if (!probe) return Status::Usage("--json " + path + ": cannot open the file for writing");
  }
  return std::unique_ptr<Reporter>(new JsonReporter(path));
}

}  // namespace fabperf
