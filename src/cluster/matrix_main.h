// The --matrix front end: the mode row app/mode_table.cc runs.
#pragma once

#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/invocation.h"
#include "session/modes.h"

namespace fabperf::cluster {

// True when the command line is a --matrix one, or uses a --matrix option without --matrix
// (a usage error that run_matrix says): every rank of an mpirun/srun job.
bool is_matrix_command(const CommandLine& cl);

// The job: its outcome once it is done. `argv` is the command as typed (for the report); `env`
// the app's tests and isolation of fabric runs. SIGINT/SIGTERM (core/signals.h) end the job
// early, reported.
Status run_matrix(const std::vector<std::string>& argv, const Invocation& cl,
                  const SessionEnv& env);

}  // namespace fabperf::cluster
