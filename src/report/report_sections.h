// The report's sections, one builder per kind of chart; report_model.cc groups results and
// calls them. Internal to the data step (src/report/report_model.h is its interface).
#pragma once

#include <deque>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fabperf::report {

// One result object of one run's document, with the label its series carry.
struct ResultRef {
  size_t run = 0;                          // index into the model's "runs"
  const nlohmann::json* result = nullptr;  // an element of the document's "results"
  std::string label;                       // "msg_size 64", "run2.json msg_size 64", or the test
};

// A finite number at `key` of object `j`, if there is one (wrong types read as absent).
std::optional<double> number_at(const nlohmann::json& j, std::string_view key);
// The same along a dotted path: "latency_ns.p50".
std::optional<double> number_at_path(const nlohmann::json& j, std::string_view path);
// The string at `key`, or "" when absent or not a string.
std::string string_at(const nlohmann::json& j, std::string_view key);
// Any value as text: a string as itself, anything else as compact JSON (invalid UTF-8, which
// an in-process document may hold, replaced rather than thrown on).
std::string text_of(const nlohmann::json& j);

// A section: {"id", "title", "charts": [], "tables": [], "notes": []}.
nlohmann::json section(const std::string& id, const std::string& title);

// Distribution of one test's latency across `refs` (each has "latency_ns"): histogram from the
// full "latency_histogram", HDR percentile plot, the figures marked and tabled.
nlohmann::json latency_section(const std::string& test, const std::vector<ResultRef>& refs,
                               const std::string& id);

// --repeat: each run's repetitions of one series (labels equal but for " #N") as one result
// whose figures and histogram hold all their samples, kept alive in `keep`; other results
// pass through. The distribution section draws one histogram per series, not N.
std::vector<ResultRef> merge_repetitions(const std::vector<ResultRef>& refs,
                                         std::deque<nlohmann::json>* keep);

// One test's figures against a swept variable (msg_size, or another -oo variable), one series
// per run; nothing when no run varied anything.
std::optional<nlohmann::json> sweep_section(const std::string& test,
                                            const std::vector<ResultRef>& refs,
                                            const std::vector<std::string>& run_labels,
                                            const std::string& id);

// Figures over time from results' "intervals"; nothing when no result has any.
std::optional<nlohmann::json> interval_section(const std::string& test,
                                               const std::vector<ResultRef>& refs,
                                               const std::string& id);

// Every result in one table: test, status, elapsed time, the main figure, the other runs that
// overlapped it, the error where one failed.
nlohmann::json results_section(const std::vector<ResultRef>& refs, const std::string& id);

// A cluster matrix document's "matrix": a heatmap and table per test, and the node verdicts.
std::vector<nlohmann::json> matrix_sections(const nlohmann::json& matrix,
                                            const std::string& run_label,
                                            const std::string& id_prefix);

}  // namespace fabperf::report
