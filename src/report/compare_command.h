// `fabperf compare A.json B.json [C.json ...]`: saved runs side by side, each difference with
// its significance (benchstat's way); dispatched by the app as `report` is.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf {

// The subcommand's arguments after "compare": ok compared and no regression, kFailed a row
// regressed past --threshold (for CI gates; exit 1), kUsage bad usage or an input that cannot
// be read, is not a fabperf run document or is truncated (nothing is written; exit 2).
Status compare_main(const std::vector<std::string>& args);

// The subcommand's help text.
std::string compare_usage();

}  // namespace fabperf
