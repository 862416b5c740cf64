// ParamSet storage and typed access.
#include "options/params.h"

#include <cstdio>
#include <cstdlib>

namespace fabperf {

namespace {
[[noreturn]] void die_missing(const std::string& name, const char* type) {
  std::fprintf(stderr, "internal error: parameter %s missing or not a %s\n", name.c_str(), type);
  std::abort();
}
}  // namespace

void ParamSet::set(const std::string& name, ParamValue value, bool by_user) {
  Entry& entry = values_[name];
  entry.value = std::move(value);
  entry.by_user = entry.by_user || by_user;
}

bool ParamSet::set_by_user(const std::string& name) const {
  auto it = values_.find(name);
  return it != values_.end() && it->second.by_user;
}

const ParamValue& ParamSet::raw(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) die_missing(name, "value");
  return it->second.value;
}

uint64_t ParamSet::u64(const std::string& name) const {
  const ParamValue& v = raw(name);
  if (auto* p = std::get_if<uint64_t>(&v)) return *p;
  if (auto* p = std::get_if<int64_t>(&v); p && *p >= 0) return static_cast<uint64_t>(*p);
  die_missing(name, "size or count");
}

int64_t ParamSet::i64(const std::string& name) const {
  const ParamValue& v = raw(name);
  if (auto* p = std::get_if<int64_t>(&v)) return *p;
  if (auto* p = std::get_if<uint64_t>(&v)) return static_cast<int64_t>(*p);
  die_missing(name, "integer");
}

double ParamSet::seconds(const std::string& name) const {
  const ParamValue& v = raw(name);
  if (auto* p = std::get_if<double>(&v)) return *p;
  if (auto* p = std::get_if<uint64_t>(&v)) return static_cast<double>(*p);
  if (auto* p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  die_missing(name, "time");
}

bool ParamSet::on(const std::string& name) const {
  const ParamValue& v = raw(name);
  if (auto* p = std::get_if<bool>(&v)) return *p;
  die_missing(name, "switch");
}

const std::string& ParamSet::str(const std::string& name) const {
  const ParamValue& v = raw(name);
  if (auto* p = std::get_if<std::string>(&v)) return *p;
  die_missing(name, "string");
}

std::vector<std::string> ParamSet::names() const {
  std::vector<std::string> out;
  for (const auto& [name, entry] : values_) out.push_back(name);
  return out;
}

nlohmann::json ParamSet::to_json() const {
  nlohmann::json out = nlohmann::json::object();
  // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
  for (const auto& item : values_) {
    const std::string& name = item.first;
    std::visit([&](const auto& v) { out[name] = v; }, item.second.value);
  }
  return out;
}

}  // namespace fabperf
