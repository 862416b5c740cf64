// getopt_long's grammar over a fab_* tool's spellings from the option table.
#include "cli/tool_grammar.h"

#include <algorithm>

#include "core/units.h"

namespace fabperf {

namespace {

constexpr uint64_t kMaxToolSize = 4294967295ull;  // the originals' largest -s (4 GiB - 1)

bool power_of_two(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }

std::string noun_of(const ToolSpelling& s) {
  if (s.cxi->noun != nullptr) return s.cxi->noun;
  std::string words = s.long_name;
  std::replace(words.begin(), words.end(), '-', ' ');
  return words;
}

// "Invalid iteration count: 0 (0 is out of range (1 to 1000000000000))", as the originals
// name a bad value, with our reason after it.
Status invalid(const ToolSpelling& s, const std::string& value, const Status& why) {
  std::string reason = why.message();
  if (size_t colon = reason.find(": "); colon != std::string::npos)
    reason = reason.substr(colon + 2);
  return Status::usage("Invalid " + noun_of(s) + ": " + value + " (" + reason + ")");
}

// -s MIN[:MAX]: one size, or every power of two from MIN to MAX.
Status apply_sweep(CommandLine& cl, const ToolSpelling& s, const std::string& value,
                   std::vector<LoopSpec>& loops) {
  size_t colon = value.find(':');
  std::string lo = value.substr(0, colon);
  std::string hi = colon == std::string::npos ? lo : value.substr(colon + 1);
  auto a = parse_size(lo), b = parse_size(hi);
  auto bad = [&](const char* why) {
    return Status::usage("Invalid " + noun_of(s) + ": " + value + " (" + why + ")");
  };
  if (!a.ok() || !b.ok() || *a == 0 || *b == 0 || *a > kMaxToolSize || *b > kMaxToolSize) {
    return bad("sizes are 1 to 4294967295 bytes");
  }
  if (colon == std::string::npos) {
    cl.assignments.push_back({s.spec, Side::kBoth, *a, "-" + std::string(1, s.cxi->short_name)});
    return Status::success();
  }
  if (!power_of_two(*a) || !power_of_two(*b)) return bad("ranges must be powers of 2");
  if (*a > *b) return bad("MIN is above MAX");
  LoopSpec loop{s.spec, {}, value};
  // Built in place: push_back of a temporary variant makes GCC 12 warn -Wmaybe-uninitialized
  // about its string alternative (a false positive).
  for (uint64_t v = *a; v <= *b && v != 0; v *= 2) {
    loop.values.emplace_back(std::in_place_type<uint64_t>, v);
  }
  loops = {loop};
  return Status::success();
}

Status apply(CommandLine& cl, const ToolSpelling& s, const std::string& typed,
             const std::string& value, std::vector<LoopSpec>& loops) {
  if (s.cxi->sweep) return apply_sweep(cl, s, value, loops);
  std::string text = s.cxi->fixed != nullptr          ? s.cxi->fixed
                     : s.spec->type == OptType::kFlag ? "1"
                                                      : value;
  auto parsed = parse_option_value(*s.spec, text, typed);
  if (!parsed.ok()) return invalid(s, value, parsed.status());
  if (s.cxi->max > 0) {
    // The originals' tighter limits (-l: (MAX_CQ_DEPTH / 4) - 1 = 16382).
    const uint64_t* n = std::get_if<uint64_t>(&*parsed);
    if (n != nullptr && static_cast<double>(*n) > s.cxi->max) {
      return Status::usage("Invalid " + noun_of(s) + ": " + value + " (" + value +
                           " is out of range (" + std::to_string(uint64_t(s.spec->min)) + " to " +
                           std::to_string(uint64_t(s.cxi->max)) + "))");
    }
  }
  cl.assignments.push_back({s.spec, Side::kBoth, *parsed, typed});
  if (s.spec->field == FieldRef(&ProgramOptions::host)) cl.host = value;
  return Status::success();
}

bool takes_arg(const ToolSpelling& s) { return tool_takes_arg(s); }

std::string try_help(const std::string& tool_name) {
  return "\nTry '" + tool_name + " --help' for more information.";
}

// The row of a long option's name, or null; `prefixed` gets the rows the name begins.
const ToolSpelling* find_long_option(const std::vector<ToolSpelling>& spellings,
                                     const std::string& name,
                                     std::vector<const ToolSpelling*>& prefixed) {
  // Exact name first, then a unique prefix (getopt_long's abbreviations).
  const ToolSpelling* row = nullptr;
  for (const ToolSpelling& s : spellings) {
    if (name == s.long_name) {
      row = &s;
      break;
    }
    if (s.long_name.rfind(name, 0) == 0 &&
        std::none_of(prefixed.begin(), prefixed.end(),
                     [&](const ToolSpelling* p) { return p->long_name == s.long_name; })) {
      prefixed.push_back(&s);
    }
  }
  if (row == nullptr && prefixed.size() == 1 && !name.empty()) row = prefixed[0];
  return row;
}

// getopt_long's refusal of a long option no row has, or that begins several.
Status unknown_long_option(const std::vector<ToolSpelling>& spellings, const std::string& arg,
                           const std::string& name, size_t prefixed, const std::string& tool_name) {
  std::string msg =
      prefixed > 1 ? "option '" + arg + "' is ambiguous" : "unrecognized option '" + arg + "'";
  std::vector<std::string> names;
  for (const ToolSpelling& s : spellings) names.push_back("--" + s.long_name);
  std::string guess = nearest("--" + name, names);
  if (!guess.empty() && prefixed <= 1) msg += " (did you mean " + guess + "?)";
  return Status::usage(tool_name + ": " + msg + try_help(tool_name));
}

// --name, --name=value or --name value (then `i` moves past the value).
Status take_long_option(CommandLine& cl, const std::vector<ToolSpelling>& spellings,
                        const std::vector<std::string>& args, size_t& i,
                        const std::string& tool_name, std::vector<LoopSpec>& loops) {
  const std::string& arg = args[i];
  std::string name = arg.substr(2), value;
  bool inline_value = false;
  if (size_t eq = name.find('='); eq != std::string::npos) {
    value = name.substr(eq + 1);
    name = name.substr(0, eq);
    inline_value = true;
  }
  std::vector<const ToolSpelling*> prefixed;
  const ToolSpelling* row = find_long_option(spellings, name, prefixed);
  if (row == nullptr) return unknown_long_option(spellings, arg, name, prefixed.size(), tool_name);
  if (!takes_arg(*row) && inline_value) {
    return Status::usage(tool_name + ": option '--" + row->long_name +
                         "' doesn't allow an argument");
  }
  if (takes_arg(*row) && !inline_value) {
    if (i + 1 >= args.size()) {
      return Status::usage(tool_name + ": option '--" + row->long_name + "' requires an argument");
    }
    value = args[++i];
  }
  return apply(cl, *row, "--" + row->long_name, value, loops);
}

// One word of short options (`i` moves past a value in the next word, as 5 in -n 5).
Status take_short_options(CommandLine& cl, const std::vector<ToolSpelling>& spellings,
                          const std::vector<std::string>& args, size_t& i,
                          const std::string& tool_name, std::vector<LoopSpec>& loops) {
  const std::string& arg = args[i];
  for (size_t k = 1; k < arg.size(); ++k) {
    char c = arg[k];
    auto it = std::find_if(spellings.begin(), spellings.end(),
                           [&](const ToolSpelling& s) { return s.cxi->short_name == c; });
    if (it == spellings.end()) {
      return Status::usage(tool_name + ": invalid option -- '" + std::string(1, c) + "'" +
                           try_help(tool_name));
    }
    std::string typed = std::string("-") + c;
    if (!takes_arg(*it)) {
      FP_RETURN_IF_ERROR(apply(cl, *it, typed, "", loops));
      continue;
    }
    std::string value;
    if (k + 1 < arg.size()) {
      value = arg.substr(k + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Status::usage(tool_name + ": option requires an argument -- '" + std::string(1, c) +
                           "'");
    }
    return apply(cl, *it, typed, value, loops);
  }
  return Status::success();
}

}  // namespace

Result<CommandLine> parse_tool_command_line(const std::vector<std::string>& args, uint32_t tool,
                                            const std::string& tool_name, bool takes_server) {
  CommandLine cl;
  cl.dialect = Dialect::kCxi;
  const std::vector<ToolSpelling> spellings = tool_spellings(tool);
  std::vector<LoopSpec> loops;
  bool options_done = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (options_done || arg.size() < 2 || arg[0] != '-') {
      if (!cl.host.empty() || !takes_server) return Status::usage("Unexpected argument: " + arg);
      cl.host = arg;
      continue;
    }
    if (arg == "--") {
      options_done = true;
      continue;
    }
    if (arg.rfind("--", 0) == 0) {
      FP_RETURN_IF_ERROR(take_long_option(cl, spellings, args, i, tool_name, loops));
    } else {
      // A cluster of short options: -bR, -n5, -n 5.
      FP_RETURN_IF_ERROR(take_short_options(cl, spellings, args, i, tool_name, loops));
    }
  }
  cl.program = resolve_program(cl.assignments, Dialect::kCxi);
  // A tool runs one test, named by its plan; the request carries every option and the sweep.
  cl.tests.push_back(TestRequest{"", cl.assignments, loops});
  return cl;
}

std::string tool_usage_options(uint32_t tool) {
  std::string out;
  for (const ToolSpelling& s : tool_spellings(tool)) {
    const char* help = s.cxi->help != nullptr ? s.cxi->help : s.spec->help;
    std::string spell =
        s.cxi->short_name ? std::string("  -") + s.cxi->short_name + ", " : std::string(6, ' ');
    spell += "--" + s.long_name;
    if (takes_arg(s)) spell += "=" + tool_arg_name(s);
    if (spell.size() < 30) {
      spell.resize(30, ' ');
    } else {
      spell += "\n" + std::string(30, ' ');
    }
    out += spell + help + "\n";
  }
  return out;
}

}  // namespace fabperf
