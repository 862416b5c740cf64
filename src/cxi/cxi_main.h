// The CXI dialect's modes: argv[0] names the tool (fab_write_lat ...), these run it.
#pragma once

#include <string>
#include <vector>

#include "cli/invocation.h"
#include "cxi/cxi_tools.h"
#include "engine/registry.h"
#include "report/reporter.h"
#include "session/modes.h"

namespace fabperf::cxi {

// True when `program` (argv[0]'s basename) is one of the fab_* tools (or a cxi_* name).
bool is_cxi_program(const std::string& program);

// The tool's --help text: its usage lines, summary and options.
std::string tool_help(const Tool& tool);

// What the tools say before a measuring mode runs: that --emu-mode means nothing here.
void note_tool_options(const Tool& tool, const Invocation& cl);

// The modes of a fab_* tool (rows of app/mode_table.cc): kInterrupted when stopped,
// kCheckFailed when fab_heatsink_check's target failed. The originals exit 1 for every error,
// bad usage included: fabperf_main maps this dialect's kUsage so.
// A pair tool with no server named: serves, with the tool's own -t/-r/-g/-v/-d.
Status run_tool_server(const Tool& tool, const Invocation& cl, const SessionEnv& env);
// A pair tool against cl.host, or fab_loopback_bw (`loopback`): the tool's tables, and
// fabperf's --json/--html/--json-stream beside them.
Status run_tool_client(const Tool& tool, Invocation& cl, RunInfo& info, const SessionEnv& env,
                       bool loopback);

// The tools that run no pair: heatsink.cc, stat.cc.
Status run_heatsink_check(const Tool& tool, Invocation& cl, const TestRegistry& tests);
Status run_stat(const Tool& tool, const Invocation& cl);

}  // namespace fabperf::cxi
