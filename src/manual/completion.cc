// The bash completion script: word lists from the tables, a small fixed function around them.
#include "manual/completion.h"

#include <algorithm>
#include <map>
#include <set>

#include "cxi/cxi_tools.h"
#include "options/option_table.h"
#include "options/spellings.h"

namespace fabperf::manual {

namespace {

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

// The values an option's argument completes to: its choices, 0 and 1 for an OnOff, none (an
// empty list: bash's own file name completion) for free text, sizes and file names.
std::vector<std::string> values_of(const OptionSpec& spec) {
  if (!spec.choices.empty()) return {spec.choices.begin(), spec.choices.end()};
  if (spec.type == OptType::kOnOff) return {"0", "1"};
  return {};
}

// One `case` arm per option spelling that takes an argument: "  --atomic_op|-xx) ...".
std::string value_arms(const std::map<std::string, std::vector<std::string>>& values) {
  std::map<std::string, std::vector<std::string>> by_list;  // same list: one arm
  for (const auto& [spelling, list] : values) by_list[join(list)].push_back(spelling);
  std::string out;
  for (const auto& [list, spellings] : by_list) {
    std::string pattern;
    for (const std::string& s : spellings) pattern += (pattern.empty() ? "" : "|") + s;
    out += "      " + pattern + (list.empty() ? ") return ;;\n" : ") words=\"" + list + "\" ;;\n");
  }
  return out;
}

// fabperf's grammar's words: every spelling (-m, --msg_size, --loc_msg_size, -lcp1 ...), the
// dashed forms, those that take an argument, and what each argument completes to.
struct QperfWords {
  std::set<std::string> words, dashed, takes_arg;
  std::map<std::string, std::vector<std::string>> values;
};

// -oo's loop variables ("msg_size:"), as -oo takes them (command_line.cc).
std::vector<std::string> loop_variables() {
  std::vector<std::string> out;
  for (const OptionSpec& spec : option_table()) {
    if (spec.per_test && spec.is_run_option() &&
        (spec.type == OptType::kSize || spec.type == OptType::kCount ||
         spec.type == OptType::kTime)) {
      out.push_back(std::string(spec.name) + ":");
    }
  }
  return out;
}

QperfWords qperf_words(const std::vector<std::string>& help_topics) {
  QperfWords q;
  const std::vector<std::string> loop_vars = loop_variables();
  for (const Spelling& s : qperf_spellings()) {
    q.words.insert(s.text);
    // --json-stream and --json_stream are one option: the dashed forms are offered once the
    // word being completed has a dash after its "--".
    std::string dashed = s.text;
    if (dashed.rfind("--", 0) == 0) std::replace(dashed.begin() + 2, dashed.end(), '_', '-');
    q.dashed.insert(dashed);
    if (s.sets_on) continue;
    const std::string_view name = s.spec->name;
    if (s.spec->type != OptType::kFlag || name == "help") {
      q.takes_arg.insert(s.text);
      if (dashed != s.text) q.takes_arg.insert(dashed);
    }
    std::vector<std::string> list;
    if (name == "help") {
      list = help_topics;
    } else if (name == "loop") {
      list = loop_vars;
    } else if (name == "provider") {
      list = {"$(_fabperf_providers)"};
    } else if (s.spec->type != OptType::kFlag) {
      list = values_of(*s.spec);
    } else {
      continue;
    }
    q.values[s.text] = list;
    if (dashed != s.text) q.values[dashed] = list;
  }
  return q;
}

// One fab_* tool's arm of the script's `case $prog`: its spellings and their values.
std::string tool_arm(const cxi::Tool& tool) {
  std::set<std::string> words;
  std::map<std::string, std::vector<std::string>> values;
  for (const ToolSpelling& s : tool_spellings(tool.bit)) {
    std::vector<std::string> spellings = {"--" + s.long_name};
    if (s.cxi->short_name != 0) spellings.push_back(std::string("-") + s.cxi->short_name);
    for (const std::string& sp : spellings) {
      words.insert(sp);
      if (!tool_takes_arg(s)) continue;
      const bool provider = std::string_view(s.spec->name) == "provider";
      values[sp] =
          provider ? std::vector<std::string>{"$(_fabperf_providers)"} : values_of(*s.spec);
    }
  }
  return std::string("    ") + tool.name + "|" + tool.original + ")\n" + "      opts=\"" +
         join({words.begin(), words.end()}) + "\"\n" + "      case $prev in\n" +
         value_arms(values) + "      esac ;;\n";
}

// fabperf's own arm: its options, its tests, and the host as the first plain word.
std::string fabperf_arm(const QperfWords& q, const TestRegistry& tests) {
  // `fabperf report RUN.json ... -o FILE.html`, `fabperf compare A.json B.json`: file names,
  // bash's own completion.
  std::string out =
      "    *)\n      [[ ( ${COMP_WORDS[1]} == report || ${COMP_WORDS[1]} == compare ) && "
      "$COMP_CWORD -gt 1 ]] && return\n";
  out += "      opts=\"" + join({q.words.begin(), q.words.end()}) + "\"\n";
  out += "      [[ $cur == --*-* ]] && opts=\"" + join({q.dashed.begin(), q.dashed.end()}) + "\"\n";
  out += "      tests=\"" + join(tests.names()) + "\"\n";
  // The first word that is no option or option argument is the server (qperf's grammar),
  // unless --loopback or --matrix: there host names and `report`, never a test.
  out += "      local argopts=\" " + join({q.takes_arg.begin(), q.takes_arg.end()}) +
         " \" i w plain=0 hostless=\n";
  out +=
      "      for ((i = 1; i < ${#COMP_WORDS[@]}; i++)); do\n"
      "        w=${COMP_WORDS[i]}\n"
      "        [[ $w == --loopback || $w == --matrix ]] && hostless=1\n"
      "        ((i >= COMP_CWORD)) && continue\n"
      "        if [[ $argopts == *\" $w \"* ]]; then ((i++)); continue; fi\n"
      "        [[ $w == -* ]] || ((plain++))\n"
      "      done\n"
      "      if [[ -z $hostless && $plain -eq 0 && $cur != -* ]]; then\n"
      "        tests=\"report $(compgen -A hostname 2>/dev/null)\"\n"
      "      fi\n";
  out += "      case $prev in\n" + value_arms(q.values) + "      esac ;;\n";
  return out;
}

}  // namespace

std::string bash_completion(const TestRegistry& tests) {
  std::vector<std::string> topics = {"categories", "examples", "opts", "options", "tests"};
  for (const std::string& n : tests.names()) topics.push_back(n);
  std::string out =
      "# bash completion for fabperf and its fab_* links. Generated by fabperf_docgen from the\n"
      "# option table and the test registry: do not edit.\n"
      "# libfabric's providers, from fi_info when first asked (then kept for the shell).\n"
      "_fabperf_providers() {\n"
      "  if [[ -z ${_fabperf_provider_list+set} ]]; then\n"
      "    _fabperf_provider_list=$(fi_info -l 2>/dev/null |\n"
      "      sed -n 's/^\\([A-Za-z0-9_]*\\):$/\\1/p' | grep -v '^ofi_hook')\n"
      "  fi\n"
      "  echo $_fabperf_provider_list\n"
      "}\n"
      "_fabperf() {\n"
      "  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
      "  local prog=${COMP_WORDS[0]##*/} opts= tests= words=\n"
      "  COMPREPLY=()\n"
      "  case $prog in\n";
  for (const cxi::Tool& tool : cxi::tools()) out += tool_arm(tool);
  out += fabperf_arm(qperf_words(topics), tests);
  out +=
      "  esac\n"
      "  if [[ -n $words ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
      "  elif [[ $cur == -* ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
      "  elif [[ -n $tests ]]; then\n"
      "    COMPREPLY=($(compgen -W \"$tests\" -- \"$cur\"))\n"
      "  fi\n"
      "}\n"
      "complete -o default -F _fabperf fabperf";
  for (const cxi::Tool& tool : cxi::tools()) out += std::string(" ") + tool.name;
  return out + "\n";
}

}  // namespace fabperf::manual
