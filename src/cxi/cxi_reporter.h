// The fab_* tools' output as reporters of the one engine: the client's summary and table
// (a Reporter), and the server's summary and rows (a ServerObserver), in the originals' layout.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cxi/cxi_format.h"
#include "cxi/cxi_tools.h"
#include "report/reporter.h"
#include "session/server.h"

namespace fabperf::cxi {

// The client's text: summary block (`view`: the run it asks for, its own buffers), table
// header, a row per size (or every sample with --report-all), the closing line. Each side's
// Device line names the domain its runs use (cxi_plan.h domain_in_use).
std::unique_ptr<Reporter> make_tool_reporter(const Tool& tool, const ProgramOptions& program,
                                             SummaryView view, Endpoints endpoints, bool loopback);

// The server's text: when a client's first run starts, its summary of the run that client
// asked for (the RunView it sent in HELLO) with this server's own device and buffers; then,
// as the original's run_lat_passive, "See client for results." once per size (latency
// tools), or its own rows (bandwidth tools).
std::unique_ptr<ServerObserver> make_tool_server_observer(const Tool& tool,
                                                          const ProgramOptions& program,
                                                          std::FILE* out, int gpus_found = -1);

// One row of the table for a finished run, as the client (or, `server`, the server) prints it.
std::string result_row(const Tool& tool, const TestResult& r, bool server = false);

}  // namespace fabperf::cxi
