// Chart model: the vocabulary shared by the report's data step and its page (report.js):
// charts, series, tables and cells as JSON, display units, number text and heat colours.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace fabperf::report {

// A unit to show figures in: value shown = base value / divisor (ns -> "us" divides by 1000).
struct DisplayUnit {
  std::string name;
  double divisor = 1;
};

// The unit that shows `largest` (in the base unit) with 1 to 3 digits before the point.
DisplayUnit latency_unit(double largest_ns);     // ns µs ms s
DisplayUnit bandwidth_unit(double largest_Bps);  // B/s KB/s MB/s GB/s (powers of 1000, as text)
DisplayUnit rate_unit(double largest_per_s);     // /s K/s M/s
// By a figure's unit name as the JSON spells it ("ns", "Bps", "msgs/s"); others unscaled.
DisplayUnit unit_for(const std::string& json_unit, double largest);

// "7.14 us": `digits` significant digits, grouping-free, never NaN.
std::string format_value(double base_value, const DisplayUnit& unit, int digits = 3);
// Message sizes as a person reads them: 1, 512, 4K, 64K, 1M (exact powers of 1024), else
// the plain number of bytes.
std::string size_text(double bytes);

// A table cell that carries the exact figure from the JSON beside its text, so the page (and
// the browser test) can tell which JSON value it shows: {"t": text, "v": value, "k": key}.
nlohmann::json value_cell(double base_value, const DisplayUnit& unit, const std::string& key);
nlohmann::json text_cell(const std::string& text);

// A table: {"title", "columns": [..], "rows": [[cell, ..], ..]}.
nlohmann::json table(const std::string& title, std::vector<std::string> columns);

// An axis: {"label", "unit", "log", "ticks": "percentile"|"size"|""}.
nlohmann::json axis(const std::string& label, const std::string& unit, bool log,
                    const std::string& ticks = "");

// A chart of xy series: {"type", "id", "title", "x", "y", "series": []}. Types the page
// draws: "line", "histogram" (stepped, filled), "percentile" (x = 1/(1-q) on a log axis),
// "heatmap" (its own fields; see matrix_charts.cc).
nlohmann::json chart(const std::string& type, const std::string& id, const std::string& title,
                     nlohmann::json x, nlohmann::json y);

// One series: {"label", "points": [[x, y], ..], "style": "line"|"dash"|"marker"|"points"}.
// "marker" is a vertical line at x (its two points span the y range), "points" unjoined dots.
// A series may add "hidden": true (drawn when its legend entry is clicked).
nlohmann::json series(const std::string& label, std::vector<std::pair<double, double>> points,
                      const std::string& style = "line");

// Heat colour of t in [0, 1] (0 = good, green; 1 = bad, red), as "#rrggbb".
std::string heat_color(double t);

}  // namespace fabperf::report
