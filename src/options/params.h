// ParamSet: the effective option values of one side of one test, by canonical option name.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace fabperf {

// One option value. Sizes and counts are uint64, times are seconds (double), switches bool.
using ParamValue = std::variant<bool, int64_t, uint64_t, double, std::string>;

class ParamSet {
 public:
  void set(const std::string& name, ParamValue value, bool by_user);
  bool has(const std::string& name) const { return values_.count(name) != 0; }
  bool set_by_user(const std::string& name) const;

  // Typed reads; a missing name or a wrong type is a programming error and aborts in tests
  // (the option table guarantees every test sees its defaults).
  uint64_t u64(const std::string& name) const;
  int64_t i64(const std::string& name) const;
  double seconds(const std::string& name) const;
  bool on(const std::string& name) const;
  const std::string& str(const std::string& name) const;
  const ParamValue& raw(const std::string& name) const;

  // Names in a stable (sorted) order.
  std::vector<std::string> names() const;

  // Wire and report form: {"msg_size": 65536, "time": 2.0, ...}; types come from the option table.
  nlohmann::json to_json() const;

 private:
  struct Entry {
    ParamValue value;
    bool by_user = false;
  };
  std::map<std::string, Entry> values_;
};

}  // namespace fabperf
