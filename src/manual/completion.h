// Bash completion for fabperf and the fab_* links, generated from the option table and the
// test registry (build: fabperf_docgen completion), so it cannot drift from the program.
#pragma once

#include <string>

#include "engine/registry.h"

namespace fabperf::manual {

// A script for bash's `complete`: tests, every spelling of every option (fabperf's grammar;
// both the short and long spellings of each fab_* tool), the values of options that take one
// of a list or 0/1 (--help's topics too), and file names (bash's own completion, -o default)
// after other options that take an argument and in `fabperf report` and `fabperf compare`.
// Needs plain bash only, not the bash-completion package.
std::string bash_completion(const TestRegistry& tests);

}  // namespace fabperf::manual
