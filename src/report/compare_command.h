// `fabperf compare A.json B.json [C.json ...]`: saved runs side by side, each difference with
// its significance (benchstat's way); dispatched by the app as `report` is.
#pragma once

#include <string>
#include <vector>

namespace fabperf {

// The subcommand's arguments after "compare". Returns the exit status: 0 compared and no
// regression, 1 a row regressed past --threshold (for CI gates), 2 bad usage or an input
// that cannot be read, is not a fabperf run document or is truncated (nothing is written).
int compare_main(const std::vector<std::string>& args);

// The subcommand's help text.
std::string compare_usage();

}  // namespace fabperf
