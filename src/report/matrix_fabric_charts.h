// Fabric sections of a cluster matrix report (`fabperf --matrix` with a topology, a simulated
// fabric, or --baseline): what the verdicts name and what was covered; a large job's heatmap by
// switch or group (each cell the geometric mean of its pairs), with the ranks of the switches
// and groups the findings name drawn one by one; and the difference from a baseline run.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace fabperf::report {

// Above this many ranks a test's heatmap is drawn by switch (or group), not rank by rank.
inline constexpr size_t kNodeHeatmapMax = 256;

// The findings table and the coverage; nothing when the matrix carries neither.
std::optional<nlohmann::json> findings_section(const nlohmann::json& matrix,
                                               const std::string& run_label, const std::string& id);

// A test's heatmap by switch (or by group, above 128 switches), and for each of the first few
// switches or groups the findings name, its ranks' own heatmap.
std::vector<nlohmann::json> switch_heatmap_sections(const nlohmann::json& matrix,
                                                    const nlohmann::json& test,
                                                    const std::string& run_label,
                                                    const std::string& id);

// The --baseline comparison: its changes, and per test a heatmap of the change by switch.
std::optional<nlohmann::json> baseline_section(const nlohmann::json& matrix,
                                               const std::string& run_label, const std::string& id);

// Display positions of the ranks (the JSON's "ranks" list is in topology order) and where a
// new switch starts in it, for the rank-by-rank heatmap.
std::vector<size_t> rank_positions(const nlohmann::json& ranks, size_t n);
nlohmann::json switch_separators(const nlohmann::json& ranks, size_t n);

}  // namespace fabperf::report
