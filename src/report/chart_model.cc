// Chart model: units, number text, cells, charts and heat colours for the report page.
#include "report/chart_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

#include "core/json_numbers.h"

namespace fabperf::report {

namespace {

// Steps of 1000 from the base unit; the first whose divisor keeps `largest` >= 1 wins.
DisplayUnit pick(double largest, const std::vector<std::string>& names) {
  largest = std::fabs(finite_or_zero(largest));
  double divisor = 1;
  size_t i = 0;
  while (i + 1 < names.size() && largest >= divisor * 1000) {
    divisor *= 1000;
    ++i;
  }
  return {names[i], divisor};
}

}  // namespace

DisplayUnit latency_unit(double largest_ns) {
  return pick(largest_ns, {"ns", "\u00b5s", "ms", "s"});
}

DisplayUnit bandwidth_unit(double largest_Bps) {
  return pick(largest_Bps, {"B/s", "KB/s", "MB/s", "GB/s", "TB/s"});
}

DisplayUnit rate_unit(double largest_per_s) {
  return pick(largest_per_s, {"/s", "K/s", "M/s", "G/s"});
}

DisplayUnit unit_for(const std::string& json_unit, double largest) {
  if (json_unit == "ns") return latency_unit(largest);
  if (json_unit == "Bps" || json_unit == "B/s") return bandwidth_unit(largest);
  if (json_unit == "msgs/s" || json_unit == "/s") return rate_unit(largest);
  return {json_unit, 1};
}

double bulk_of(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v) || v == 0; });
  if (values.empty()) return 0;
  for (double& v : values) v = std::fabs(v);
  const size_t mid = (values.size() - 1) / 2;
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(mid), values.end());
  return values[mid];
}

DisplayUnit bulk_unit(const std::string& json_unit, const std::vector<double>& values) {
  return unit_for(json_unit, bulk_of(values));
}

double axis_limit(const std::vector<double>& values, bool log) {
  std::vector<double> v;
  for (double x : values) {
    if (std::isfinite(x) && (!log || x > 0)) v.push_back(log ? std::log10(x) : x);
  }
  if (v.size() < 4) return 0;  // too few to call any of them the bulk
  std::sort(v.begin(), v.end());
  auto quartile = [&](double q) {
    const double at = q * static_cast<double>(v.size() - 1);
    const size_t i = static_cast<size_t>(at);
    return i + 1 < v.size() ? v[i] + (v[i + 1] - v[i]) * (at - static_cast<double>(i)) : v[i];
  };
  const double q1 = quartile(0.25), q3 = quartile(0.75);
  const double fence = q3 + std::max(3 * (q3 - q1), log ? 1.0 : std::fabs(q3));
  if (v.back() <= fence) return 0;
  return log ? std::pow(10.0, fence) : fence;
}

std::string format_value(double base_value, const DisplayUnit& unit, int digits) {
  const double v = finite_or_zero(base_value) / (unit.divisor > 0 ? unit.divisor : 1);
  char buf[64];
  // %g drops to exponents past `digits` integer digits; sizes of that order read better whole.
  if (std::fabs(v) >= std::pow(10.0, digits)) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.*g", digits, v);
  }
  std::string text = buf;
  if (!unit.name.empty()) text += (unit.name[0] == '/' ? "" : " ") + unit.name;
  return text;
}

std::string size_text(double bytes) {
  bytes = finite_or_zero(bytes);
  static constexpr std::array<const char*, 4> kSuffix = {"", "K", "M", "G"};
  double v = bytes;
  size_t i = 0;
  while (i + 1 < kSuffix.size() && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++i;
  }
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f%s", v, kSuffix[i]);
  return buf;
}

nlohmann::json value_cell(double base_value, const DisplayUnit& unit, const std::string& key) {
  return {{"t", format_value(base_value, unit)}, {"v", finite_or_zero(base_value)}, {"k", key}};
}

nlohmann::json text_cell(const std::string& text) { return {{"t", text}}; }

nlohmann::json table(const std::string& title, std::vector<std::string> columns) {
  return {{"title", title}, {"columns", std::move(columns)}, {"rows", nlohmann::json::array()}};
}

nlohmann::json axis(const std::string& label, const std::string& unit, bool log,
                    const std::string& ticks) {
  return {{"label", label}, {"unit", unit}, {"log", log}, {"ticks", ticks}};
}

nlohmann::json chart(const std::string& type, const std::string& id, const std::string& title,
                     nlohmann::json x, nlohmann::json y) {
  return {{"type", type},      {"id", id},          {"title", title},
          {"x", std::move(x)}, {"y", std::move(y)}, {"series", nlohmann::json::array()}};
}

nlohmann::json series(const std::string& label, std::vector<std::pair<double, double>> points,
                      const std::string& style) {
  nlohmann::json p = nlohmann::json::array();
  for (const auto& [x, y] : points) p.push_back({finite_or_zero(x), finite_or_zero(y)});
  return {{"label", label}, {"points", std::move(p)}, {"style", style}};
}

std::string heat_color(double t) {
  // Green (good) through yellow to red (bad): ColorBrewer RdYlGn's ends and middle.
  static constexpr std::array<std::array<double, 3>, 3> kStops = {
      {{0x1a, 0x98, 0x50}, {0xfe, 0xe0, 0x8b}, {0xd7, 0x30, 0x27}}};
  t = std::clamp(finite_or_zero(t), 0.0, 1.0);
  const size_t lo = t < 0.5 ? 0 : 1;
  const double u = (t - 0.5 * static_cast<double>(lo)) * 2;
  char buf[8];
  int rgb[3];
  for (int c = 0; c < 3; ++c) {
    rgb[c] = static_cast<int>(std::lround(kStops[lo][c] + (kStops[lo + 1][c] - kStops[lo][c]) * u));
  }
  std::snprintf(buf, sizeof buf, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
  return buf;
}

}  // namespace fabperf::report
