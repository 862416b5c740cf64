// --help topics, generated from the option table and the test registry.
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "engine/registry.h"

namespace fabperf {

// Text of a help topic: "" (main), categories, examples, opts, options, tests, or a test name.
// `synopsis`: the program's modes, one usage line each, from their table (app/mode_table.h,
// mode_synopsis()), so the main topic lists every mode there is.
Result<std::string> help_text(const std::string& topic, const TestRegistry& tests,
                              const std::vector<std::string>& synopsis);

}  // namespace fabperf
