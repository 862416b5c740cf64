// The fabperf program as a library call, so main stays thin and tests can drive it in-process.
#pragma once

#include <string>
#include <vector>

namespace fabperf {

// args excludes argv[0]; `program` is argv[0]'s basename. Returns the exit status.
int fabperf_main(const std::string& program, const std::vector<std::string>& args);

}  // namespace fabperf
