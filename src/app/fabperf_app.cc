// Top level: the grammar argv[0] selects parses the command line, the mode table
// (app/mode_table.h) says which mode it asks for, that mode runs, and its Status becomes the
// process's exit status here and nowhere else.
#include "app/fabperf_app.h"

#include <cstdio>

#include "app/mode_table.h"

namespace fabperf {

namespace {

// The one mapping of an outcome to an exit status (core/status.h: 0 ok, 1 a run failed,
// 2 bad usage, 130 interrupted), but for the fab_* tools' dialect, which exits 1 for bad usage
// as the originals do.
int exit_code_of(const Status& outcome, Dialect dialect) {
  if (dialect == Dialect::kCxi && outcome.code() == Code::kUsage) {
    return Status::reported(Code::kFailed).exit_code();
  }
  return outcome.exit_code();
}

}  // namespace

int fabperf_main(const std::string& program, const std::vector<std::string>& args) {
  ModeCall call;
  call.program = program;
  call.args = args;
  Status outcome = resolve_mode(call);
  if (outcome.ok()) {
    const ModeRow& row = mode_row(call.mode);
    // report and compare measure nothing: they keep the default signal handling, so Ctrl-C
    // simply stops them.
    if (row.measures) begin_measuring(call);
    outcome = row.run(call);
  }
  // A failure not yet told (a mode that said it as it happened leaves the message empty).
  if (!outcome.message().empty()) std::fprintf(stderr, "%s\n", outcome.message().c_str());
  return exit_code_of(outcome, call.dialect);
}

}  // namespace fabperf
