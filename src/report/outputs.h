// A run's reporters, assembled in one place for every mode and both dialects: the dialect's
// own (fabperf's qperf text, a fab_* tool's tables) and the files --json, --csv, --html and
// --json-stream ask for.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "options/run_options.h"
#include "report/reporter.h"

namespace fabperf {

// Where a run's results go.
struct OutputSpec {
  std::string json, csv, html, json_stream;  // "" none, "-" standard output
  double interval_s = 0;                     // --json-stream's interval records (0: none)
  std::unique_ptr<Reporter> own;             // the dialect's own reporter (null: none)
  // The own reporter keeps standard output beside a machine format on "-" (a tool's tables,
  // as the originals print them); else it gives way (fabperf's text).
  bool own_keeps_stdout = false;
};

// The files the program options ask for; the caller adds the dialect's own reporter.
OutputSpec outputs_of(const ProgramOptions& p);

// The reporters, the dialect's own first, then --json, --csv, --html, --json-stream. At most
// one machine format may be "-"; a file that cannot be written is a usage error naming it.
Result<std::vector<std::unique_ptr<Reporter>>> make_reporters(OutputSpec outputs);

}  // namespace fabperf
