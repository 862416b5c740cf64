// What a fabperf process does, whichever dialect parsed its command line: serve, run a plan
// against a server, or run a plan against a server inside this process (--loopback).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "cli/invocation.h"
#include "cli/run_plan.h"
#include "report/reporter.h"
#include "session/server.h"

namespace fabperf {

// What the app gives the modes: the tests it knows, and how it isolates fabric runs.
struct SessionEnv {
  const TestRegistry* tests = nullptr;
  IsolatedRunner isolate;  // empty: fabric runs' server sides run on the session's thread
  const QperfHooks* qperf = nullptr;  // stock qperf peers (qperf_wire/); null: fabperf's only
};

// Serves until stopped (SIGINT/SIGTERM, a client's quit, or the end of the first session with
// --once). `banner` is printed once listening ("" for none).
// `tool` is a fab_* server's name (its clients must be the same tool), "" for fabperf's.
// `own`: the server's own per-process options (a fab_* server's), or null.
Status run_server_mode(const Invocation& cl, const SessionEnv& env, ServerObserver* observer,
                       const std::string& banner, const std::string& tool = "",
                       const OwnOptions* own = nullptr);

// Runs `plan` against cl.host, or against a server in this process when `loopback`. The
// reporters get every result and finish() at the end, interrupted or not. Returns kFailed
// when a run failed, kUsage for bad usage, kInterrupted when stopped.
Status run_client_mode(const Invocation& cl, const std::vector<PlannedRun>& plan, RunInfo& info,
                       std::vector<std::unique_ptr<Reporter>>& reporters, bool loopback,
                       const std::string& tool, const SessionEnv& env,
                       const nlohmann::json& own_options = nlohmann::json::object());

}  // namespace fabperf
