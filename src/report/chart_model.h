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

// The page's rule for units (every chart axis, every table column, and the compare text):
// the unit is chosen from the bulk of the values, their median, never from the largest,
// so one outlier does not turn a column of microseconds into 0.00109 ms. Zeros and
// non-finite values are left out of the median; `json_unit` as for unit_for.
double bulk_of(std::vector<double> values);
DisplayUnit bulk_unit(const std::string& json_unit, const std::vector<double>& values);

// Where an axis over `values` should end so that the bulk fills it: past the upper fence
// (Q3 + 3 IQR, at least 10x Q3 on a log axis and 2x Q3 on a linear one; quartiles of log10
// values on a log axis) the values are outliers, which the page draws as markers on the
// axis' edge labelled with their value. 0 when nothing lies past the fence (the axis then
// covers every value).
double axis_limit(const std::vector<double>& values, bool log);

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

// An axis: {"label", "unit", "log", "ticks": "percentile"|"values"|"ratio"|""}, and where
// the bulk calls for it "max" (axis_limit, in the axis' unit): values past it are drawn on
// the edge with their value. A "ratio" axis is linear and does not start at 0.
nlohmann::json axis(const std::string& label, const std::string& unit, bool log,
                    const std::string& ticks = "");

// A chart of xy series: {"type", "id", "title", "x", "y", "series": []}. Types the page
// draws: "line", "histogram" (stepped, filled), "percentile" (x = 1/(1-q) on a log axis),
// "ratio" (each run's series of chart "of" over run "base"'s at the same x, redrawn by the
// page for the baseline the reader picks), "heatmap" (its own fields; see matrix_charts.cc).
nlohmann::json chart(const std::string& type, const std::string& id, const std::string& title,
                     nlohmann::json x, nlohmann::json y);

// One series: {"label", "points": [[x, y], ..], "style": "line"|"dash"|"marker"|"points"|
// "step"}. "marker" is a vertical line at x (its two points span the y range), "points"
// unjoined dots, "step" a value held from its x to the next point's. Tags the page styles
// by: "run" (index into the model's runs: one hue family a run, and the run toggle), "stat"
// ("p50", "p99", "mean", "histogram", ...: one dash a statistic), "group" (loop values:
// shades within a run), "edge" (a marker on the axis' edge, with this text).
nlohmann::json series(const std::string& label, std::vector<std::pair<double, double>> points,
                      const std::string& style = "line");

// Heat colour of t in [0, 1] (0 = good, green; 1 = bad, red), as "#rrggbb".
std::string heat_color(double t);

}  // namespace fabperf::report
