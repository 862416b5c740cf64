// The --matrix front end: the one hook the application calls (app/fabperf_app.cc).
#pragma once

#include <string>
#include <vector>

#include "cli/command_line.h"
#include "session/modes.h"

namespace fabperf::cluster {

// -1 when the command line is not a --matrix one (nor uses a --matrix option: that is a usage
// error, answered here); else the process's exit status once the job is done. `argv` is the
// command as typed (for the report); `env` the app's tests and isolation of fabric runs.
// SIGINT/SIGTERM (core/signals.h) end the job early, reported.
int maybe_run_matrix(const std::vector<std::string>& argv, const CommandLine& cl,
                     const SessionEnv& env);

}  // namespace fabperf::cluster
