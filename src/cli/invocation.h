// The command line resolved once, whichever grammar parsed it: what every mode reads. Its
// parts as typed (host, tests, assignments), the program options, and this process's own run
// options with a fab_* tool's defaults already in force.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/run_plan.h"
#include "core/status.h"

namespace fabperf {

// A command line resolved: the parsed CommandLine (its assignments with a tool's defaults in
// front of the user's, so each test's options hold them too), `own`, this process's run
// options (a server's -to, -ca ...; a tool's size, list and iterations), and, where asked for,
// the planned runs (every test once per loop value, --repeat's rounds), resolved here once.
struct Invocation : CommandLine {
  RunOptions own;
  std::vector<PlannedRun> runs;
};

// A dialect's defaults that depend on what the user typed (a fab_* tool's size from its atomic
// type, its list, -n as iterations of that list): data the resolver puts under the user's
// options, who win.
struct ToolDefaults {
  std::vector<Assignment> assignments;  // before the user's, on every test
  std::optional<uint64_t> iters;        // the program's -n when the user gave none
  std::string test;                     // the test the tool runs ("" keeps the parsed one)
};

// The rule of a tool: its defaults from the options as typed (`program` it may settle, as a
// GPU type discovered; `typed_own`, this process's run options before the tool's defaults).
using ToolDefaultsRule = std::function<Result<ToolDefaults>(
    ProgramOptions& program, const CommandLine& typed, const RunOptions& typed_own)>;

// Resolves `parsed` into an Invocation: the tool's defaults where `rule` is set, then this
// process's run options (defaults of the dialect, the tool's, then every assignment that is
// not for the remote side). A rule's error comes back as it said it.
Result<Invocation> resolve_invocation(CommandLine parsed, const ToolDefaultsRule& rule = nullptr);

// The runs of `inv` planned (plan_runs, then --repeat's rounds) into inv.runs, checked before
// anything runs: for the modes that run fabperf's plan as it stands (a qperf-grammar client).
Status plan_invocation(Invocation& inv, const TestRegistry& tests);

}  // namespace fabperf
