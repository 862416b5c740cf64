// Parsing qperf's grammar into test requests, and resolving each run's parameters.
#include "cli/command_line.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"
#include "options/gpu_spec.h"
#include "engine/test_context.h"

namespace fabperf {

namespace {

bool is_option_token(const std::string& token) {
  // "-" alone is not an option; negative numbers never start a token where options may.
  return token.size() >= 2 && token[0] == '-';
}

std::vector<std::string> spelling_texts() {
  std::vector<std::string> out;
  for (const Spelling& s : option_spellings()) out.push_back(s.text);
  return out;
}

Status bad_option(const std::string& token) {
  std::string msg = token + ": bad option";
  std::string guess = nearest(token, spelling_texts());
  if (!guess.empty()) msg += " (did you mean " + guess + "?)";
  return Status::Usage(msg + "; try: fabperf --help options");
}

double as_double(const ParamValue& v) {
  if (auto* p = std::get_if<uint64_t>(&v)) return static_cast<double>(*p);
  if (auto* p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  if (auto* p = std::get_if<double>(&v)) return *p;
  return 0;
}

ParamValue from_double(const OptionSpec& spec, double d) {
  switch (spec.type) {
    case OptType::kSize:
    case OptType::kCount: return static_cast<uint64_t>(std::llround(d));
    case OptType::kInt: return static_cast<int64_t>(std::llround(d));
    default: return d;
  }
}

}  // namespace

ParamValue CommandLine::global(const std::string& name) const {
  for (auto it = assignments.rbegin(); it != assignments.rend(); ++it) {
    if (name == it->spec->name) return it->value;
  }
  const OptionSpec* spec = find_option(name);
  auto v = parse_option_value(*spec, spec->default_text, name);
  return v.ok() ? *v : ParamValue(std::string());
}

bool CommandLine::flag(const std::string& name) const {
  ParamValue v = global(name);
  auto* b = std::get_if<bool>(&v);
  if (b && *b) return true;
  // Flags implied by others (-v implies -vs ...).
  for (const Assignment& a : assignments) {
    if (std::find(a.spec->implies.begin(), a.spec->implies.end(), name) != a.spec->implies.end()) {
      if (auto* on = std::get_if<bool>(&a.value); on && *on) return true;
    }
  }
  return false;
}

bool CommandLine::is_set(const std::string& name) const {
  return std::any_of(assignments.begin(), assignments.end(),
                     [&](const Assignment& a) { return name == a.spec->name; });
}

Result<LoopSpec> parse_loop(const std::string& text) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 3 || parts.size() > 4) {
    return Status::Usage("-oo: " + text + ": expected Var:Init:Last:Incr");
  }
  const OptionSpec* var = find_option(parts[0]);
  if (var == nullptr || !var->per_test ||
      (var->type != OptType::kSize && var->type != OptType::kCount &&
       var->type != OptType::kTime)) {
    std::vector<std::string> names;
    for (const OptionSpec& s : option_table()) {
      if (s.per_test && (s.type == OptType::kSize || s.type == OptType::kCount ||
                         s.type == OptType::kTime)) {
        names.push_back(s.name);
      }
    }
    std::string msg = "-oo: " + parts[0] + ": unknown loop variable";
    std::string guess = nearest(parts[0], names);
    if (!guess.empty()) msg += " (did you mean " + guess + "?)";
    return Status::Usage(msg);
  }
  std::string who = std::string("-oo ") + var->name;
  auto init = parse_option_value(*var, parts[1], who);
  if (!init.ok()) return init.status();
  auto last = parse_option_value(*var, parts[2], who);
  if (!last.ok()) return last.status();
  bool multiply = false;
  double step = 1;
  if (parts.size() == 4) {
    std::string incr = parts[3];
    if (!incr.empty() && incr[0] == '*') {
      multiply = true;
      auto factor = parse_time(incr.substr(1));  // a plain non-negative number
      if (!factor.ok() || *factor <= 1) {
        return Status::Usage("-oo: " + text + ": multiplier must be a number above 1");
      }
      step = *factor;
    } else {
      auto add = parse_option_value(*var, incr, who);
      if (!add.ok()) return add.status();
      step = as_double(*add);
      if (step <= 0) return Status::Usage("-oo: " + text + ": increment must be positive");
    }
  }
  double from = as_double(*init), to = as_double(*last);
  if (from > to) return Status::Usage("-oo: " + text + ": Init is above Last");
  if (multiply && from <= 0) return Status::Usage("-oo: " + text + ": *N needs Init above 0");
  LoopSpec loop{var, {}, text};
  for (double v = from; v <= to * (1 + 1e-12); v = multiply ? v * step : v + step) {
    if (loop.values.size() >= kMaxLoopValues) {
      return Status::Usage("-oo: " + text + ": more than " + std::to_string(kMaxLoopValues) +
                           " values");
    }
    loop.values.push_back(from_double(*var, v));
  }
  return loop;
}

Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const std::vector<std::string>& known_tests) {
  CommandLine cl;
  bool host_given = std::find(args.begin(), args.end(), "--loopback") != args.end();
  std::vector<Assignment> pending;  // options since the last test
  std::vector<LoopSpec> loops_so_far, pending_loops;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& token = args[i];
    if (!is_option_token(token)) {
      if (!host_given) {
        cl.host = token;
        host_given = true;
        continue;
      }
      if (std::find(known_tests.begin(), known_tests.end(), token) == known_tests.end()) {
        std::string msg = token + ": bad test";
        std::string guess = nearest(token, known_tests);
        if (!guess.empty()) msg += " (did you mean " + guess + "?)";
        return Status::Usage(msg + "; try: fabperf --help tests");
      }
      TestRequest req{token, cl.assignments, loops_so_far};
      cl.tests.push_back(std::move(req));
      pending.clear();
      pending_loops.clear();
      continue;
    }
    std::string name = token, inline_value;
    bool has_inline = false;
    if (token.rfind("--", 0) == 0 && token.find('=') != std::string::npos) {
      name = token.substr(0, token.find('='));
      inline_value = token.substr(token.find('=') + 1);
      has_inline = true;
    }
    const Spelling* spelling = find_spelling(name);
    if (spelling == nullptr) return bad_option(token);
    const OptionSpec& spec = *spelling->spec;
    if (std::string(spec.name) == "help") {
      cl.help = true;
      if (has_inline) {
        cl.help_topic = inline_value;
      } else if (i + 1 < args.size() && !is_option_token(args[i + 1])) {
        cl.help_topic = args[++i];
      }
      continue;
    }
    std::string value_text;
    if (spelling->sets_on) {
      if (has_inline) return Status::Usage(name + " takes no argument");
      value_text = "1";
    } else if (spec.type == OptType::kFlag) {
      value_text = has_inline ? inline_value : "1";
    } else if (has_inline) {
      value_text = inline_value;
    } else {
      if (i + 1 >= args.size()) return Status::Usage("missing argument to " + token);
      value_text = args[++i];
    }
    if (spec.type == OptType::kLoop) {
      auto loop = parse_loop(value_text);
      if (!loop.ok()) return loop.status();
      loops_so_far.push_back(*loop);
      pending_loops.push_back(*loop);
      continue;
    }
    auto value = parse_option_value(spec, value_text, name);
    if (!value.ok()) return value.status();
    if (std::string(spec.name) == "host") {
      cl.host = std::get<std::string>(*value);
      host_given = true;
    }
    if (std::string(spec.name) == "version") cl.version = true;
    Assignment a{&spec, spelling->side, *value, name};
    cl.assignments.push_back(a);
    pending.push_back(a);
  }
  // Options after the last test apply to every test rather than vanishing (qperf drops them).
  for (TestRequest& req : cl.tests) {
    if (&req == &cl.tests.back()) break;
    req.assignments.insert(req.assignments.end(), pending.begin(), pending.end());
    req.loops.insert(req.loops.end(), pending_loops.begin(), pending_loops.end());
  }
  if (!cl.tests.empty()) {
    TestRequest& last = cl.tests.back();
    last.assignments.insert(last.assignments.end(), pending.begin(), pending.end());
    last.loops.insert(last.loops.end(), pending_loops.begin(), pending_loops.end());
  }
  return cl;
}

std::vector<std::vector<Assignment>> expand_loops(const std::vector<LoopSpec>& loops) {
  std::vector<std::vector<Assignment>> runs{{}};
  for (const LoopSpec& loop : loops) {
    std::vector<std::vector<Assignment>> next;
    for (const auto& prefix : runs) {
      for (const ParamValue& v : loop.values) {
        auto run = prefix;
        run.push_back({loop.var, Side::kBoth, v, std::string("-oo ") + loop.var->name});
        next.push_back(std::move(run));
      }
    }
    runs = std::move(next);
    if (runs.size() > kMaxLoopValues) runs.resize(kMaxLoopValues);
  }
  return runs;
}

Result<RunParams> resolve_params(const TestSpec& test, const std::vector<Assignment>& assignments,
                                 const std::vector<Assignment>& loop_values,
                                 std::vector<std::string>* warnings) {
  RunParams out;
  auto uses = [&](const char* name) {
    return std::any_of(test.options.begin(), test.options.end(),
                       [&](const char* o) { return std::string(o) == name; });
  };
  for (const OptionSpec& spec : option_table()) {
    if (spec.scope == OptScope::kClient || spec.scope == OptScope::kServer ||
        spec.scope == OptScope::kAny || spec.type == OptType::kLoop) {
      continue;
    }
    auto def = parse_option_value(spec, spec.default_text, spec.name);
    if (!def.ok()) return def.status().Prefixed("internal: default of " + std::string(spec.name));
    out.local.set(spec.name, *def, false);
    out.remote.set(spec.name, *def, false);
  }
  std::vector<std::string> warned;
  auto apply = [&](const Assignment& a) {
    const OptionSpec& spec = *a.spec;
    if (spec.scope == OptScope::kClient || spec.scope == OptScope::kServer ||
        spec.scope == OptScope::kAny) {
      return;
    }
    if (spec.per_test && !uses(spec.name) && warnings != nullptr && test.kind != TestKind::kMisc &&
        std::find(warned.begin(), warned.end(), a.spelling) == warned.end()) {
      warned.push_back(a.spelling);
      warnings->push_back("warning: " + a.spelling + " set but not used in test " + test.name);
    }
    if (a.side != Side::kRemote) out.local.set(spec.name, a.value, true);
    if (a.side != Side::kLocal) out.remote.set(spec.name, a.value, true);
  };
  for (const Assignment& a : assignments) apply(a);
  for (const Assignment& a : loop_values) apply(a);
  for (ParamSet* side : {&out.local, &out.remote}) {
    const std::string& cpu = side->str("cpu_affinity");
    if (!cpu.empty() && cpu != "any" && !parse_int(cpu, 0, 1 << 20).ok()) {
      return Status::Usage("-ca: bad processor affinity \"" + cpu + "\" (a CPU number or any)");
    }    if (side->has("gpu") && !side->str("gpu").empty()) {
      auto gpu = parse_gpu_spec(side->str("gpu"));
      if (!gpu.ok()) return gpu.status();
    }
  }
  // msg_size 0 means "the test's own default", as in qperf.
  for (ParamSet* side : {&out.local, &out.remote}) {
    if (side->u64("msg_size") == 0) side->set("msg_size", test.default_msg_size, false);
  }
  if (out.local.seconds("time") == 0 && out.local.u64("no_msgs") == 0 &&
      test.kind != TestKind::kMisc) {
    return Status::Usage(std::string(test.name) +
                         ": -t 0 would run forever; give a positive time or -n");
  }
  return out;
}

Result<ParamSet> params_from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Failed("parameters must be an object");
  ParamSet out;
  for (const auto& [name, value] : j.items()) {
    const OptionSpec* spec = find_option(name);
    if (spec == nullptr || name != spec->name || spec->scope == OptScope::kClient ||
        spec->scope == OptScope::kServer || spec->scope == OptScope::kAny) {
      return Status::Failed("unknown parameter \"" + name + "\" (is the client newer? upgrade the server)");
    }
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_boolean()) {
      text = value.get<bool>() ? "1" : "0";
    } else if (value.is_number_unsigned() || value.is_number_integer()) {
      text = value.dump();
    } else if (value.is_number_float()) {
      text = param_value_text(ParamValue(value.get<double>()));
    } else {
      return Status::Failed("parameter " + name + " has the wrong type");
    }
    if (spec->type != OptType::kString && value.is_string()) {
      return Status::Failed("parameter " + name + " has the wrong type");
    }
    if (text.size() > 4096) return Status::Failed("parameter " + name + " is too long");
    auto parsed = parse_option_value(*spec, text, name);
    if (!parsed.ok()) return Status::Failed(parsed.status().message());
    out.set(name, *parsed, false);
  }
  // Anything the client did not send takes its default, so old clients keep working.
  for (const OptionSpec& spec : option_table()) {
    if (out.has(spec.name) || spec.scope == OptScope::kClient || spec.scope == OptScope::kServer ||
        spec.scope == OptScope::kAny || spec.type == OptType::kLoop) {
      continue;
    }
    auto def = parse_option_value(spec, spec.default_text, spec.name);
    if (def.ok()) out.set(spec.name, *def, false);
  }
  return out;
}

}  // namespace fabperf
