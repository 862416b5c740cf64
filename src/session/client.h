// The client runner, for both dialects: one session with the server (hello, optional proof of
// the key), then every run of the plan (RUN, QUEUED while it waits its turn, READY, the test's
// client role, RESULT, REPORT), each result handed to the reporters as it completes.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "cli/run_plan.h"
#include "engine/registry.h"
#include "engine/test_result.h"
#include "report/progress.h"
#include "report/reporter.h"
#include "session/qperf_hooks.h"

namespace fabperf {

// The fields that are options (-lp, --wait_server, --bind, --qperf_server, --interval) take
// their defaults from the option table alone: client_config_of() reads them from
// ProgramOptions, and their zeros here are never a second copy of them.
struct ClientConfig {
  std::string host;
  uint16_t port = 0;         // -lp
  double wait_server_s = 0;  // --wait_server
  std::string bind_addr;
  std::string auth_key;  // --auth_key_file's key: prove it to the server, and check the server's
  std::string tool = "fabperf";  // the name HELLO gives (a fab_* server wants its own)
  bool label_by_tool = false;    // messages start with the tool's name, not the test's (fab_*)
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT/SIGTERM
  // Stock qperf servers: recognised by their answer to HELLO (or, with --qperf_server, assumed)
  // and measured with qperf's protocol (null: fabperf servers only).
  const QperfHooks* qperf = nullptr;
  bool qperf_server = false;
  // --interval: seconds between the interval records of every measured run (0: none).
  double interval_s = 0;
  // Progress on a terminal (null: standard error is not one).
  TerminalProgress* progress = nullptr;
  // This process's own options, told to the server in HELLO (OwnOptions::said).
  nlohmann::json own_options = nlohmann::json::object();
  // Host-noise warnings on standard error (stats/host_noise.h); --matrix marks its pairs
  // instead of every rank printing them.
  bool noise_warnings = true;
};

// The client settings the options give: -lp, --wait_server, --bind, --qperf_server, and
// --interval where given (fab_heatsink_check's rows default it to 10 s in the same field).
// client_config_of(default_program_options()) is the option table's defaults.
ClientConfig client_config_of(const ProgramOptions& program);

// Runs the plan: ok, kFailed (or kUsage) when a run failed, kInterrupted when stopped. Each
// failure is said on standard error as it happens, so the Status carries no message.
Status run_plan(const std::vector<PlannedRun>& plan, const ClientConfig& config, RunInfo& info,
                std::vector<std::unique_ptr<Reporter>>& reporters);

}  // namespace fabperf
