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

// The client's text: summary block, table header, a row per size (or every sample with
// --report-all), the closing line.
std::unique_ptr<Reporter> make_tool_reporter(const Tool& tool, const ProgramOptions& program,
                                             const RunOptions& first_run, uint64_t min_size,
                                             uint64_t max_size, Endpoints endpoints,
                                             bool loopback);

// The server's text: its summary when a client's first run starts, "See client for results."
// for latency tools, its own rows for bandwidth tools.
std::unique_ptr<ServerObserver> make_tool_server_observer(const Tool& tool,
                                                          const ProgramOptions& program,
                                                          std::FILE* out);

// One row of the table for a finished run, as the client (or, `server`, the server) prints it.
std::string result_row(const Tool& tool, const TestResult& r, bool server = false);

}  // namespace fabperf::cxi
