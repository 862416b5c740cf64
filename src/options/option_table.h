// The option table: one row per option; parsing, help, warnings and JSON derive from it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "options/params.h"
#include "core/status.h"

namespace fabperf {

enum class OptType {
  kSize,    // bytes with k/K/m/M/g/G suffixes -> uint64
  kCount,   // non-negative integer -> uint64
  kInt,     // signed integer -> int64
  kTime,    // seconds with s/m/h/d suffixes -> double
  kOnOff,   // takes 0/1 -> bool; also spelled -X1 for "on"
  kFlag,    // takes no argument -> bool true
  kString,  // free text -> string
  kLoop,    // -oo Var:Init:Last:Incr (repeatable, nested)
};

// Who uses an option. kPerSide options have loc_/rem_ variants and travel to the server.
enum class OptScope {
  kShared,   // one value, used by both sides, sent to the server
  kPerSide,  // --X sets both, --loc_X this side, --rem_X the server's
  kClient,   // this process only (display, output files, connection), never sent
  kServer,   // server process only (limits, access control)
  kAny,      // used by both a client and a server process, never sent (listen_port, bind)
};

struct OptionSpec {
  const char* name;       // canonical, used on the wire and in JSON: "msg_size"
  const char* short_name; // qperf spelling without the dash: "m" (nullptr when none)
  OptType type;
  const char* default_text;  // parsed like user input; "" for empty strings
  double min;                // numeric range, inclusive (ignored for other types)
  double max;
  OptScope scope;
  bool per_test;             // a test must list it, else "set but not used"
  const char* group;         // help grouping: "test", "socket", "fabric", "display", ...
  const char* arg_name;      // "Size", "Time", ... (nullptr for flags)
  const char* help;
  std::vector<const char*> implies = {};  // flags that set other flags (-v, -vv)
};

const std::vector<OptionSpec>& option_table();
const OptionSpec* find_option(std::string_view name);

// Which side an assignment targets.
enum class Side { kBoth, kLocal, kRemote };

// One way of typing an option on the command line, derived from the table.
struct Spelling {
  std::string text;  // "-lcp1", "--rem_timeout", "-m"
  const OptionSpec* spec;
  Side side;
  bool sets_on;      // the -X1 form: an OnOff set to 1 with no argument
};
const std::vector<Spelling>& option_spellings();
const Spelling* find_spelling(std::string_view text);

// Parses a value of the option's type and checks its range; messages name the spelling.
Result<ParamValue> parse_option_value(const OptionSpec& spec, std::string_view text,
                                      std::string_view spelling);

// Text form of a value for -vu output and error messages.
std::string param_value_text(const ParamValue& value);

// Levenshtein-nearest candidate, or "" when none is close enough.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fabperf
