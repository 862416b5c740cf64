// Man pages in roff from the tables: option_table() rows, tool_spellings() per fab_* tool.
#include "manual/man_page.h"

#include <algorithm>
#include <cctype>

#include "cli/help.h"
#include "cxi/cxi_tools.h"
#include "manual/roff.h"
#include "manual/tool_sections.h"
#include "options/option_table.h"
#include "options/spellings.h"

namespace fabperf::manual {

namespace {

// The groups in --help options' order (cli/help.cc).
const char* const kGroups[] = {"test",   "socket",  "fabric", "cxi",    "verbs", "connection",
                               "server", "display", "output", "matrix", "misc"};

std::string header(std::string_view name, std::string_view summary) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  return ".TH " + roff_escape(upper) +
         " 1 \"\" \"fabperf " FABPERF_VERSION
         "\" \"User Commands\"\n"
         // No hyphenation and ragged right: option names stay whole and evenly spaced.
         ".nh\n.ad l\n.SH NAME\n" +
         roff_escape(name) + " \\- " + roff_escape(summary) + "\n";
}

std::string choices_text(const OptionSpec& spec) {
  if (spec.choices.empty()) return "";
  std::string out = " (one of:";
  for (const char* c : spec.choices) out += std::string(" ") + c;
  return out + ")";
}

std::string fabperf_option(const OptionSpec& spec) {
  std::string out = ".TP\n" + bold(std::string("--") + spec.name);
  if (spec.arg_name != nullptr && spec.type != OptType::kFlag) {
    out += " " + italic(spec.arg_name);
  }
  if (spec.short_name != nullptr) out += " (" + bold(std::string("-") + spec.short_name) + ")";
  out += "\n" + roff_escape(spec.help);
  if (spec.default_text[0] != '\0' && spec.type != OptType::kFlag) {
    out += roff_escape(std::string(" (default ") + spec.default_text + ")");
  }
  out += roff_escape(choices_text(spec)) + "\n";
  if (spec.scope == OptScope::kPerSide) {
    out += ".br\n" + bold(std::string("--loc_") + spec.name) + ", " +
           bold(std::string("--rem_") + spec.name);
    if (spec.short_name != nullptr) {
      out += " (" + bold(std::string("-l") + spec.short_name) + ", " +
             bold(std::string("-r") + spec.short_name) + ")";
    }
    out += " set it for the local or the remote side only.\n";
  }
  return out;
}

std::string see_also(std::string_view self) {
  std::string out = ".SH SEE ALSO\n";
  bool first = true;
  auto add = [&](std::string_view name) {
    if (name == self) return;
    out += std::string(first ? "" : ",\n") + bold(name) + "(1)";
    first = false;
  };
  add("fabperf");
  for (const cxi::Tool& t : cxi::tools()) add(t.name);
  return out + "\n";
}

}  // namespace

std::string fabperf_man_page(const TestRegistry& tests, const std::vector<std::string>& synopsis) {
  std::string out = header("fabperf",
                           "measure latency, bandwidth and message rate over sockets "
                           "and libfabric");
  // --help's own text for the synopsis, description and exit status (cli/help.cc).
  out += sections_of_help(*help_text("", tests, synopsis));
  out += ".SH OPTIONS\n";
  for (const char* group : kGroups) {
    out += ".SS " + roff_escape(group) + "\n";
    for (const OptionSpec& spec : option_table()) {
      if (spec.qperf && std::string_view(spec.group) == group) out += fabperf_option(spec);
    }
  }
  out +=
      ".PP\nSizes take k/kb (1000), m/mb, g/gb and K/kib (1024), M/mib, G/gib.  Times take "
      "s, m, h, d.  OnOff options also have the form \\-X1 (\\-cp1, \\-ar1).  Options apply "
      "to the tests after them; options after the last test apply to every test.\n";
  out += ".SH TESTS\n";
  for (const TestSpec* t : tests.all()) {
    out += ".TP\n" + bold(t->name) + "\n" + roff_escape(t->summary) + ".";
    if (t->description != nullptr && t->description[0] != '\0') {
      out += "  " + roff_escape(t->description);
    }
    out += "\n";
    // The options the test reads (the rest are "set but not used" for it), as --help TEST.
    if (!t->options.empty()) {
      out += ".br\nOptions:";
      for (size_t i = 0; i < t->options.size(); ++i) {
        out += std::string(i == 0 ? " " : ", ") + bold(std::string("--") + t->options[i]);
      }
      out += "\n";
    }
  }
  out += sections_of_help(*help_text("examples", tests, synopsis));
  return out + see_also("fabperf");
}

Result<std::string> tool_man_page(std::string_view name) {
  const cxi::Tool* tool = cxi::find_tool(name);
  if (tool == nullptr || name != tool->name) {
    std::string names;
    for (const cxi::Tool& t : cxi::tools()) names += std::string(" ") + t.name;
    return Status::usage("no man page for " + std::string(name) + "; the tools are:" + names);
  }
  std::string out = header(tool->name, tool->summary);
  out += ".SH SYNOPSIS\n.nf\n";
  std::string synopsis = cxi::tool_synopsis(*tool);
  size_t pos = 0;
  while (pos < synopsis.size()) {
    size_t end = synopsis.find('\n', pos);
    std::string_view line = std::string_view(synopsis).substr(pos, end - pos);
    while (!line.empty() && line[0] == ' ') line.remove_prefix(1);
    out += roff_escape(line) + "\n";
    pos = end + 1;
  }
  out += ".fi\n.SH DESCRIPTION\n" + bold(tool->name) + " is " + roff_escape(tool->original) +
         " of the HPE CXI diagnostics, on any libfabric provider: " + roff_escape(tool->summary) +
         ".";
  if (tool->test[0] != '\0') {
    out += "  It runs fabperf's " + bold(tool->test) + " test";
    if (tool->bi_test != nullptr) out += " (" + bold(tool->bi_test) + " with \\-b)";
    out += ".";
  }
  if (tool->kind == cxi::ToolKind::kLatency || tool->kind == cxi::ToolKind::kBandwidth) {
    out += "  Without a server address it serves one client; with one it is that client.";
  }
  out += "\n.SH OPTIONS\n";
  for (const ToolSpelling& s : tool_spellings(tool->bit)) {
    out += ".TP\n";
    if (s.cxi->short_name != 0) out += bold(std::string("-") + s.cxi->short_name) + ", ";
    out += bold("--" + s.long_name);
    if (tool_takes_arg(s)) out += "=" + italic(tool_arg_name(s));
    out += "\n" + roff_escape(s.cxi->help != nullptr ? s.cxi->help : s.spec->help) +
           roff_escape(choices_text(*s.spec)) + "\n";
  }
  out += tool_output_section(*tool) + tool_examples_section(*tool) + tool_exit_section(*tool);
  return out + see_also(tool->name);
}

}  // namespace fabperf::manual
