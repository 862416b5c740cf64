// Top level of the CXI dialect: argv[0] names the tool (fab_write_lat ...), this runs it.
#pragma once

#include <cstdio>
#include <string>
#include <vector>

#include "cxi/cxi_options.h"
#include "engine/registry.h"

namespace fabperf::cxi {

// True when `program` (argv[0]'s basename) is one of the fab_* tools (or a cxi_* name).
bool is_cxi_program(const std::string& program);

// Runs the tool; returns the exit status (0 ok, 1 error as the originals; fab_heatsink_check
// 2 when a target failed).
int cxi_main(const std::string& program, const std::vector<std::string>& args,
             const TestRegistry& tests);

// The pieces, for tools that reuse them.
int run_heatsink_check(const Tool& tool, const CxiOptions& o);  // heatsink.cc
int run_stat(const Tool& tool, const CxiOptions& o);            // stat.cc

// `fabperf --list-fabrics`: one line per provider and domain, the names -P/--provider and
// -d/--domain take. Returns the exit status.
int list_fabrics(std::FILE* out);

}  // namespace fabperf::cxi
