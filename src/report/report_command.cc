// The report subcommand: reads saved JSON documents, builds the model, writes the page.
#include "report/report_command.h"

#include <cstdio>

#include "core/output_file.h"
#include "report/html_page.h"
#include "report/report_model.h"
#include "report/run_document.h"

namespace fabperf {

namespace {

Status fail(Code code, const std::string& message) {
  return Status(code, "fabperf report: " + message);
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

Status report_main(const std::vector<std::string>& args) {
  std::vector<report::InputArg> inputs;
  std::string output;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "-h" || a == "--help") {
      std::fputs(report_usage().c_str(), stdout);
      return Status::success();
    }
    if (a == "-o" || a == "--output") {
      if (i + 1 >= args.size())
        return fail(Code::kUsage, a + " needs a file name\n" + report_usage());
      output = args[++i];
    } else if (a.rfind("--output=", 0) == 0) {
      output = a.substr(9);
    } else if (a.size() > 1 && a[0] == '-') {
      return fail(Code::kUsage, "unknown option " + a + "\n" + report_usage());
    } else {
      inputs.push_back(report::parse_input_arg(a));
    }
  }
  if (inputs.empty()) return fail(Code::kUsage, "no JSON file to draw\n" + report_usage());
  if (output.empty()) return fail(Code::kUsage, "no output: add -o FILE.html\n" + report_usage());
  // Before reading anything: a page that cannot be written is known now, not after the work.
  if (Status s = check_writable(output, "-o"); !s.ok()) return fail(Code::kFailed, s.message());

  auto runs = report::read_run_documents(inputs);
  if (!runs.ok()) return fail(Code::kFailed, runs.status().message());
  auto model = report::build_report_model(*runs);
  if (!model.ok()) return fail(Code::kFailed, model.status().message());
  Status s = write_file_atomically(output, report::render_html(*model), "-o");
  if (!s.ok()) return fail(Code::kFailed, s.message());
  return Status::success();
}

}  // namespace fabperf
