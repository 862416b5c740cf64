// run_pair over the engine's client runner (session/client.h): a plan of one run, and a
// reporter that keeps its figure instead of printing it.
#include "cluster/pair_runner.h"

#include <algorithm>
#include <memory>

#include "options/option_table.h"
#include "session/client.h"

namespace fabperf::cluster {

namespace {

// Keeps the figure (or the failure) instead of printing: rank 0 renders the matrix.
class KeepFigure : public Reporter {
 public:
  explicit KeepFigure(const FigureDef& figure) : figure_(figure) {}
  void on_result(const RunInfo&, const TestResult& result) override {
    got_result = true;
    outcome.noisy = result.noisy();
    if (result.status == RunStatus::kOk) {
      outcome.value = figure_value(result, figure_);
      if (!outcome.value) outcome.error = "the result has no " + figure_.path;
    } else {
      outcome.error = result.status == RunStatus::kInterrupted
                          ? "stopped"
                          : (result.error.empty() ? "failed" : result.error);
    }
  }
  Status finish(const RunInfo&) override { return Status::success(); }

  bool got_result = false;
  PairOutcome outcome;

 private:
  const FigureDef& figure_;
};

}  // namespace

PairOutcome run_pair(const PairRun& run, const FigureDef& figure) {
  if (run.run == nullptr || run.run->spec == nullptr) return {std::nullopt, "no such test"};
  PlannedRun one = *run.run;
  one.warnings.clear();  // rank 0 said them once, at start (matrix_warnings)
  if (run.time_s > 0) {
    // --budget's -t, or --matrix's default when none was given.
    one.params.local.time = run.time_s;
    one.params.remote.time = run.time_s;
  }
  ClientConfig config = client_config_of(default_program_options());
  config.host = run.peer_addr;
  config.port = run.peer_port;
  config.auth_key = run.peer_key;
  config.bind_addr = run.bind;
  config.wait_server_s = run.wait_server_s;
  config.stop = run.stop;
  config.noise_warnings = false;  // the matrix marks the pair instead (PairOutcome::noisy)
  RunInfo info;
  info.percentiles = {50};  // the matrix's latency figure is the median
  auto keep = std::make_unique<KeepFigure>(figure);
  KeepFigure* kept = keep.get();
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::move(keep));
  Status outcome = run_plan({one}, config, info, reporters);
  if (!kept->got_result) {
    return {std::nullopt, outcome.code() == Code::kInterrupted
                              ? "stopped"
                              : std::string("the run produced no result") +
                                    (outcome.code() == Code::kUsage ? " (a usage error)" : "")};
  }
  return kept->outcome;
}

std::vector<std::string> matrix_warnings(const std::vector<PlannedRun>& runs) {
  std::vector<std::string> out;
  for (const PlannedRun& run : runs) {
    for (const std::string& w : run.warnings) {
      if (std::find(out.begin(), out.end(), w) == out.end()) out.push_back(w);
    }
  }
  return out;
}

}  // namespace fabperf::cluster
