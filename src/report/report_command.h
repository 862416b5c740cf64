// `fabperf report RUN.json [MORE.json ...] -o FILE.html`: draws saved runs as one HTML page
// (the app dispatches to it before either dialect parses its command line).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf {

// The subcommand's arguments after "report": ok written, kFailed an input could not be read
// or is not a fabperf document (or the output could not be written), kUsage bad usage. Each
// error's message names the file and what was wrong.
Status report_main(const std::vector<std::string>& args);

// The subcommand's help text.
std::string report_usage();

}  // namespace fabperf
