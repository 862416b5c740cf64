// A parsed command line, whichever grammar read it: fabperf's (qperf's whole-token options,
// host first, tests positional, -oo loops) or a fab_* tool's (getopt_long, tool_grammar.h).
#pragma once

#include <string>
#include <vector>

#include "core/status.h"
#include "options/option_table.h"
#include "options/spellings.h"

namespace fabperf {

// One option as the user typed it.
struct Assignment {
  const OptionSpec* spec;
  Side side;
  OptionValue value;
  std::string spelling;
};

// -oo Var:Init:Last:Incr (or a tool's -s MIN:MAX), expanded into its values up front.
struct LoopSpec {
  const OptionSpec* var;
  std::vector<OptionValue> values;
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
  Dialect dialect = Dialect::kQperf;
  std::string host;  // "" on a server
  std::vector<TestRequest> tests;
  std::vector<Assignment> assignments;  // every option, in order
  ProgramOptions program;               // this process's options, resolved
  std::string help_topic;
};

// Parses argv[1..] in fabperf's grammar. `known_tests` decides what is a test name.
Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const std::vector<std::string>& known_tests);

// Parses one -oo argument.
Result<LoopSpec> parse_loop(const std::string& text);

// The program options of `assignments` over the dialect's defaults (flags that imply others,
// as -v, included).
ProgramOptions resolve_program(const std::vector<Assignment>& assignments, Dialect dialect);

// Every spelling of this grammar, for "did you mean" and for help.
std::vector<std::string> qperf_spelling_texts();

}  // namespace fabperf
