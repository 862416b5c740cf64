// Spellings derived from the option rows, for both grammars.
#include "options/spellings.h"

#include <algorithm>
#include <cctype>

namespace fabperf {

namespace {

// "--msg-size" and "--msg_size" name the same option; short and -X1 forms are exact.
std::string normalized(std::string_view text) {
  std::string out(text);
  if (out.rfind("--", 0) == 0) std::replace(out.begin() + 2, out.end(), '-', '_');
  return out;
}

}  // namespace

const std::vector<Spelling>& qperf_spellings() {
  static const std::vector<Spelling> spellings = [] {
    std::vector<Spelling> out;
    for (const OptionSpec& spec : option_table()) {
      if (!spec.qperf) continue;
      std::string name = spec.name;
      out.push_back({"--" + name, &spec, Side::kBoth, false});
      if (spec.short_name) {
        out.push_back({std::string("-") + spec.short_name, &spec, Side::kBoth, false});
      }
      if (spec.type == OptType::kOnOff && spec.short_name) {
        out.push_back({std::string("-") + spec.short_name + "1", &spec, Side::kBoth, true});
      }
      if (spec.scope == OptScope::kPerSide) {
        out.push_back({"--loc_" + name, &spec, Side::kLocal, false});
        out.push_back({"--rem_" + name, &spec, Side::kRemote, false});
        if (spec.short_name) {
          std::string s = spec.short_name;
          out.push_back({"-l" + s, &spec, Side::kLocal, false});
          out.push_back({"-r" + s, &spec, Side::kRemote, false});
          if (spec.type == OptType::kOnOff) {
            out.push_back({"-l" + s + "1", &spec, Side::kLocal, true});
            out.push_back({"-r" + s + "1", &spec, Side::kRemote, true});
          }
        }
      }
    }
    // Friendlier spellings users of other tools type.
    out.push_back({"--poll", find_option("cq_poll"), Side::kBoth, true});
    return out;
  }();
  return spellings;
}

const Spelling* find_qperf_spelling(std::string_view text) {
  std::string wanted = normalized(text);
  for (const Spelling& s : qperf_spellings()) {
    if (normalized(s.text) == wanted) return &s;
  }
  return nullptr;
}

std::vector<ToolSpelling> tool_spellings(uint32_t tool) {
  std::vector<ToolSpelling> out;
  for (const OptionSpec& spec : option_table()) {
    for (const CxiSpelling& c : spec.cxi) {
      if ((c.tools & tool) == 0) continue;
      std::string long_name = c.long_name != nullptr ? c.long_name : spec.name;
      std::replace(long_name.begin(), long_name.end(), '_', '-');
      out.push_back({&c, &spec, long_name});
    }
  }
  return out;
}

bool tool_takes_arg(const ToolSpelling& s) {
  return s.cxi->fixed == nullptr && s.spec->type != OptType::kFlag;
}

std::string tool_arg_name(const ToolSpelling& s) {
  std::string arg = s.cxi->arg_name != nullptr    ? s.cxi->arg_name
                    : s.spec->arg_name != nullptr ? s.spec->arg_name
                                                  : "VALUE";
  std::transform(arg.begin(), arg.end(), arg.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return arg;
}

}  // namespace fabperf
