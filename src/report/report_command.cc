// The report subcommand: reads saved JSON documents, builds the model, writes the page.
#include "report/report_command.h"

#include <cstdio>

#include "core/output_file.h"
#include "report/html_page.h"
#include "report/report_model.h"
#include "report/run_document.h"

namespace fabperf {

namespace {

int fail(int code, const std::string& message) {
  std::fprintf(stderr, "fabperf report: %s\n", message.c_str());
  return code;
}

}  // namespace

std::string report_usage() {
  return "Usage: fabperf report [LABEL=]RUN.json [MORE.json ...] -o FILE.html\n"
         "  Draws runs saved with --json (either dialect; pair runs and cluster matrices) as\n"
         "  one self-contained HTML page; several runs are overlaid for comparison.\n"
         "  -o, --output FILE   the page to write (- for standard output)\n"
         "  -                   as an input: read a document from standard input\n"
         "  LABEL=RUN.json      name the run LABEL in legends (before=a.json after=b.json)\n";
}

int report_main(const std::vector<std::string>& args) {
  std::vector<report::InputArg> inputs;
  std::string output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(report_usage().c_str(), stdout);
      return 0;
    }
    if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size()) return fail(2, a + " needs a file name\n" + report_usage());
      output = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.size() > 1 && a[0] == '-') {
      return fail(2, "unknown option " + a + "\n" + report_usage());
    } else {
      inputs.push_back(report::parse_input_arg(a));
    }
  }
  if (inputs.empty()) return fail(2, "no JSON file to draw\n" + report_usage());
  if (output.empty()) return fail(2, "no output: add -o FILE.html\n" + report_usage());
  // Before reading anything: a page that cannot be written is known now, not after the work.
  if (Status s = check_writable(output, "-o"); !s.ok()) return fail(1, s.message());

  auto runs = report::read_run_documents(inputs);
  if (!runs.ok()) return fail(1, runs.status().message());
  auto model = report::build_report_model(*runs);
  if (!model.ok()) return fail(1, model.status().message());
  Status s = write_file_atomically(output, report::render_html(*model), "-o");
  if (!s.ok()) return fail(1, s.message());
  return 0;
}

}  // namespace fabperf
