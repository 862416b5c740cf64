// The HTML report page: one self-contained file (Chart.js, the page script and the model
// inlined), which opens from disk and fetches nothing.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabperf::report {

// The page for a model from build_report_model(); report.js draws it as given.
std::string render_html(const nlohmann::json& model);

// `text` safe inside HTML text and attribute values (& < > " ').
std::string html_escape(const std::string& text);

}  // namespace fabperf::report
