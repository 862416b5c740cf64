// The HTML report's page files (Chart.js and its licenses, report.js, report.css), embedded in
// the binary at build time by cmake/report_assets.cmake.
#pragma once

#include <string_view>
#include <vector>

namespace fabperf::report {

// One embedded file, by its file name ("chart.umd.min.js").
struct Asset {
  std::string_view name;
  std::string_view text;
};

// Every embedded file (defined in the generated build/generated/report_assets.cc).
const std::vector<Asset>& report_assets();

// The file called `name`, or "" when none is.
inline std::string_view report_asset(std::string_view name) {
  for (const Asset& a : report_assets()) {
    if (a.name == name) return a.text;
  }
  return {};
}

}  // namespace fabperf::report
