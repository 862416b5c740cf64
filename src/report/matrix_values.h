// The per-pair values of a --matrix JSON test (docs/cluster.md, "--json"), in its three forms,
// written by the matrix reporter and read back by the HTML report and --baseline:
//   "values":       N x N numbers, null where not measured (dense jobs up to 2,048 ranks);
//   "pairs":        [[client, server, value], ...], value null when the pair failed (sparse);
//   "values_log16": {"min", "ratio", "rows": [base64, ...]}: each row N little-endian 16-bit
//                   codes, 0 not measured, 1 failed, c >= 2 the value min * ratio^(c-2)
//                   (relative error below 0.01% for a 1000:1 range; dense jobs above 2,048).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabperf::report {

std::string base64_encode(const uint8_t* data, size_t size);
// Empty optional when the text is not base64.
std::optional<std::vector<uint8_t>> base64_decode(std::string_view text);

// The 16-bit logarithmic code of values in [lo, hi].
class Log16 {
 public:
  Log16(double lo, double hi);
  Log16(double lo, double ratio, bool) : lo_(lo), ratio_(ratio) {}
  uint16_t encode(double v) const;
  double decode(uint16_t code) const;
  double lo() const { return lo_; }
  double ratio() const { return ratio_; }
  static constexpr uint16_t kNone = 0, kFailed = 1;

 private:
  double lo_, ratio_;
};

// Calls fn(client, server, value) for each pair a test's JSON holds (value nullopt: failed;
// the "values" form has no failures). Errors say what is malformed.
Status for_each_matrix_value(
    const nlohmann::json& test, size_t ranks,
    const std::function<void(size_t client, size_t server, std::optional<double> value)>& fn);

}  // namespace fabperf::report
