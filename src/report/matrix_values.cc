// Reading and writing a matrix test's values: base64, the 16-bit log code, the three forms.
#include "report/matrix_values.h"

#include <algorithm>
#include <cmath>

namespace fabperf::report {

namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr uint32_t kCodes = 65533;  // codes 2..65535

int sextet(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

std::optional<size_t> index_of(const nlohmann::json& v, size_t ranks) {
  if (!v.is_number_integer()) return std::nullopt;
  int64_t i = v.get<int64_t>();
  if (i < 0 || static_cast<uint64_t>(i) >= ranks) return std::nullopt;
  return static_cast<size_t>(i);
}

}  // namespace

std::string base64_encode(const uint8_t* data, size_t size) {
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  for (size_t i = 0; i < size; i += 3) {
    uint32_t n = static_cast<uint32_t>(data[i]) << 16;
    if (i + 1 < size) n |= static_cast<uint32_t>(data[i + 1]) << 8;
    if (i + 2 < size) n |= data[i + 2];
    out += kAlphabet[(n >> 18) & 63];
    out += kAlphabet[(n >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(n >> 6) & 63] : '=';
    out += i + 2 < size ? kAlphabet[n & 63] : '=';
  }
  return out;
}

std::optional<std::vector<uint8_t>> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::vector<uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (size_t i = 0; i < text.size(); i += 4) {
    int s[4];
    size_t pad = 0;
    for (size_t k = 0; k < 4; ++k) {
      char c = text[i + k];
      if (c == '=' && i + 4 == text.size() && k >= 2) {
        s[k] = 0;
        ++pad;
        continue;
      }
      if (pad > 0) return std::nullopt;
      s[k] = sextet(c);
      if (s[k] < 0) return std::nullopt;
    }
    uint32_t n = (static_cast<uint32_t>(s[0]) << 18) | (static_cast<uint32_t>(s[1]) << 12) |
                 (static_cast<uint32_t>(s[2]) << 6) | static_cast<uint32_t>(s[3]);
    out.push_back(static_cast<uint8_t>(n >> 16));
    if (pad < 2) out.push_back(static_cast<uint8_t>(n >> 8));
    if (pad < 1) out.push_back(static_cast<uint8_t>(n));
  }
  return out;
}

Log16::Log16(double lo, double hi) : lo_(lo > 0 ? lo : 1e-300) {
  hi = std::max(hi, lo_);
  ratio_ = hi > lo_ ? std::exp(std::log(hi / lo_) / (kCodes - 1)) : 1.0;
}

uint16_t Log16::encode(double v) const {
  if (ratio_ <= 1 || v <= lo_) return 2;
  double c = std::round(std::log(v / lo_) / std::log(ratio_));
  return static_cast<uint16_t>(2 + std::clamp(c, 0.0, static_cast<double>(kCodes - 1)));
}

double Log16::decode(uint16_t code) const {
  return lo_ * std::pow(ratio_, static_cast<double>(code < 2 ? 0 : code - 2));
}

Status for_each_matrix_value(const nlohmann::json& test, size_t ranks,
                             const std::function<void(size_t, size_t, std::optional<double>)>& fn) {
  if (auto it = test.find("values"); it != test.end()) {
    if (!it->is_array() || it->size() != ranks) return Status::failed("\"values\" is not N x N");
    for (size_t a = 0; a < ranks; ++a) {
      const nlohmann::json& row = (*it)[a];
      if (!row.is_array() || row.size() != ranks) return Status::failed("\"values\" is not N x N");
      for (size_t b = 0; b < ranks; ++b) {
        if (a != b && row[b].is_number()) fn(a, b, row[b].get<double>());
      }
    }
    return Status::success();
  }
  if (auto it = test.find("pairs"); it != test.end()) {
    if (!it->is_array()) return Status::failed("\"pairs\" is not a list");
    for (const nlohmann::json& p : *it) {
      if (!p.is_array() || p.size() != 3)
        return Status::failed("a pair is not [client, server, value]");
      auto a = index_of(p[0], ranks), b = index_of(p[1], ranks);
      if (!a || !b || *a == *b) return Status::failed("a pair names a rank out of the job");
      if (p[2].is_number()) {
        fn(*a, *b, p[2].get<double>());
      } else if (p[2].is_null()) {
        fn(*a, *b, std::nullopt);
      } else {
        return Status::failed("a pair's value is not a number or null");
      }
    }
    return Status::success();
  }
  if (auto it = test.find("values_log16"); it != test.end()) {
    const nlohmann::json& v = *it;
    if (!v.is_object() || !v.value("min", nlohmann::json()).is_number() ||
        !v.value("ratio", nlohmann::json()).is_number() ||
        !v.value("rows", nlohmann::json()).is_array() || v["rows"].size() != ranks) {
      return Status::failed("\"values_log16\" lacks min, ratio or N rows");
    }
    Log16 code(v["min"].get<double>(), v["ratio"].get<double>(), true);
    for (size_t a = 0; a < ranks; ++a) {
      if (!v["rows"][a].is_string()) return Status::failed("a values_log16 row is not text");
      auto bytes = base64_decode(v["rows"][a].get_ref<const std::string&>());
      if (!bytes || bytes->size() != 2 * ranks) {
        return Status::failed("values_log16 row " + std::to_string(a) + " is not N codes");
      }
      for (size_t b = 0; b < ranks; ++b) {
        uint16_t c = static_cast<uint16_t>((*bytes)[2 * b] | ((*bytes)[2 * b + 1] << 8));
        if (c == Log16::kNone || a == b) continue;
        fn(a, b, c == Log16::kFailed ? std::nullopt : std::optional<double>(code.decode(c)));
      }
    }
    return Status::success();
  }
  return Status::failed("no \"values\", \"pairs\" or \"values_log16\"");
}

}  // namespace fabperf::report
