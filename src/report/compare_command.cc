// The compare subcommand: its options (one table: parsing and help), the documents read
// through the one reader, the comparison written as text, JSON and HTML.
#include "report/compare_command.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "core/output_file.h"
#include "report/compare_model.h"
#include "report/compare_page.h"
#include "report/html_page.h"
#include "report/json_text.h"
#include "report/run_document.h"

namespace fabperf {

namespace {

struct CompareArgs {
  std::vector<report::InputArg> inputs;
  report::CompareOptions options;
  std::string html, json;
};

// A number option's value within (lo, hi], or a usage error naming the option.
Status number_in(const std::string& name, const std::string& text, double lo, double hi,
                 double* out) {
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || !std::isfinite(v) || v <= lo || v > hi) {
    char range[96];
    std::snprintf(range, sizeof range, "a number above %g, at most %g", lo, hi);
    return Status::usage(name + " " + text + ": give " + range);
  }
  *out = v;
  return Status::success();
}

// One row per option: its spelling, its argument, its help, and where its value goes.
struct CompareOption {
  const char* name;
  const char* arg;
  const char* help;
  Status (*apply)(CompareArgs&, const std::string& value);
};
const CompareOption kCompareOptions[] = {
    {"--html", "FILE", "also the runs' report page, comparison on top (-: stdout)",
     [](CompareArgs& a, const std::string& v) {
       a.html = v;
       return Status::success();
     }},
    {"--json", "FILE", "also the comparison as a JSON document (-: stdout)",
     [](CompareArgs& a, const std::string& v) {
       a.json = v;
       return Status::success();
     }},
    {"--threshold", "PCT", "a significant change worse than PCT%: exit 1 (default 5)",
     [](CompareArgs& a, const std::string& v) {
       if (v == "0") return a.options.threshold_pct = 0, Status::success();
       return number_in("--threshold", v, 0, 1e6, &a.options.threshold_pct);
     }},
    {"--alpha", "P", "a difference is significant when p < P (default 0.05)",
     [](CompareArgs& a, const std::string& v) {
       return number_in("--alpha", v, 0, 0.5, &a.options.alpha);
     }},
    {"--confidence", "LEVEL", "level of the intervals shown as ± (default 0.95)",
     [](CompareArgs& a, const std::string& v) {
       Status s = number_in("--confidence", v, 0.5, 0.9999, &a.options.confidence);
       return s;
     }},
};

Status fail(Code code, const std::string& message) {
  return Status(code, "fabperf compare: " + message);
}

Result<CompareArgs> parse(const std::vector<std::string>& args) {
  CompareArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') {
      out.inputs.push_back(report::parse_input_arg(a));
      continue;
    }
    const size_t eq = a.find('=');
    const std::string name = a.substr(0, eq);
    const CompareOption* option = nullptr;
    for (const CompareOption& o : kCompareOptions) {
      if (name == o.name) option = &o;
    }
    if (option == nullptr) return Status::usage("unknown option " + a);
    std::string value;
    if (eq != std::string::npos) {
      value = a.substr(eq + 1);
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return Status::usage(name + " needs a value (" + option->arg + ")");
    }
    FP_RETURN_IF_ERROR(option->apply(out, value));
  }
  if (out.inputs.size() < 2) {
    return Status::usage(out.inputs.empty() ? "no runs to compare"
                                            : "one run: compare needs two or more");
  }
  // `--json a.json b.json c.json` would write over the first run: an input is never an output.
  for (const auto& [path, option] :
       {std::pair{&out.html, "--html"}, std::pair{&out.json, "--json"}}) {
    for (const report::InputArg& in : out.inputs) {
      if (!path->empty() && *path != "-" && *path == in.path) {
        return Status::usage(std::string(option) + " " + *path +
                             ": that is one of the runs to compare; give another file");
      }
    }
  }
  if (out.html == "-" && out.json == "-") {
    return Status::usage("only one of --html and --json can be - (standard output)");
  }
  return out;
}

}  // namespace

std::string compare_usage() {
  std::string text =
      "Usage: fabperf compare [LABEL=]A.json [LABEL=]B.json [MORE.json ...] [OPTIONS]\n"
      "  Runs saved with --json side by side: per test and size (and stream or\n"
      "  direction) each run's median and p99 with a confidence interval, and each\n"
      "  run's change from the first with its significance (Mann-Whitney U; ~ where\n"
      "  not significant). It tests repetitions (--repeat N) where every run has 4 or\n"
      "  more, else every latency sample, from the histograms. Exit status 1 when a\n"
      "  row regressed past --threshold, 2 for bad usage or input that is not a\n"
      "  fabperf run.\n";
  for (const CompareOption& o : kCompareOptions) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-19s %s\n", (std::string(o.name) + " " + o.arg).c_str(),
                  o.help);
    text += line;
  }
  return text + "  LABEL=FILE          name a run (before=a.json after=b.json)\n";
}

Status compare_main(const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "-h" || a == "--help") {
      std::fputs(compare_usage().c_str(), stdout);
      return Status::success();
    }
  }
  auto parsed = parse(args);
  if (!parsed.ok()) return fail(Code::kUsage, parsed.status().message() + "\n" + compare_usage());
  const CompareArgs& a = *parsed;
  // Before reading anything: an output that cannot be written is known now.
  for (const auto& [path, option] : {std::pair{&a.html, "--html"}, std::pair{&a.json, "--json"}}) {
    if (path->empty()) continue;
    if (Status s = check_writable(*path, option); !s.ok()) return fail(Code::kUsage, s.message());
  }
  auto runs = report::read_run_documents(a.inputs);
  if (!runs.ok()) return fail(Code::kUsage, runs.status().message());
  auto comparison = report::build_comparison(*runs, a.options);
  if (!comparison.ok()) return fail(Code::kUsage, comparison.status().message());
  if (!a.html.empty()) {
    auto page = report::build_compare_page_model(*runs, *comparison);
    if (!page.ok()) return fail(Code::kUsage, page.status().message());
    Status s = write_file_atomically(a.html, report::render_html(*page), "--html");
    if (!s.ok()) return fail(Code::kUsage, s.message());
  }
  if (!a.json.empty()) {
    Status s = write_file_atomically(a.json, json_text(*comparison), "--json");
    if (!s.ok()) return fail(Code::kUsage, s.message());
  }
  // The text goes to standard output unless a document has taken it.
  const std::string text = report::comparison_text(*comparison);
  std::fputs(text.c_str(), a.html == "-" || a.json == "-" ? stderr : stdout);
  // A regression is in the text just written: the status only decides the exit.
  return (*comparison)["regressions"].empty() ? Status::success() : Status::reported(Code::kFailed);
}

}  // namespace fabperf
