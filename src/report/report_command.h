// `fabperf report RUN.json [MORE.json ...] -o FILE.html`: draws saved runs as one HTML page
// (the app dispatches to it before either dialect parses its command line).
#pragma once

#include <string>
#include <vector>

namespace fabperf {

// The subcommand's arguments after "report". Returns the exit status: 0 written, 1 an input
// could not be read or is not a fabperf document (or the output could not be written),
// 2 bad usage. Errors go to stderr, each naming the file and what was wrong.
int report_main(const std::vector<std::string>& args);

// The subcommand's help text.
std::string report_usage();

}  // namespace fabperf
