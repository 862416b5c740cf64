// Man pages generated from the option table, the test registry and the fab_* tool table, the
// same rows --help prints, so a page cannot drift from the program (build: fabperf_docgen).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/registry.h"

namespace fabperf::manual {

// fabperf(1): synopsis, description and exit status from --help, every option of fabperf's
// grammar by group, every test. `synopsis`: the modes' usage lines (app/mode_table.h).
std::string fabperf_man_page(const TestRegistry& tests, const std::vector<std::string>& synopsis);

// fab_write_lat(1) and its siblings: the tool's synopsis and every spelling it accepts. An
// unknown name is a usage error naming the tools.
Result<std::string> tool_man_page(std::string_view tool);

}  // namespace fabperf::manual
