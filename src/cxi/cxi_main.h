// Top level of the CXI dialect: argv[0] names the tool (fab_write_lat ...), this runs it.
#pragma once

#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cxi/cxi_tools.h"
#include "engine/registry.h"
#include "report/reporter.h"
#include "session/modes.h"

namespace fabperf::cxi {

// True when `program` (argv[0]'s basename) is one of the fab_* tools (or a cxi_* name).
bool is_cxi_program(const std::string& program);

// Runs the tool: kFailed for any error, bad usage included, as the originals; kInterrupted
// when stopped; kCheckFailed when fab_heatsink_check's target failed.
Status cxi_main(const std::string& program, const std::vector<std::string>& args, RunInfo& info,
                const SessionEnv& env);

// The tools that run no pair: heatsink.cc, stat.cc.
Status run_heatsink_check(const Tool& tool, CommandLine& cl, const TestRegistry& tests);
Status run_stat(const Tool& tool, const CommandLine& cl);

}  // namespace fabperf::cxi
