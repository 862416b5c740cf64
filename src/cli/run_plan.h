// The run plan: every test of a command line, once per loop value, with both sides' options
// resolved. Both dialects build one; the client runs it (session/client.h).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/command_line.h"
#include "engine/registry.h"
#include "options/display_options.h"
#include "options/run_options_json.h"

namespace fabperf {

struct PlannedRun {
  const TestSpec* spec = nullptr;
  RunParams params;
  std::vector<std::pair<const OptionSpec*, OptionValue>> loop_values;  // this run's -oo values
  std::vector<std::string> warnings;  // "warning: -n set but not used in test conf"
  // The -v family, -e, -un ... seen before the test (positional); none: the reporters' own.
  std::optional<DisplayOptions> display;
  uint64_t repetition = 1, repetitions = 1;  // --repeat: which round of how many
};

// Defaults of `dialect`, then the user's assignments, then this run's loop values. Usage
// errors name the option; warnings ("-n set but not used") are appended to `warnings`.
Result<RunParams> resolve_run(const TestSpec& test, const std::vector<Assignment>& assignments,
                              const std::vector<Assignment>& loop_values, Dialect dialect,
                              std::vector<std::string>* warnings);

// Every combination of the loops' values, outermost loop varying slowest.
std::vector<std::vector<Assignment>> expand_loops(const std::vector<LoopSpec>& loops);

// The whole plan of a command line, checked before anything runs.
Result<std::vector<PlannedRun>> plan_runs(const CommandLine& cl, const TestRegistry& tests);

// --repeat N: the plan N times, round after round (so slow drift of a shared host spreads
// over every test rather than landing on the last sizes), each run numbered. Tests that
// measure nothing (conf, quit) run once, in the last round, so quit still ends the session.
// Usage error past kMaxLoopValues runs in all.
Result<std::vector<PlannedRun>> repeat_plan(const std::vector<PlannedRun>& plan, uint64_t rounds);

}  // namespace fabperf
