// --help topics, generated from the option table and the test registry.
#pragma once

#include <string>

#include "core/status.h"
#include "engine/registry.h"

namespace fabperf {

// Text of a help topic: "" (main), categories, examples, opts, options, tests, or a test name.
Result<std::string> help_text(const std::string& topic, const TestRegistry& tests);

}  // namespace fabperf
