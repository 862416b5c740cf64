// `fabperf compare --html`: the report page of the runs with the comparison's tables on top.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/status.h"
#include "report/run_document.h"

namespace fabperf::report {

// build_report_model(runs) with a first section holding one table per statistic of
// `comparison` (build_comparison's document): each run's figure and interval, each delta
// with its verdict ("c": "better", "worse", "same", "untested" on the cell).
Result<nlohmann::json> build_compare_page_model(const std::vector<RunDocument>& runs,
                                                const nlohmann::json& comparison);

}  // namespace fabperf::report
