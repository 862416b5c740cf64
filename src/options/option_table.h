// The option table: one row per option of both dialects. Parsing, validation, defaults, help,
// "set but not used" warnings, the fab_* tools' spellings and the JSON dump all derive from it;
// each row names the typed field (run_options.h) its value lands in.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

enum class OptType {
  kSize,    // bytes with k/K/m/M/g/G suffixes -> uint64
  kCount,   // non-negative integer -> uint64
  kInt,     // signed integer -> int64
  kTime,    // seconds with s/m/h/d suffixes -> double
  kNumber,  // a plain non-negative real (degrees, watts, GB/s) -> double
  kOnOff,   // takes 0/1 -> bool; also spelled -X1 for "on"
  kFlag,    // takes no argument -> bool true
  kString,  // free text, or one of `choices` -> string
  kLoop,    // -oo Var:Init:Last:Incr (repeatable, nested)
};

// Who uses an option. kShared and kPerSide options are RunOptions and travel to the server.
enum class OptScope {
  kShared,   // one value, used by both sides, sent to the server
  kPerSide,  // --X sets both, --loc_X this side, --rem_X the server's
  kClient,   // this process only (display, output files, connection), never sent
  kServer,   // server process only (limits, access control)
  kAny,      // used by both a client and a server process, never sent (listen_port, bind)
};

// The command-line dialects: qperf's (fabperf) and the CXI diagnostics' (fab_*).
enum class Dialect { kQperf, kCxi };

// The fab_* tools, one bit each, so a CXI spelling can say which tools accept it.
enum CxiTool : uint32_t {
  kCxiWriteLat = 1u << 0,
  kCxiReadLat = 1u << 1,
  kCxiSendLat = 1u << 2,
  kCxiAtomicLat = 1u << 3,
  kCxiWriteBw = 1u << 4,
  kCxiReadBw = 1u << 5,
  kCxiSendBw = 1u << 6,
  kCxiAtomicBw = 1u << 7,
  kCxiLoopbackBw = 1u << 8,
  kCxiHeatsink = 1u << 9,
  kCxiStat = 1u << 10,
  kCxiLatTools = kCxiWriteLat | kCxiReadLat | kCxiSendLat | kCxiAtomicLat,
  kCxiBwTools = kCxiWriteBw | kCxiReadBw | kCxiSendBw | kCxiAtomicBw,
  kCxiPairTools = kCxiLatTools | kCxiBwTools,  // client/server pairs
  kCxiRunTools = kCxiPairTools | kCxiLoopbackBw | kCxiHeatsink,
  kCxiAllTools = (1u << 11) - 1,
};

// Where a row's value lives: a field of RunOptions or of ProgramOptions (none for -oo).
using FieldRef =
    std::variant<std::monostate, bool RunOptions::*, uint64_t RunOptions::*, int64_t RunOptions::*,
                 double RunOptions::*, std::string RunOptions::*, bool ProgramOptions::*,
                 uint64_t ProgramOptions::*, int64_t ProgramOptions::*, double ProgramOptions::*,
                 std::string ProgramOptions::*>;

// One value, as parsed: sizes and counts uint64, integers int64, times and numbers double
// (seconds), switches bool, text string.
using OptionValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

// How a fab_* tool spells an option (getopt_long grammar: -n 5, -n5, --iters=5, --iters 5).
struct CxiSpelling {
  char short_name = 0;              // 0: long only
  const char* long_name = nullptr;  // nullptr: the row's name with '-' for '_'
  uint32_t tools = kCxiAllTools;    // the tools that accept it
  const char* help = nullptr;       // nullptr: the row's help
  const char* arg_name = nullptr;   // nullptr: the row's, upper case
  const char* fixed = nullptr;      // takes no argument and sets this value ("0" for --keep)
  bool sweep = false;               // MIN:MAX runs every power of two between (-s 8:1024)
  const char* noun = nullptr;       // "Invalid NOUN: VALUE"; nullptr: the long name in words
  double max = 0;                   // these tools' largest value, below the row's (0: the row's)
};

struct OptionSpec {
  const char* name;                  // canonical, used on the wire and in JSON: "msg_size"
  const char* short_name = nullptr;  // qperf spelling without the dash: "m"
  OptType type = OptType::kString;
  FieldRef field = {};
  const char* default_text = "";  // parsed like user input; "" for empty strings
  double min = 0;                 // numeric range, inclusive (ignored for other types)
  double max = 0;
  // A time or number the user gives must be above 0 (the default 0 means "off").
  bool positive = false;
  OptScope scope = OptScope::kClient;
  bool per_test = false;           // a test must list it, else "set but not used"
  const char* group = "misc";      // help grouping: "test", "socket", "fabric", "display", ...
  const char* arg_name = nullptr;  // "Size", "Time", ... (nullptr for flags)
  const char* help = "";
  std::vector<const char*> choices = {};  // allowed values (input in any case; stored as listed)
  Status (*check)(std::string_view value) = nullptr;  // further checks of a string value
  std::vector<const char*> implies = {};              // flags that set other flags (-v, -vv)
  bool qperf = true;                                  // spelled in fabperf's (qperf's) grammar
  std::vector<CxiSpelling> cxi = {};                  // spellings in the fab_* tools
  const char* cxi_default = nullptr;                  // the fab_* tools' default, where it differs
  size_t index = 0;                                   // position in the table, set when it is built

  bool is_run_option() const { return scope == OptScope::kShared || scope == OptScope::kPerSide; }
  const char* default_for(Dialect d) const {
    return d == Dialect::kCxi && cxi_default != nullptr ? cxi_default : default_text;
  }
};

const std::vector<OptionSpec>& option_table();
// The row of a canonical name ("msg_size"), or nullptr.
const OptionSpec* find_option(std::string_view name);
// The row whose field is `field`; every field has one (checked by a unit test).
const OptionSpec& option_of(const FieldRef& field);

// Parses a value of the option's type, checks its range, choices and check; messages name
// `who` (the spelling the user typed).
Result<OptionValue> parse_option_value(const OptionSpec& spec, std::string_view text,
                                       std::string_view who);

// Stores a value in the row's field; by_user marks it given.
void store(RunOptions& options, const OptionSpec& spec, const OptionValue& value, bool by_user);
void store(ProgramOptions& options, const OptionSpec& spec, const OptionValue& value, bool by_user);
// The row's value as held in the struct.
OptionValue load(const RunOptions& options, const OptionSpec& spec);
OptionValue load(const ProgramOptions& options, const OptionSpec& spec);
// True when the user set this field (not its default).
bool given(const RunOptions& options, const FieldRef& field);
bool given(const ProgramOptions& options, const FieldRef& field);
// The interval of a run's periodic reports (lines, the JSON stream): --interval where the user
// gave it, else 0 (none). Never the field's default: fab_heatsink_check's rows default to
// 10 s in the same field, its sampling period.
double report_interval_s(const ProgramOptions& options);

// Every field at its default in `dialect`.
RunOptions default_run_options(Dialect dialect = Dialect::kQperf);
ProgramOptions default_program_options(Dialect dialect = Dialect::kQperf);

// Text form of a value for -vu output and error messages.
std::string option_value_text(const OptionValue& value);

// Levenshtein-nearest candidate, or "" when none is close enough.
std::string nearest(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace fabperf
