// The --matrix front end: the one hook the application calls (app/fabperf_app.cc).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "session/modes.h"

namespace fabperf::cluster {

// Nothing when the command line is not a --matrix one (nor uses a --matrix option: that is a
// usage error, answered here); else the job's outcome once it is done. `argv` is the command
// as typed (for the report); `env` the app's tests and isolation of fabric runs.
// SIGINT/SIGTERM (core/signals.h) end the job early, reported.
std::optional<Status> maybe_run_matrix(const std::vector<std::string>& argv,
                                       const CommandLine& cl, const SessionEnv& env);

}  // namespace fabperf::cluster
