// qperf 0.4.11's presentation of results: significant digits, unit scaling, aligned blocks.
#include "report/qperf_format.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <span>
#include <string>
#include <utility>

#include "core/text.h"

namespace fabperf {
namespace {

// printf's "%.*f": qperf's output depends on glibc's exact decimal rounding, so use it too.
std::string fixed(double value, int decimals) {
  const int size = std::snprintf(nullptr, 0, "%.*f", decimals, value);
  std::string out(static_cast<size_t>(size), '\0');
  std::snprintf(out.data(), out.size() + 1, "%.*f", decimals, value);
  return out;
}

// Commas in the integer digits of an already formatted number: "12345.6" -> "12,345.6".
std::string commify(std::string text) {
  size_t begin = 0;
  while (begin < text.size() && !(text[begin] >= '0' && text[begin] <= '9')) ++begin;
  size_t end = begin;
  while (end < text.size() && text[end] >= '0' && text[end] <= '9') ++end;
  // Insert from the right so earlier positions stay valid.
  for (size_t pos = end; pos > begin + 3;) {
    pos -= 3;
    text.insert(pos, 1, ',');
  }
  return text;
}

std::string finish(double value, const FormatOptions& options) {
  std::string text = format_number(value, options.precision);
  return options.unify_units ? text : commify(std::move(text));
}

// qperf's ladder: divide by 1000 while the value is at least 1000 and a larger unit exists.
// Repeated division (not one pow) keeps the floating-point result identical to qperf's.
Shown ladder(double value, std::span<const char* const> units, const FormatOptions& options) {
  size_t step = 0;
  if (!options.unify_units) {
    while (value >= 1000 && step + 1 < units.size()) {
      value /= 1000;
      ++step;
    }
  }
  return Shown{finish(value, options), units[step]};
}

constexpr const char* kTimeUnits[] = {"ns", "us", "ms", "sec"};
constexpr const char* kCostUnits[] = {"ns/GB", "us/GB", "ms/GB", "sec/GB"};
constexpr const char* kByteRateUnits[] = {"bytes/sec", "KB/sec", "MB/sec", "GB/sec", "TB/sec"};
constexpr const char* kBitRateUnits[] = {"bits/sec", "Kb/sec", "Mb/sec", "Gb/sec", "Tb/sec"};
constexpr const char* kRateUnits[] = {"/sec", "K/sec", "M/sec", "G/sec", "T/sec"};
constexpr const char* kSizeUnits[] = {"bytes", "KB", "MB", "GB", "TB"};
constexpr const char* kCountUnits[] = {"", "thousand", "million", "billion", "trillion"};
constexpr const char* kBinaryUnits[] = {"KiB", "MiB", "GiB", "TiB"};

// qperf shows a size that is an exact power-of-1024 multiple as "8 KiB (8,192)": every step
// down to a value under 1024 (or to TiB) must divide evenly, so 1025 KiB is "1.05 MB".
bool binary_size(double value, Shown* out) {
  // Sizes are whole byte counts held in a signed 64-bit integer in qperf.
  if (!(value >= 1024 && value < 9.2e18) || value != std::floor(value)) return false;
  const auto bytes = static_cast<uint64_t>(value);
  if (bytes % 1024 != 0) return false;
  uint64_t scaled = bytes / 1024;
  size_t step = 0;
  while (scaled >= 1024 && step + 1 < std::size(kBinaryUnits)) {
    if (scaled % 1024 != 0) return false;
    scaled /= 1024;
    ++step;
  }
  *out = Shown{commify(std::to_string(scaled)),
               std::string(kBinaryUnits[step]) + " (" + commify(std::to_string(bytes)) + ")"};
  return true;
}

}  // namespace

std::string format_number(double value, int precision) {
  std::string text = fixed(value, 0);
  int missing = precision;
  for (size_t i = (!text.empty() && text[0] == '-') ? 1 : 0;
       i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    --missing;
  }
  if (missing <= 0) return text;
  text = fixed(value, missing);
  // Only a number printed with decimals is stripped: "100" must stay "100".
  size_t keep = text.size();
  while (keep > 0 && text[keep - 1] == '0') --keep;
  if (keep > 0 && text[keep - 1] == '.') --keep;
  text.resize(keep);  // The point stops the zero strip, so a leading "0" always stays.
  return text;
}

Shown format_figure(double value, Unit unit, const FormatOptions& options) {
  switch (unit) {
    case Unit::kTime:
      return ladder(value * 1e9, kTimeUnits, options);
    case Unit::kCost:
      return ladder(value * 1e9, kCostUnits, options);
    case Unit::kBandwidth:
      if (options.bits) return ladder(value * 8, kBitRateUnits, options);
      return ladder(value, kByteRateUnits, options);
    case Unit::kRate:
      return ladder(value, kRateUnits, options);
    case Unit::kSize: {
      Shown shown;
      if (!options.unify_units && binary_size(value, &shown)) return shown;
      return ladder(value, kSizeUnits, options);
    }
    case Unit::kCount:
      // Counts stay whole ("302,404") below a million; only then do they get words.
      if (value < 1e6) return Shown{finish(value, options), ""};
      return ladder(value, kCountUnits, options);
    case Unit::kPercentCpus:
      return Shown{finish(value, options), "% cpus"};
    case Unit::kText:
      return format_text(format_number(value, options.precision));
  }
  return Shown{finish(value, options), ""};
}

// Text may come from the peer (a server's node, CPU and OS in conf): escaped before it shows.
Shown format_text(std::string text) { return Shown{printable(text), "", true}; }

std::string render_block(std::string_view title, const std::vector<Line>& lines) {
  size_t name_width = 0;
  size_t value_width = 0;
  for (const Line& line : lines) {
    name_width = std::max(name_width, line.name.size());
    if (!line.shown.text) value_width = std::max(value_width, line.shown.value.size());
  }
  std::string out(title);
  out += ":\n";
  for (const Line& line : lines) {
    out += "    ";
    out += line.name;
    out.append(name_width - line.name.size(), ' ');
    out += "  =  ";
    if (line.shown.text) {
      out += line.shown.value;
    } else {
      out.append(value_width - line.shown.value.size(), ' ');
      out += line.shown.value;
      out += ' ';
      out += line.shown.unit;
    }
    out += '\n';
  }
  return out;
}

}  // namespace fabperf
