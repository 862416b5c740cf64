// qperf's command-line grammar: whole-token options, host first, tests positional, -oo loops.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options/option_table.h"
#include "options/params.h"
#include "core/status.h"

namespace fabperf {

struct TestSpec;

// One option as the user typed it.
struct Assignment {
  const OptionSpec* spec;
  Side side;
  ParamValue value;
  std::string spelling;
};

// -oo Var:Init:Last:Incr, expanded into its values up front (bounded by kMaxLoopValues).
struct LoopSpec {
  const OptionSpec* var;
  std::vector<ParamValue> values;
  std::string text;
};
inline constexpr size_t kMaxLoopValues = 10000;

// A test named on the command line, with the options in force for it.
struct TestRequest {
  std::string name;
  std::vector<Assignment> assignments;  // in order: those before it, then those after the last test
  std::vector<LoopSpec> loops;          // outermost first
};

struct CommandLine {
  std::string host;
  std::vector<TestRequest> tests;
  std::vector<Assignment> assignments;  // every option, in order
  bool help = false;
  std::string help_topic;
  bool version = false;

  // The last value given for a process-wide option, or its default.
  ParamValue global(const std::string& name) const;
  bool flag(const std::string& name) const;
  bool is_set(const std::string& name) const;
};

// Parses argv[1..]. `known_tests` decides what is a test name (for errors and suggestions).
Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const std::vector<std::string>& known_tests);

// Parses one -oo argument.
Result<LoopSpec> parse_loop(const std::string& text);

// The effective parameters of one run of a test on each side: defaults, then the user's
// assignments, then this run's loop values. Warnings ("-n set but not used in test tcp_lat")
// are appended to `warnings`.
struct RunParams {
  ParamSet local;
  ParamSet remote;
};
Result<RunParams> resolve_params(const TestSpec& test, const std::vector<Assignment>& assignments,
                                 const std::vector<Assignment>& loop_values,
                                 std::vector<std::string>* warnings);

// Server side: rebuilds a ParamSet from the client's JSON by option name, checking every name,
// type and range against the option table.
Result<ParamSet> params_from_json(const nlohmann::json& j);

// Every combination of the loops' values, outermost loop varying slowest.
std::vector<std::vector<Assignment>> expand_loops(const std::vector<LoopSpec>& loops);

}  // namespace fabperf
