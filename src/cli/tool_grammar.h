// The fab_* tools' grammar (getopt_long's rules: -n 5, -n5, --iters=5, --iters 5, unique long
// prefixes, clustered flags as -bR, operands anywhere, "--" ends options) over the spellings
// the option table gives each tool. It fills the same CommandLine as fabperf's grammar.
#pragma once

#include <string>
#include <vector>

#include "cli/command_line.h"

namespace fabperf {

// `tool` is one CxiTool bit, `tool_name` its program name (for messages), `takes_server`
// whether an operand names a server. Error messages follow getopt_long's wording.
Result<CommandLine> parse_tool_command_line(const std::vector<std::string>& args, uint32_t tool,
                                            const std::string& tool_name, bool takes_server);

// --help text of one tool, derived from the table (spellings, argument names, help).
std::string tool_usage_options(uint32_t tool);

}  // namespace fabperf
