// The report's data step: run documents (fabperf's JSON, either dialect, pair runs and
// cluster matrices) to the model of charts and tables the HTML page draws as given.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf::report {

// One run to show, and what to call it where several are overlaid (a file name).
struct RunDocument {
  std::string label;
  nlohmann::json doc;
};

// Whether `doc` is a document this fabperf can draw: an object with "tool" "fabperf", an
// integer "schema" from 1 to kJsonSchema (a matrix document may omit it), and either
// "results" (an array of objects) or "matrix" (an object). The message says what is wrong.
Status check_run_document(const nlohmann::json& doc);

// The page's model: {"title", "generator", "runs": [{"label", "mode", "header": [[name,
// text], ..]}], "sections": [{"id", "title", "charts", "tables", "notes"}]}; chart and table
// shapes in chart_model.h. Every number is finite. Fails only where check_run_document does.
Result<nlohmann::json> build_report_model(const std::vector<RunDocument>& runs);

}  // namespace fabperf::report
