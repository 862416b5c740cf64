// Numbers crossing JSON: what is written must be finite, what is read back as a count must be
// a whole, non-negative number. One copy for every layer that writes or reads figures.
#pragma once

#include <cmath>
#include <cstdint>
#include <nlohmann/json.hpp>

namespace fabperf {

// Replaces NaN and infinities by 0: JSON and text must never carry them.
inline double finite_or_zero(double v) { return std::isfinite(v) ? v : 0.0; }

// Accepts only non-negative integers: parsed JSON gives number_unsigned, but a json built in
// code from a signed int is number_integer, and both are legitimate. Floats are refused so
// that 1.5 or 1e30 never turn into a silently truncated count.
inline bool json_to_u64(const nlohmann::json& j, uint64_t* out) {
  if (j.is_number_unsigned()) {
    *out = j.get<uint64_t>();
    return true;
  }
  if (j.is_number_integer()) {
    const int64_t v = j.get<int64_t>();
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  return false;
}

}  // namespace fabperf
