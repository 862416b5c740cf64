// Reading a fabric model file, every field checked, and drawing one measurement from it.
#include "cluster/fabric_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "core/file_text.h"
#include "core/json_read.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kMaxFileBytes = 64ull << 20;
constexpr int64_t kMaxHosts = 1000000;

uint64_t mix(uint64_t x) {  // splitmix64's finaliser
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

double uniform(uint64_t key) { return static_cast<double>(mix(key) >> 11) * 0x1.0p-53; }

// A place in the document for messages: "faults[3].factor".
std::string at(const std::string& place, const std::string& key) {
  return place.empty() ? key : place + "." + key;
}

Status bad(const std::string& origin, const std::string& place, const std::string& why) {
  return Status::usage(origin + ": " + place + ": " + why);
}

Status only_keys(const nlohmann::json& obj, std::initializer_list<const char*> keys,
                 const std::string& origin, const std::string& place) {
  for (const auto& [key, value] : obj.items()) {
    // By name: clang 14 (the fuzzers' compiler) cannot capture a structured binding.
    auto is_key = [&name = key](const char* k) { return name == k; };
    if (std::none_of(keys.begin(), keys.end(), is_key)) {
      std::string known;
      for (const char* k : keys) known += (known.empty() ? "" : ", ") + std::string(k);
      return bad(origin, at(place, key), "unknown field (expected " + known + ")");
    }
  }
  return Status::success();
}

Result<const nlohmann::json*> object_at(const nlohmann::json& obj, const char* key,
                                        const std::string& origin, const std::string& place,
                                        bool required) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (required) return bad(origin, at(place, key), "missing");
    return static_cast<const nlohmann::json*>(nullptr);
  }
  if (!it->is_object()) return bad(origin, at(place, key), "not an object");
  return &*it;
}

Result<double> number_at(const nlohmann::json& obj, const char* key, const std::string& origin,
                         const std::string& place, double lo, double hi,
                         std::optional<double> fallback = std::nullopt) {
  auto it = obj.find(key);
  if (it == obj.end()) {
    if (fallback) return *fallback;
    return bad(origin, at(place, key), "missing");
  }
  if (!it->is_number()) return bad(origin, at(place, key), "not a number");
  double v = it->get<double>();
  if (!std::isfinite(v) || v < lo || v > hi) {
    return bad(origin, at(place, key),
               fmt::format("{:g} is out of range ({:g} to {:g})", v, lo, hi));
  }
  return v;
}

Result<int64_t> count_at(const nlohmann::json& obj, const char* key, const std::string& origin,
                         const std::string& place, int64_t lo, int64_t hi) {
  auto it = obj.find(key);
  if (it == obj.end()) return bad(origin, at(place, key), "missing");
  if (!it->is_number_integer()) return bad(origin, at(place, key), "not a whole number");
  int64_t v = it->get<int64_t>();
  if (v < lo || v > hi) {
    return bad(origin, at(place, key), fmt::format("{} is out of range ({} to {})", v, lo, hi));
  }
  return v;
}

Result<std::vector<std::string>> names_at(const nlohmann::json& obj, const char* key, size_t count,
                                          const std::string& origin, const std::string& place) {
  auto it = obj.find(key);
  if (it == obj.end()) return bad(origin, at(place, key), "missing");
  std::vector<std::string> out;
  if (count == 1 && it->is_string()) return std::vector<std::string>{it->get<std::string>()};
  if (!it->is_array() || it->size() != count) {
    return bad(origin, at(place, key),
               count == 1 ? "not a name" : fmt::format("not a list of {} names", count));
  }
  for (const auto& v : *it) {
    if (!v.is_string()) return bad(origin, at(place, key), "not a list of names");
    out.push_back(v.get<std::string>());
  }
  if (count == 2 && out[0] == out[1]) {
    return bad(origin, at(place, key), "names " + out[0] + " twice");
  }
  return out;
}

Result<FaultKind> fault_kind_of(const std::string& name) {
  for (FaultKind k :
       {FaultKind::kSlowLink, FaultKind::kFlappingLink, FaultKind::kSlowNode, FaultKind::kDeadNode,
        FaultKind::kSlowSwitch, FaultKind::kSlowLocalLink, FaultKind::kSlowUplink}) {
    if (name == fault_kind_name(k)) return k;
  }
  return Status::usage("");
}

// Where a fault's kind names what it touches: the key, and how many names it takes.
struct FaultNames {
  const char* key = "host";
  size_t count = 1;
};

FaultNames fault_names(FaultKind kind, bool fat_tree) {
  FaultNames out;
  switch (kind) {
    case FaultKind::kSlowLink:
    case FaultKind::kFlappingLink:
      out.key = "hosts";
      out.count = 2;
      break;
    case FaultKind::kSlowNode:
    case FaultKind::kDeadNode:
      break;
    case FaultKind::kSlowSwitch:
      out.key = "switch";
      break;
    case FaultKind::kSlowLocalLink:
      out.key = "switches";
      out.count = 2;
      break;
    case FaultKind::kSlowUplink:
      out.key = fat_tree ? "leaf" : "groups";
      out.count = fat_tree ? 1 : 2;
      break;
  }
  return out;
}

// Refuses a field that a fault of this kind does not have.
Status only_fault_keys(const nlohmann::json& f, FaultKind kind, const char* names_key,
                       const std::string& place) {
  std::vector<const char*> keys = {"kind", names_key};
  if (kind != FaultKind::kDeadNode) keys.push_back("factor");
  if (kind == FaultKind::kFlappingLink) keys.push_back("fraction");
  for (const auto& [key, value] : f.items()) {
    // By name: clang 14 (the fuzzers' compiler) cannot capture a structured binding.
    auto is_key = [&name = key](const char* k) { return name == k; };
    if (std::none_of(keys.begin(), keys.end(), is_key)) {
      return Status::usage(place + "." + key + ": not a field of a " + fault_kind_name(kind) +
                           " fault");
    }
  }
  return Status::success();
}

// The hosts, switches or groups the fault names, as fault.a and fault.b; each must exist.
Status find_fault_places(const nlohmann::json& f, const FaultNames& key, const std::string& place,
                         const Topology& topology, const std::vector<std::string>& host_names,
                         Fault& fault) {
  const char* names_key = key.key;
  auto names = names_at(f, names_key, key.count, "", place);
  if (!names.ok()) return Status::usage(names.status().message().substr(2));
  std::string where = place + "." + names_key;
  int index[2] = {-1, -1};
  for (size_t i = 0; i < names->size(); ++i) {
    const std::string& name = (*names)[i];
    bool host = names_key == std::string("host") || names_key == std::string("hosts");
    bool group = names_key == std::string("groups");
    if (fault.kind == FaultKind::kSlowUplink && topology.kind() == TopologyKind::kFlat) {
      return Status::usage(place + ": a flat fabric has no uplinks");
    }
    int found =
        host ? topology.host_switch(name) >= 0 ? static_cast<int>(std::stoul(name.substr(1))) : -1
        : group ? topology.group_index(name)
                : topology.switch_index(name);
    if (host && found >= 0 &&
        (found >= static_cast<int>(host_names.size()) ||
         host_names[static_cast<size_t>(found)] != name)) {
      found = -1;
    }
    if (found < 0) {
      return Status::usage(where + ": " +
                           (host    ? "host "
                            : group ? "group "
                                    : "switch ") +
                           name + " does not exist");
    }
    index[i] = found;
  }
  fault.a = index[0];
  fault.b = index[1];
  if (fault.kind == FaultKind::kSlowLocalLink && topology.local_link_id(fault.a, fault.b) < 0) {
    return Status::usage(where + ": " + (*names)[0] + " and " + (*names)[1] +
                         " are not joined by a local link (a dragonfly's switches of one group)");
  }
  return Status::success();
}

// The fault's factor (all but a dead node's) and a flapping link's fraction.
Status read_fault_amounts(const nlohmann::json& f, const std::string& place, Fault& fault) {
  if (fault.kind != FaultKind::kDeadNode) {
    auto factor = number_at(f, "factor", "", place, -1e300, 1e300);
    if (!factor.ok()) return Status::usage(factor.status().message().substr(2));
    if (*factor < 1) {
      return Status::usage(fmt::format("{}.factor: {:g} is below 1 (a fault slows, by this factor)",
                                       place, *factor));
    }
    if (*factor > 1e6) return Status::usage(place + ".factor: above 1e6");
    fault.factor = *factor;
  }
  if (fault.kind == FaultKind::kFlappingLink) {
    auto fraction = number_at(f, "fraction", "", place, 0, 1);
    if (!fraction.ok()) return Status::usage(fraction.status().message().substr(2));
    if (*fraction <= 0) return Status::usage(place + ".fraction: must be above 0");
    fault.fraction = *fraction;
  }
  return Status::success();
}

}  // namespace

const char* fault_kind_name(FaultKind kind) {
  switch (kind) {
    case FaultKind::kSlowLink:
      return "slow_link";
    case FaultKind::kFlappingLink:
      return "flapping_link";
    case FaultKind::kSlowNode:
      return "slow_node";
    case FaultKind::kDeadNode:
      return "dead_node";
    case FaultKind::kSlowSwitch:
      return "slow_switch";
    case FaultKind::kSlowLocalLink:
      return "slow_local_link";
    case FaultKind::kSlowUplink:
      return "slow_uplink";
  }
  return "?";
}

Result<FabricModel> FabricModel::load(const std::string& path) {
  const std::string origin = "--simulate " + path;
  auto text = read_capped_file(path, kMaxFileBytes, origin);
  if (!text.ok()) return text.status();
  return parse(*text, origin);
}

Result<FabricModel> FabricModel::parse(std::string_view text, const std::string& origin) {
  auto doc = parse_json_text(text, origin);
  if (!doc.ok()) return Status::usage(doc.status().message());
  if (!doc->is_object()) return Status::usage(origin + ": not a JSON object");
  FabricModel model;
  Status s = model.read(*doc, origin);
  if (!s.ok()) return s;
  return model;
}

Status FabricModel::read(const nlohmann::json& doc, const std::string& origin) {
  Status s = only_keys(
      doc, {"seed", "hosts", "topology", "links", "noise", "faults", "contention", "overhead_s"},
      origin, "");
  if (!s.ok()) return s;
  if (doc.contains("seed")) {
    if (!doc["seed"].is_number_integer() || doc["seed"].get<int64_t>() < 0) {
      return bad(origin, "seed", "not a whole number >= 0");
    }
    seed_ = doc["seed"].get<uint64_t>();
  }
  if (s = read_topology(doc, origin); !s.ok()) return s;
  auto links = object_at(doc, "links", origin, "", true);
  if (!links.ok()) return links.status();
  if (s = only_keys(**links, {"same_switch", "same_group", "other_group"}, origin, "links");
      !s.ok()) {
    return s;
  }
  for (int c = 0; c < kPathClasses; ++c) {
    const char* name = path_class_name(static_cast<PathClass>(c));
    bool used = c == 0 || (c == 1 && topology_.kind() == TopologyKind::kDragonfly) ||
                (c == 2 && topology_.kind() != TopologyKind::kFlat);
    std::string place = std::string("links.") + name;
    auto cls = object_at(**links, name, origin, "links", used);
    if (!cls.ok()) return cls.status();
    if (*cls == nullptr) continue;
    if (s = only_keys(**cls, {"latency_us", "bandwidth_gbps"}, origin, place); !s.ok()) return s;
    auto lat = number_at(**cls, "latency_us", origin, place, 1e-6, 1e9);
    if (!lat.ok()) return lat.status();
    auto bw = number_at(**cls, "bandwidth_gbps", origin, place, 1e-9, 1e9);
    if (!bw.ok()) return bw.status();
    classes_[c] = {*lat * 1e3, *bw * 1e9 / 8};
  }
  if (auto noise = object_at(doc, "noise", origin, "", false); !noise.ok()) {
    return noise.status();
  } else if (*noise != nullptr) {
    if (s = only_keys(**noise, {"jitter", "outlier_rate", "outlier_factor"}, origin, "noise");
        !s.ok()) {
      return s;
    }
    auto jitter = number_at(**noise, "jitter", origin, "noise", 0, 10, 0.0);
    auto rate = number_at(**noise, "outlier_rate", origin, "noise", 0, 1, 0.0);
    auto factor = number_at(**noise, "outlier_factor", origin, "noise", 1, 1e6, 1.0);
    for (const auto* r : {&jitter, &rate, &factor}) {
      if (!r->ok()) return r->status();
    }
    noise_ = {*jitter, *rate, *factor};
  }
  if (auto c = object_at(doc, "contention", origin, "", false); !c.ok()) {
    return c.status();
  } else if (*c != nullptr) {
    if (s = only_keys(**c, {"local_link_gbps", "global_link_gbps", "uplink_gbps"}, origin,
                      "contention");
        !s.ok()) {
      return s;
    }
    auto local = number_at(**c, "local_link_gbps", origin, "contention", 0, 1e9, 0.0);
    auto global = number_at(**c, "global_link_gbps", origin, "contention", 0, 1e9, 0.0);
    auto up = number_at(**c, "uplink_gbps", origin, "contention", 0, 1e9, 0.0);
    for (const auto* r : {&local, &global, &up}) {
      if (!r->ok()) return r->status();
    }
    contention_ = {*local * 1e9 / 8, *global * 1e9 / 8, *up * 1e9 / 8};
  }
  auto overhead = number_at(doc, "overhead_s", origin, "", 0, 3600, 0.1);
  if (!overhead.ok()) return overhead.status();
  overhead_s_ = *overhead;
  dead_.assign(host_names_.size(), false);
  if (auto it = doc.find("faults"); it != doc.end()) {
    if (!it->is_array()) return bad(origin, "faults", "not a list");
    for (size_t i = 0; i < it->size(); ++i) {
      if (s = read_fault((*it)[i], fmt::format("faults[{}]", i)).prefixed(origin); !s.ok()) {
        return s;
      }
    }
  }
  apply_faults();
  return Status::success();
}

Status FabricModel::read_topology(const nlohmann::json& doc, const std::string& origin) {
  auto hosts = count_at(doc, "hosts", origin, "", 2, kMaxHosts);
  if (!hosts.ok()) return hosts.status();
  auto topo = object_at(doc, "topology", origin, "", true);
  if (!topo.ok()) return topo.status();
  const nlohmann::json& t = **topo;
  auto kind = t.find("kind");
  if (kind == t.end() || !kind->is_string()) return bad(origin, "topology.kind", "missing");
  std::string k = kind->get<std::string>();
  int64_t per_switch = 0, switches = 0, groups = 0;
  Status s;
  if (k == "dragonfly") {
    s = only_keys(t, {"kind", "groups", "switches_per_group", "hosts_per_switch"}, origin,
                  "topology");
    if (!s.ok()) return s;
    auto g = count_at(t, "groups", origin, "topology", 1, 100000);
    auto sw = count_at(t, "switches_per_group", origin, "topology", 1, 100000);
    auto h = count_at(t, "hosts_per_switch", origin, "topology", 1, 100000);
    for (const auto* r : {&g, &sw, &h}) {
      if (!r->ok()) return r->status();
    }
    groups = *g;
    switches = *g * *sw;
    per_switch = *h;
    topology_ = Topology(TopologyKind::kDragonfly);
    for (int64_t gi = 0; gi < groups; ++gi) {
      topology_.add_group(fmt::format("g{:02d}", gi));
      for (int64_t si = 0; si < *sw; ++si) {
        topology_.add_switch(fmt::format("g{:02d}s{:02d}", gi, si), static_cast<int>(gi), -1);
      }
    }
  } else if (k == "fat_tree") {
    s = only_keys(t, {"kind", "leaves", "hosts_per_leaf", "spines"}, origin, "topology");
    if (!s.ok()) return s;
    auto leaves = count_at(t, "leaves", origin, "topology", 1, 1000000);
    auto h = count_at(t, "hosts_per_leaf", origin, "topology", 1, 100000);
    auto spines = count_at(t, "spines", origin, "topology", 1, 100000);
    for (const auto* r : {&leaves, &h, &spines}) {
      if (!r->ok()) return r->status();
    }
    switches = *leaves;
    per_switch = *h;
    topology_ = Topology(TopologyKind::kFatTree);
    for (int64_t l = 0; l < switches; ++l) {
      topology_.add_switch(fmt::format("leaf{:03d}", l), -1, -1);
    }
  } else if (k == "flat") {
    if (s = only_keys(t, {"kind"}, origin, "topology"); !s.ok()) return s;
    switches = 1;
    per_switch = *hosts;
    topology_ = Topology(TopologyKind::kFlat);
    topology_.add_switch("switch", -1, -1);
  } else {
    return bad(origin, "topology.kind",
               "unknown kind \"" + k + "\" (expected dragonfly, fat_tree or flat)");
  }
  if (switches * per_switch > kMaxHosts * 100 || *hosts > switches * per_switch) {
    return bad(origin, "hosts",
               fmt::format("{} hosts do not fit the topology ({} switches of {} hosts)", *hosts,
                           switches, per_switch));
  }
  for (int64_t h = 0; h < *hosts; ++h) {
    host_names_.push_back(fmt::format("n{:05d}", h));
    topology_.add_host(host_names_.back(), static_cast<int>(h / per_switch));
  }
  topology_.place_ranks(host_names_, nullptr);
  return Status::success();
}

Status FabricModel::read_fault(const nlohmann::json& f, const std::string& place) {
  if (!f.is_object()) return Status::usage(place + ": not an object");
  auto kind_it = f.find("kind");
  if (kind_it == f.end() || !kind_it->is_string()) return Status::usage(place + ".kind: missing");
  auto kind = fault_kind_of(kind_it->get<std::string>());
  if (!kind.ok()) {
    return Status::usage(place + ".kind: unknown kind \"" + kind_it->get<std::string>() +
                         "\" (expected slow_link, flapping_link, slow_node, dead_node, "
                         "slow_switch, slow_local_link or slow_uplink)");
  }
  Fault fault;
  fault.kind = *kind;
  const FaultNames names = fault_names(fault.kind, topology_.kind() == TopologyKind::kFatTree);
  FP_RETURN_IF_ERROR(only_fault_keys(f, fault.kind, names.key, place));
  FP_RETURN_IF_ERROR(find_fault_places(f, names, place, topology_, host_names_, fault));
  FP_RETURN_IF_ERROR(read_fault_amounts(f, place, fault));
  faults_.push_back(fault);
  return Status::success();
}

void FabricModel::apply_faults() {
  element_factor_.assign(topology_.element_count(), 1.0);
  capacity_.assign(topology_.element_count(), 0.0);
  for (size_t id = 0; id < capacity_.size(); ++id) {
    ElementKind kind = topology_.element_kind(static_cast<ElementId>(id));
    if (kind == ElementKind::kLocalLink) capacity_[id] = contention_.local_link_Bps;
    if (kind == ElementKind::kUplink) {
      capacity_[id] = topology_.kind() == TopologyKind::kDragonfly ? contention_.global_link_Bps
                                                                   : contention_.uplink_Bps;
    }
  }
  const uint64_t n = static_cast<uint64_t>(hosts());
  for (const Fault& f : faults_) {
    switch (f.kind) {
      case FaultKind::kSlowLink:
      case FaultKind::kFlappingLink: {
        uint64_t key = static_cast<uint64_t>(std::min(f.a, f.b)) * n +
                       static_cast<uint64_t>(std::max(f.a, f.b));
        PairFault& p = pair_faults_[key];
        if (f.kind == FaultKind::kSlowLink) {
          p.factor *= f.factor;
        } else {
          p.flap_factor *= f.factor;
          p.flap_fraction = std::max(p.flap_fraction, f.fraction);
        }
        break;
      }
      case FaultKind::kSlowNode:
        element_factor_[topology_.node_id(f.a)] *= f.factor;
        break;
      case FaultKind::kDeadNode:
        dead_[static_cast<size_t>(f.a)] = true;
        break;
      case FaultKind::kSlowSwitch:
        element_factor_[topology_.switch_id(f.a)] *= f.factor;
        break;
      case FaultKind::kSlowLocalLink:
        element_factor_[static_cast<size_t>(topology_.local_link_id(f.a, f.b))] *= f.factor;
        break;
      case FaultKind::kSlowUplink: {
        int64_t id = topology_.kind() == TopologyKind::kDragonfly
                         ? topology_.uplink_id_groups(f.a, f.b)
                         : topology_.uplink_id_switch(f.a);
        element_factor_[static_cast<size_t>(id)] *= f.factor;
        break;
      }
    }
  }
}

double FabricModel::capacity(ElementId element) const { return capacity_[element]; }

double FabricModel::measure(FigureKind figure, int client, int server, uint64_t draw,
                            double cap_Bps) const {
  ElementId path[kMaxPathElements];
  size_t k = topology_.path(client, server, path);
  double factor = 1;
  for (size_t i = 0; i < k; ++i) factor *= element_factor_[path[i]];
  uint64_t key0 = mix(seed_ ^ mix(draw));
  if (!pair_faults_.empty()) {
    uint64_t n = static_cast<uint64_t>(hosts());
    auto it = pair_faults_.find(static_cast<uint64_t>(std::min(client, server)) * n +
                                static_cast<uint64_t>(std::max(client, server)));
    if (it != pair_faults_.end()) {
      factor *= it->second.factor;
      if (uniform(key0 + 3) < it->second.flap_fraction) factor *= it->second.flap_factor;
    }
  }
  double noise = 1;
  if (noise_.jitter > 0) {
    double u1 = std::max(uniform(key0 + 1), 1e-300), u2 = uniform(key0 + 2);
    double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    noise = std::exp(noise_.jitter * z);
  }
  if (noise_.outlier_rate > 0 && uniform(key0 + 4) < noise_.outlier_rate) {
    noise *= noise_.outlier_factor;
  }
  const PathFigures& c = classes_[static_cast<int>(topology_.path_class(client, server))];
  if (figure == FigureKind::kLatencyP50) return c.latency_ns * factor * noise;
  double bw = c.bandwidth_Bps / factor;
  if (cap_Bps > 0) bw = std::min(bw, cap_Bps);
  bw /= noise;
  // A message-rate test: the bandwidth in messages of 64 bytes.
  return figure == FigureKind::kMsgRate ? bw / 64 : bw;
}

nlohmann::json FabricModel::fault_json(const Fault& f) const {
  nlohmann::json j = {{"kind", fault_kind_name(f.kind)}};
  auto host = [&](int h) { return host_names_[static_cast<size_t>(h)]; };
  auto sw = [&](int s) { return topology_.switches()[static_cast<size_t>(s)].name; };
  switch (f.kind) {
    case FaultKind::kSlowLink:
    case FaultKind::kFlappingLink:
      j["hosts"] = {host(f.a), host(f.b)};
      break;
    case FaultKind::kSlowNode:
    case FaultKind::kDeadNode:
      j["host"] = host(f.a);
      break;
    case FaultKind::kSlowSwitch:
      j["switch"] = sw(f.a);
      break;
    case FaultKind::kSlowLocalLink:
      j["switches"] = {sw(f.a), sw(f.b)};
      break;
    case FaultKind::kSlowUplink:
      if (topology_.kind() == TopologyKind::kDragonfly) {
        j["groups"] = {topology_.groups()[static_cast<size_t>(f.a)],
                       topology_.groups()[static_cast<size_t>(f.b)]};
      } else {
        j["leaf"] = sw(f.a);
      }
      break;
  }
  if (f.kind != FaultKind::kDeadNode) j["factor"] = f.factor;
  if (f.kind == FaultKind::kFlappingLink) j["fraction"] = f.fraction;
  return j;
}

}  // namespace fabperf::cluster
