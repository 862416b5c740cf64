// How users type options: fabperf's spellings derived from each row (-m, --msg_size,
// --loc_msg_size, -lm, -cp1 ...) and the fab_* tools' spellings listed in the rows.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "options/option_table.h"

namespace fabperf {

// Which side an assignment targets.
enum class Side { kBoth, kLocal, kRemote };

// One way of typing an option in fabperf's (qperf's) grammar.
struct Spelling {
  std::string text;  // "-lcp1", "--rem_timeout", "-m"
  const OptionSpec* spec;
  Side side;
  bool sets_on;  // the -X1 form: an OnOff set to 1 with no argument
};
const std::vector<Spelling>& qperf_spellings();
// The spelling typed as `text`; in long options '-' and '_' are the same ("--msg-size").
const Spelling* find_qperf_spelling(std::string_view text);

// One way of typing an option in a fab_* tool.
struct ToolSpelling {
  const CxiSpelling* cxi;
  const OptionSpec* spec;
  std::string long_name;  // "iters", "device", "list-size"
};
// Every spelling `tool` (one CxiTool bit) accepts, in table order.
std::vector<ToolSpelling> tool_spellings(uint32_t tool);
// Whether the spelling takes an argument, and its name in upper case ("SIZE", "MIN[:MAX]"),
// for --help and the man pages.
bool tool_takes_arg(const ToolSpelling& s);
std::string tool_arg_name(const ToolSpelling& s);

}  // namespace fabperf
