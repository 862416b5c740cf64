// qperf 0.4.11's presentation of results: significant digits, unit scaling, aligned blocks.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fabperf {

// `value` as qperf prints it with `-e precision`: "%.0f" first; when that has fewer digits
// than `precision`, reprint with the missing digits as decimals and strip trailing zeros
// and a bare point. The integer part is rounded like "%.0f" (999.6 -> "1000") and is never
// cut to `precision` digits (137.4 -> "137", 12345.6 -> "12346"). No thousands separators.
std::string format_number(double value, int precision);

// What a figure measures; decides its unit ladder. Inputs are in base units.
enum class Unit {
  kTime,         // seconds -> ns us ms sec
  kBandwidth,    // bytes per second -> bytes/sec KB/sec ... TB/sec (bits/sec ... with -ub)
  kRate,         // per second -> /sec K/sec M/sec G/sec T/sec
  kCost,         // seconds per GB -> ns/GB us/GB ms/GB sec/GB
  kSize,         // bytes -> "8 KiB (8,192)" for exact 1024 multiples, else bytes KB ... TB
  kCount,        // messages, errors -> "302,404", or "3.99 million" from a million up
  kPercentCpus,  // percent of one CPU (70 means 0.7 CPUs) -> "70 % cpus"
  kText,         // free text; prefer format_text()
};

// The display options of the qperf command line that change how figures look.
struct FormatOptions {
  int precision = 3;         // -e: significant digits
  bool unify_units = false;  // -uu: smallest unit (ns, bytes, /sec ...), no commas, no KiB
  bool bits = false;         // -ub: bandwidth in bits/sec
};

// One figure ready to print: the number as text and its unit ("" for counts). A text
// figure (conf's "2 Cores: ...") is printed as-is after the '=', unaligned and unitless.
struct Shown {
  std::string value;
  std::string unit;
  bool text = false;
};

// Scales `value` (in the base unit of `unit`) the way qperf does: by steps of 1000 while it is
// at least 1000, then format_number and commas (both skipped for the scaling and commas under
// unify_units). Negative values are not scaled, as in qperf.
Shown format_figure(double value, Unit unit, const FormatOptions& options);

// A text figure: conf's node, cpu, os and version lines.
Shown format_text(std::string text);

// One "name = value unit" row of a result block.
struct Line {
  std::string name;
  Shown shown;
};

// qperf's block: "title:" then, per line, four spaces, the name padded to the longest name,
// "  =  ", the value right-aligned to the widest non-text value, a space and the unit (so a
// count, whose unit is empty, ends in a space). Text values follow "  =  " directly. Every
// line ends in '\n'; with no lines the block is just "title:\n" (qperf's "quit:").
std::string render_block(std::string_view title, const std::vector<Line>& lines);

}  // namespace fabperf
