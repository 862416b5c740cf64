// make_reporters: the one assembly of a run's reporters (report/outputs.h).
#include "report/outputs.h"

#include <utility>

#include "options/option_table.h"

namespace fabperf {

OutputSpec outputs_of(const ProgramOptions& p) {
  OutputSpec out;
  out.json = p.json;
  out.csv = p.csv;
  out.html = p.html;
  out.json_stream = p.json_stream;
  out.interval_s = report_interval_s(p);
  return out;
}

Result<std::vector<std::unique_ptr<Reporter>>> make_reporters(OutputSpec outputs) {
  const int to_stdout = (outputs.json == "-") + (outputs.csv == "-") + (outputs.html == "-") +
                        (outputs.json_stream == "-");
  if (to_stdout > 1) {
    return Status::usage(
        "only one of --json, --csv, --html and --json-stream can be - (standard output)");
  }
  std::vector<std::unique_ptr<Reporter>> reporters;
  if (outputs.own && (to_stdout == 0 || outputs.own_keeps_stdout)) {
    reporters.push_back(std::move(outputs.own));
  }
  for (const auto& [path, make] :
       {std::pair{&outputs.json, &make_json_reporter}, std::pair{&outputs.csv, &make_csv_reporter},
        std::pair{&outputs.html, &make_html_reporter}}) {
    if (path->empty()) continue;
    auto r = make(*path);
    if (!r.ok()) return Status::usage(r.status().message());
    reporters.push_back(std::move(*r));
  }
  if (!outputs.json_stream.empty()) {
    auto r = make_json_stream_reporter(outputs.json_stream, outputs.interval_s);
    if (!r.ok()) return Status::usage(r.status().message());
    reporters.push_back(std::move(*r));
  }
  return reporters;
}

}  // namespace fabperf
