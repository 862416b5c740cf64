// The report's data step: run documents (fabperf's JSON, either dialect, pair runs and
// cluster matrices) to the model of charts and tables the HTML page draws as given.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "report/run_document.h"

namespace fabperf::report {

// The page's model: {"title", "generator", "runs": [{"label", "mode", "header": [[name,
// text], ..]}], "sections": [{"id", "title", "charts", "tables", "notes"}], and with several
// pair runs "differences" (parameter_differences, compare_model.h)}; chart and table shapes
// in chart_model.h. Every number is finite. Fails only where check_run_document does.
Result<nlohmann::json> build_report_model(const std::vector<RunDocument>& runs);

}  // namespace fabperf::report
