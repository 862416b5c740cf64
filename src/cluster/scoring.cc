// Matching findings to injected faults by kind and names.
#include "cluster/scoring.h"

#include <algorithm>
#include <set>
#include <string>

namespace fabperf::cluster {

namespace {

constexpr size_t kListed = 50;

// "kind|name|name" with the names of an unordered pair sorted, so both spellings match.
std::string key(const std::string& kind, std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  std::string out = kind;
  for (const std::string& n : names) out += "|" + n;
  return out;
}

std::vector<std::string> names(const nlohmann::json& j, const char* field) {
  std::vector<std::string> out;
  auto it = j.find(field);
  if (it == j.end()) return out;
  if (it->is_string()) out.push_back(it->get<std::string>());
  if (it->is_array()) {
    for (const auto& v : *it) {
      if (v.is_string()) out.push_back(v.get<std::string>());
    }
  }
  return out;
}

// The finding kind that finds a fault, and the fault's key.
std::string fault_key(const nlohmann::json& f) {
  std::string kind = f.value("kind", "");
  if (kind == "slow_link" || kind == "flapping_link") return key("link", names(f, "hosts"));
  if (kind == "slow_node") return key("node", names(f, "host"));
  if (kind == "dead_node") return key("unreachable", names(f, "host"));
  if (kind == "slow_switch") return key("switch", names(f, "switch"));
  if (kind == "slow_local_link") return key("local_link", names(f, "switches"));
  if (kind == "slow_uplink") {
    return f.contains("leaf") ? key("uplink", names(f, "leaf")) : key("uplink", names(f, "groups"));
  }
  return "?" + kind;
}

std::string finding_key(const nlohmann::json& f) {
  std::string kind = f.value("kind", "");
  if (kind == "link") return key(kind, names(f, "hosts"));
  if (kind == "node" || kind == "unreachable") return key(kind, names(f, "host"));
  if (kind == "switch") return key(kind, names(f, "switch"));
  if (kind == "local_link") return key(kind, names(f, "switches"));
  if (kind == "uplink") {
    return f.contains("leaf") ? key(kind, names(f, "leaf")) : key(kind, names(f, "groups"));
  }
  return "?" + kind;
}

}  // namespace

nlohmann::json score_findings(const nlohmann::json& findings, const nlohmann::json& faults,
                              bool pair_faults) {
  std::set<std::string> injected_all, scored;
  nlohmann::json by_kind = nlohmann::json::object();
  for (const auto& f : faults) {
    std::string k = fault_key(f);
    injected_all.insert(k);
    std::string kind = f.value("kind", "");
    bool per_pair = kind == "slow_link" || kind == "flapping_link";
    if (per_pair && !pair_faults) continue;
    if (scored.insert(k).second) {
      nlohmann::json& slot = by_kind[kind];
      if (!slot.is_object()) slot = nlohmann::json::object();
      slot["injected"] = slot.value("injected", 0) + 1;
      slot["found"] = slot.value("found", 0);
    }
  }
  std::set<std::string> named;
  size_t named_count = 0, false_count = 0, firm_named = 0, firm_false = 0;
  nlohmann::json false_list = nlohmann::json::array();
  for (const auto& f : findings) {
    std::string k = finding_key(f);
    ++named_count;
    bool firm = f.value("firm", false);
    firm_named += firm;
    if (injected_all.count(k) > 0) {
      named.insert(k);
      continue;
    }
    ++false_count;
    firm_false += firm;
    if (false_list.size() < kListed) false_list.push_back(f);
  }
  size_t found = 0;
  nlohmann::json missed = nlohmann::json::array();
  for (const auto& f : faults) {
    std::string k = fault_key(f);
    if (scored.count(k) == 0) continue;
    scored.erase(k);  // a fault listed twice counts once
    if (named.count(k) > 0) {
      ++found;
      nlohmann::json& slot = by_kind[f.value("kind", "")];
      if (!slot.is_object()) slot = nlohmann::json::object();
      slot["found"] = slot.value("found", 0) + 1;
    } else if (missed.size() < kListed) {
      missed.push_back(f);
    }
  }
  size_t injected = 0;
  for (const auto& [kind, slot] : by_kind.items()) injected += slot.value("injected", 0);
  double recall = injected > 0 ? static_cast<double>(found) / static_cast<double>(injected) : 1;
  double false_rate =
      named_count > 0 ? static_cast<double>(false_count) / static_cast<double>(named_count) : 0;
  return {{"injected", injected},
          {"found", found},
          {"recall", recall},
          {"named", named_count},
          {"false", false_count},
          {"false_rate", false_rate},
          {"precision", 1 - false_rate},
          {"firm", {{"named", firm_named}, {"false", firm_false}}},
          {"pair_faults_scored", pair_faults},
          {"by_kind", by_kind},
          {"missed", missed},
          {"false_findings", false_list}};
}

}  // namespace fabperf::cluster
