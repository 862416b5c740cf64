// fabperf's (qperf's) command-line grammar, and the program options it resolves.
#include "cli/command_line.h"

#include <algorithm>
#include <cmath>

#include "core/units.h"

namespace fabperf {

namespace {

bool is_option_token(const std::string& token) {
  // "-" alone is not an option; negative numbers never start a token where options may.
  return token.size() >= 2 && token[0] == '-';
}

// Habits other tools teach (iperf3's above all): what their users type, and what fabperf calls
// it. A row without `numeric` is no option here; a row with it is one of ours whose value,
// a plain number, says the user meant the other tool's option.
struct HabitHint {
  const char* token;
  bool numeric;            // only when its value is a number (-P 4, -i 1)
  const char* suggestion;  // what to type instead; the value follows when `with_value`
  bool with_value;
  const char* why;  // "" or why the spelling means something else here
};
constexpr HabitHint kHabitHints[] = {
    {"-P", true, "--streams", true, "-P is the libfabric provider"},
    {"-i", true, "--interval", true, "-i is the RDMA device"},
    {"-J", false, "--json -", false, "iperf3's JSON on standard output"},
    {"-b", false, "--udp_rate", true, "iperf3's target bitrate, on udp_bw"},
    {"-O", false, "--omit", true, "iperf3's omitted first seconds"},
    {"-c", false, "fabperf HOST TESTS", false, "the server is the first word, as in qperf"},
    {"-s", false, "fabperf with no host", false, "that is the server"},
    {"-p", false, "-lp", true, "the server's port"},
    {"-l", false, "-m", true, "the message size"},
    {"-w", false, "-sb", true, "the socket buffer size"},
    {"-N", false, "--nodelay", false, "Nagle off"},
    {"-u", false, "udp_bw or udp_lat", false, "UDP is a test of its own"},
};

const HabitHint* habit_hint(const std::string& token) {
  for (const HabitHint& h : kHabitHints) {
    if (token == h.token) return &h;
  }
  return nullptr;
}

// "(did you mean --streams 4? -P is the libfabric provider)"
std::string habit_text(const HabitHint& h, const std::string& value) {
  std::string text = std::string("did you mean ") + h.suggestion;
  if (h.with_value && !value.empty()) text += " " + value;
  text += "?";
  if (*h.why != '\0') text += std::string(" (") + h.why + ")";
  return text;
}

bool plain_number(const std::string& text) {
  return !text.empty() && text.find_first_not_of("0123456789.") == std::string::npos;
}

Status bad_option(const std::string& token, const std::string& next) {
  std::string msg = token + ": bad option";
  if (const HabitHint* h = habit_hint(token); h != nullptr && !h->numeric) {
    const std::string value = next.empty() || next[0] == '-' ? "" : next;
    return Status::usage(msg + " (" + habit_text(*h, value) + "); try: fabperf --help options");
  }
  std::string guess = nearest(token, qperf_spelling_texts());
  // A guess one letter long says nothing (-R is not a typo of -m).
  if (guess.size() > 2) msg += " (did you mean " + guess + "?)";
  return Status::usage(msg + "; try: fabperf --help options");
}

double as_double(const OptionValue& v) {
  if (auto* p = std::get_if<uint64_t>(&v)) return static_cast<double>(*p);
  if (auto* p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  if (auto* p = std::get_if<double>(&v)) return *p;
  return 0;
}

OptionValue from_double(const OptionSpec& spec, double d) {
  switch (spec.type) {
    case OptType::kSize:
    case OptType::kCount:
      return static_cast<uint64_t>(std::llround(d));
    case OptType::kInt:
      return static_cast<int64_t>(std::llround(d));
    default:
      return d;
  }
}

bool loopable(const OptionSpec& s) {
  return s.per_test && s.is_run_option() &&
         (s.type == OptType::kSize || s.type == OptType::kCount || s.type == OptType::kTime);
}

// What parse_command_line has read so far, and what it owes the tests after it.
struct QperfWords {
  CommandLine cl;
  bool host_given = false;
  bool hostless = false;
  std::vector<Assignment> pending;  // options since the last test
  std::vector<LoopSpec> loops_so_far, pending_loops;
};

bool is_test(const std::string& t, const std::vector<std::string>& known_tests) {
  return std::find(known_tests.begin(), known_tests.end(), t) != known_tests.end();
}

// A word that is no option: the server, or a test with every option given before it.
Status take_word(const std::string& token, const std::vector<std::string>& known_tests,
                 QperfWords& w) {
  if (!w.host_given && !w.hostless) {
    // As qperf: the first word is the server, so a test there means it was forgotten.
    if (is_test(token, known_tests))
      return Status::usage("must specify host name first; try: fabperf --help");
    w.cl.host = token;
    w.host_given = true;
    return Status::success();
  }
  if (!is_test(token, known_tests)) {
    std::string msg = token + ": bad test";
    std::string guess = nearest(token, known_tests);
    if (!guess.empty()) msg += " (did you mean " + guess + "?)";
    return Status::usage(msg + "; try: fabperf --help tests");
  }
  w.cl.tests.push_back(TestRequest{token, w.cl.assignments, w.loops_so_far});
  w.pending.clear();
  w.pending_loops.clear();
  return Status::success();
}

// An option as typed: "--name=value" split at the '=', any other spelling whole.
struct OptionWord {
  std::string name, inline_value;
  bool has_inline = false;
};

OptionWord split_option_word(const std::string& token) {
  OptionWord o{token, "", false};
  if (token.rfind("--", 0) == 0 && token.find('=') != std::string::npos) {
    o.name = token.substr(0, token.find('='));
    o.inline_value = token.substr(token.find('=') + 1);
    o.has_inline = true;
  }
  return o;
}

// --help [TOPIC] or --help=TOPIC: the topic is optional, so a following option is not it.
void take_help(const OptionSpec& spec, const OptionWord& o, const std::vector<std::string>& args,
               size_t& i, CommandLine& cl) {
  if (o.has_inline) {
    cl.help_topic = o.inline_value;
  } else if (i + 1 < args.size() && !is_option_token(args[i + 1])) {
    cl.help_topic = args[++i];
  }
  cl.assignments.push_back({&spec, Side::kBoth, true, o.name});
}

// The text of an option's value: "1" for a flag, the inline value, or the next word.
Result<std::string> option_value_word(const Spelling& spelling, const OptionWord& o,
                                      const std::vector<std::string>& args, size_t& i) {
  const std::string& token = args[i];
  std::string value_text;
  if (spelling.sets_on) {
    if (o.has_inline) return Status::usage(o.name + " takes no argument");
    value_text = "1";
  } else if (spelling.spec->type == OptType::kFlag) {
    value_text = o.has_inline ? o.inline_value : "1";
  } else if (o.has_inline) {
    value_text = o.inline_value;
  } else {
    if (i + 1 >= args.size()) return Status::usage("missing argument to " + token);
    value_text = args[++i];
  }
  return value_text;
}

Status refuse_output_named_twice(const CommandLine& cl, const OptionSpec& spec,
                                 const std::string& name, const OptionValue& value) {
  // An output file named twice would silently lose one: refuse rather than pick.
  if (spec.field == FieldRef(&ProgramOptions::json) ||
      spec.field == FieldRef(&ProgramOptions::csv) ||
      spec.field == FieldRef(&ProgramOptions::html) ||
      spec.field == FieldRef(&ProgramOptions::json_stream)) {
    for (const Assignment& earlier : cl.assignments) {
      if (earlier.spec == &spec) {
        return Status::usage(name + " given twice (" + option_value_text(earlier.value) + " and " +
                             option_value_text(value) + "): a run writes one " + spec.name +
                             " file");
      }
    }
  }
  return Status::success();
}

// One option and its value (the next word when it takes one: `i` moves past it).
Status take_option(const std::vector<std::string>& args, size_t& i, QperfWords& w) {
  const std::string& token = args[i];
  const OptionWord o = split_option_word(token);
  const std::string& name = o.name;
  const Spelling* spelling = find_qperf_spelling(name);
  if (spelling == nullptr) return bad_option(token, i + 1 < args.size() ? args[i + 1] : "");
  const OptionSpec& spec = *spelling->spec;
  if (spec.field == FieldRef(&ProgramOptions::help)) {
    take_help(spec, o, args, i, w.cl);
    return Status::success();
  }
  auto value_word = option_value_word(*spelling, o, args, i);
  if (!value_word.ok()) return value_word.status();
  const std::string& value_text = *value_word;
  // -P 4, -i 1: an iperf3 user's streams and interval, never a provider or a device.
  if (const HabitHint* h = habit_hint(name);
      h != nullptr && h->numeric && !o.has_inline && plain_number(value_text)) {
    return Status::usage(name + " " + value_text + ": " + habit_text(*h, value_text) +
                         "; try: fabperf --help options");
  }
  if (spec.type == OptType::kLoop) {
    auto loop = parse_loop(value_text);
    if (!loop.ok()) return loop.status();
    w.loops_so_far.push_back(*loop);
    w.pending_loops.push_back(*loop);
    return Status::success();
  }
  auto value = parse_option_value(spec, value_text, name);
  if (!value.ok()) return value.status();
  if (spec.field == FieldRef(&ProgramOptions::host)) {
    w.cl.host = std::get<std::string>(*value);
    w.host_given = true;
  }
  FP_RETURN_IF_ERROR(refuse_output_named_twice(w.cl, spec, name, *value));
  Assignment a{&spec, spelling->side, *value, name};
  w.cl.assignments.push_back(a);
  w.pending.push_back(a);
  return Status::success();
}

void give_trailing_options(QperfWords& w) {
  CommandLine& cl = w.cl;
  // Options after the last test apply to every test rather than vanishing (qperf drops them).
  for (TestRequest& req : cl.tests) {
    if (&req == &cl.tests.back()) break;
    req.assignments.insert(req.assignments.end(), w.pending.begin(), w.pending.end());
    req.loops.insert(req.loops.end(), w.pending_loops.begin(), w.pending_loops.end());
  }
  if (!cl.tests.empty()) {
    TestRequest& last = cl.tests.back();
    last.assignments.insert(last.assignments.end(), w.pending.begin(), w.pending.end());
    last.loops.insert(last.loops.end(), w.pending_loops.begin(), w.pending_loops.end());
  }
}

}  // namespace

std::vector<std::string> qperf_spelling_texts() {
  std::vector<std::string> out;
  for (const Spelling& s : qperf_spellings()) out.push_back(s.text);
  return out;
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
    return Status::usage("-oo: " + text + ": expected Var:Init:Last:Incr");
  }
  const OptionSpec* var = find_option(parts[0]);
  for (const OptionSpec& spec : option_table()) {  // qperf's short names too: -oo m:1:8:*2
    if (var == nullptr && spec.short_name != nullptr && parts[0] == spec.short_name) var = &spec;
  }
  if (var == nullptr || !loopable(*var)) {
    std::vector<std::string> names;
    for (const OptionSpec& s : option_table()) {
      if (loopable(s)) names.push_back(s.name);
    }
    std::string msg = "-oo: " + parts[0] + ": unknown loop variable";
    std::string guess = nearest(parts[0], names);
    if (!guess.empty()) msg += " (did you mean " + guess + "?)";
    return Status::usage(msg);
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
        return Status::usage("-oo: " + text + ": multiplier must be a number above 1");
      }
      step = *factor;
    } else {
      auto add = parse_option_value(*var, incr, who);
      if (!add.ok()) return add.status();
      step = as_double(*add);
      if (step <= 0) return Status::usage("-oo: " + text + ": increment must be positive");
    }
  }
  double from = as_double(*init), to = as_double(*last);
  if (from > to) return Status::usage("-oo: " + text + ": Init is above Last");
  if (multiply && from <= 0) return Status::usage("-oo: " + text + ": *N needs Init above 0");
  LoopSpec loop{var, {}, text};
  for (double v = from; v <= to * (1 + 1e-12); v = multiply ? v * step : v + step) {
    if (loop.values.size() >= kMaxLoopValues) {
      return Status::usage("-oo: " + text + ": more than " + std::to_string(kMaxLoopValues) +
                           " values");
    }
    loop.values.push_back(from_double(*var, v));
  }
  return loop;
}

ProgramOptions resolve_program(const std::vector<Assignment>& assignments, Dialect dialect) {
  ProgramOptions out = default_program_options(dialect);
  for (const Assignment& a : assignments) {
    if (a.spec->is_run_option() || a.spec->type == OptType::kLoop) continue;
    store(out, *a.spec, a.value, true);
    // -v, -vv: flags that set other flags.
    if (auto* on = std::get_if<bool>(&a.value); on && *on) {
      for (const char* implied : a.spec->implies) {
        if (const OptionSpec* spec = find_option(implied)) store(out, *spec, true, true);
      }
    }
  }
  return out;
}

Result<CommandLine> parse_command_line(const std::vector<std::string>& args,
                                       const std::vector<std::string>& known_tests) {
  QperfWords w;
  // Neither --loopback nor --matrix takes a host: their first word is a test.
  w.hostless = std::find(args.begin(), args.end(), "--loopback") != args.end() ||
               std::find(args.begin(), args.end(), "--matrix") != args.end();
  for (size_t i = 0; i < args.size(); ++i) {
    if (!is_option_token(args[i])) {
      FP_RETURN_IF_ERROR(take_word(args[i], known_tests, w));
    } else {
      FP_RETURN_IF_ERROR(take_option(args, i, w));
    }
  }
  give_trailing_options(w);
  w.cl.program = resolve_program(w.cl.assignments, Dialect::kQperf);
  return std::move(w.cl);
}

}  // namespace fabperf
