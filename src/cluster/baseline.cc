// Comparing a run with an earlier one: the earlier pairs mapped onto this run's ranks by host
// name, both fitted to this run's topology, element against element and link against link.
#include "cluster/baseline.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include "cluster/locate.h"
#include "cluster/matrix_run.h"
#include "core/file_text.h"
#include "core/json_read.h"
#include "report/matrix_values.h"

namespace fabperf::cluster {

namespace {

constexpr size_t kMaxChanges = 1000;
constexpr size_t kHostsListed = 100;
constexpr size_t kTextChanges = 20;
constexpr uint64_t kMaxFileBytes = 4ull << 30;

constexpr uint64_t kMaxBaselineRanks = 1u << 20;

// Every field the comparison reads has the type it is read as, so a hand-edited or damaged
// baseline is refused at the start, naming the field, instead of throwing mid-report.
Status check_baseline_shape(const nlohmann::json& d, const std::string& origin) {
  auto bad = [&](const std::string& field, const std::string& what) {
    return Status::usage(origin + ": field " + field + ": " + what);
  };
  auto typed = [](const nlohmann::json& o, const char* key, bool (nlohmann::json::*is)() const) {
    return !o.contains(key) || (o[key].*is)();
  };
  if (!typed(d, "started", &nlohmann::json::is_string)) return bad("started", "not a string");
  const nlohmann::json& m = d["matrix"];
  if (!typed(m, "size", &nlohmann::json::is_number_unsigned) ||
      m.value("size", uint64_t{0}) > kMaxBaselineRanks) {
    return bad("matrix.size",
               "not a whole number of ranks up to " + std::to_string(kMaxBaselineRanks));
  }
  if (!typed(m, "ranks", &nlohmann::json::is_array)) return bad("matrix.ranks", "not an array");
  const nlohmann::json none = nlohmann::json::array();
  const nlohmann::json& ranks = m.contains("ranks") ? m["ranks"] : none;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const std::string at = "matrix.ranks[" + std::to_string(i) + "]";
    const nlohmann::json& r = ranks[i];
    if (!r.is_object()) return bad(at, "not an object");
    if (!typed(r, "rank", &nlohmann::json::is_number_integer))
      return bad(at + ".rank", "not a whole number");
    if (!typed(r, "host", &nlohmann::json::is_string)) return bad(at + ".host", "not a string");
    if (!typed(r, "status", &nlohmann::json::is_string)) return bad(at + ".status", "not a string");
  }
  if (!typed(m, "tests", &nlohmann::json::is_array)) return bad("matrix.tests", "not an array");
  const nlohmann::json& tests = m.contains("tests") ? m["tests"] : none;
  for (size_t i = 0; i < tests.size(); ++i) {
    const std::string at = "matrix.tests[" + std::to_string(i) + "]";
    const nlohmann::json& t = tests[i];
    if (!t.is_object()) return bad(at, "not an object");
    for (const char* key : {"test", "figure"}) {
      if (!typed(t, key, &nlohmann::json::is_string)) return bad(at + "." + key, "not a string");
    }
    if (!typed(t, "suspects", &nlohmann::json::is_array))
      return bad(at + ".suspects", "not an array");
    const nlohmann::json& suspects = t.contains("suspects") ? t["suspects"] : none;
    for (size_t k = 0; k < suspects.size(); ++k) {
      const std::string sat = at + ".suspects[" + std::to_string(k) + "]";
      const nlohmann::json& x = suspects[k];
      if (!x.is_object()) return bad(sat, "not an object");
      for (const char* key : {"a", "b"}) {
        if (!typed(x, key, &nlohmann::json::is_number_integer))
          return bad(sat + "." + key, "not a whole number");
      }
    }
  }
  return Status::success();
}

// Earlier rank -> this run's rank, by host name (the k-th rank of a host to the k-th).
std::vector<int> map_ranks(const nlohmann::json& ranks, const std::vector<std::string>& now_hosts,
                           size_t before_size, std::vector<std::string>* only_before,
                           std::vector<std::string>* only_now) {
  std::map<std::string, std::vector<int>> now_by_host, before_by_host;
  for (size_t r = 0; r < now_hosts.size(); ++r)
    now_by_host[now_hosts[r]].push_back(static_cast<int>(r));
  std::vector<std::pair<int, std::string>> before;
  for (const auto& r : ranks) {
    if (r.contains("rank") && r["rank"].is_number_integer() && r.contains("host")) {
      before.emplace_back(r["rank"].get<int>(), r.value("host", ""));
    }
  }
  std::sort(before.begin(), before.end());
  for (const auto& [rank, host] : before) before_by_host[host].push_back(rank);
  std::vector<int> out(before_size, -1);
  for (const auto& [host, list] : before_by_host) {
    auto it = now_by_host.find(host);
    size_t matched = it == now_by_host.end() ? 0 : std::min(list.size(), it->second.size());
    for (size_t i = 0; i < matched; ++i) {
      if (static_cast<size_t>(list[i]) < before_size)
        out[static_cast<size_t>(list[i])] = it->second[i];
    }
    if (matched == 0 && only_before->size() < kHostsListed) only_before->push_back(host);
  }
  for (const auto& [host, list] : now_by_host) {
    if (before_by_host.count(host) == 0 && only_now->size() < kHostsListed)
      only_now->push_back(host);
  }
  return out;
}

const nlohmann::json* earlier_test(const nlohmann::json& matrix, const std::string& name) {
  if (!matrix.contains("tests") || !matrix["tests"].is_array()) return nullptr;
  for (const nlohmann::json& t : matrix["tests"]) {
    if (t.value("test", "") == name) return &t;
  }
  return nullptr;
}

// The earlier run as a MatrixRun on this run's ranks and topology.
MatrixRun earlier_run(const MatrixRun& now, const BaselineRun& before, std::vector<int>& map,
                      std::vector<std::string>& only_before, std::vector<std::string>& only_now,
                      std::vector<uint64_t>& compared) {
  const nlohmann::json& m = before.doc["matrix"];
  size_t before_size = m.value("size", 0);
  map = map_ranks(m.value("ranks", nlohmann::json::array()), now.hosts(), before_size, &only_before,
                  &only_now);
  MatrixRun then;
  then.ranks = now.ranks;
  for (RankStatus& r : then.ranks) r.alive = false;
  for (const auto& r : m.value("ranks", nlohmann::json::array())) {
    int rank = r.value("rank", -1);
    if (rank >= 0 && static_cast<size_t>(rank) < map.size() &&
        map[static_cast<size_t>(rank)] >= 0) {
      then.ranks[static_cast<size_t>(map[static_cast<size_t>(rank)])].alive =
          r.value("status", "ok") == "ok";
    }
  }
  then.topology = now.topology;
  then.tol = now.tol;
  compared.assign(now.tests.size(), 0);
  for (size_t t = 0; t < now.tests.size(); ++t) {
    const TestColumn& col = now.tests[t];
    then.tests.emplace_back(col.test, col.figure, now.size(), MatrixLayout::kSparse);
    const nlohmann::json* test = earlier_test(m, col.test);
    if (test == nullptr) continue;
    FigureMatrix& into = then.tests.back().matrix;
    report::for_each_matrix_value(*test, before_size,
                                  [&](size_t a, size_t b, std::optional<double> v) {
                                    int ra = map[a], rb = map[b];
                                    if (ra < 0 || rb < 0) return;
                                    if (v) {
                                      into.set(ra, rb, *v);
                                    } else {
                                      into.fail(ra, rb, "failed in the baseline");
                                    }
                                  })
        .ignore_error();
    for (const nlohmann::json& s : test->value("suspects", nlohmann::json::array())) {
      int a = s.value("a", -1), b = s.value("b", -1);
      if (a < 0 || b < 0 || static_cast<size_t>(a) >= map.size() ||
          static_cast<size_t>(b) >= map.size())
        continue;
      if (s.contains("retest") && s["retest"].is_number() && map[a] >= 0 && map[b] >= 0) {
        into.set_retest(map[static_cast<size_t>(a)], map[static_cast<size_t>(b)],
                        s["retest"].get<double>());
      }
    }
    into.for_each([&](int a, int b, std::optional<double> v) {
      if (v && col.matrix.get(a, b)) ++compared[t];
    });
  }
  return then;
}

nlohmann::json element_json(const MatrixRun& run, ElementId id) {
  const Topology& topo = *run.topology;
  Element e = topo.element(id);
  auto sw = [&](int s) { return topo.switches()[static_cast<size_t>(s)].name; };
  switch (e.kind) {
    case ElementKind::kNode:
      return {{"kind", "node"}, {"host", run.ranks[static_cast<size_t>(e.a)].host}, {"rank", e.a}};
    case ElementKind::kSwitch:
      return {{"kind", "switch"}, {"switch", sw(e.a)}};
    case ElementKind::kLocalLink:
      return {{"kind", "local_link"}, {"switches", {sw(e.a), sw(e.b)}}};
    case ElementKind::kUplink:
      if (topo.kind() == TopologyKind::kDragonfly) {
        return {
            {"kind", "uplink"},
            {"groups",
             {topo.groups()[static_cast<size_t>(e.a)], topo.groups()[static_cast<size_t>(e.b)]}}};
      }
      return {{"kind", "uplink"}, {"leaf", sw(e.a)}};
  }
  return {};
}

struct Change {
  double size;  // |log change|, for the order
  nlohmann::json j;
};

void element_changes(const MatrixRun& now, const MatrixRun& then, size_t t,
                     std::vector<Change>& out) {
  const TestFit& a = now.fit.tests[t];
  const TestFit& b = then.fit.tests[t];
  if (!a.valid || !b.valid) return;
  const Topology& topo = *now.topology;
  for (size_t id = 0; id < topo.element_count(); ++id) {
    uint32_t na = a.pairs[id], nb = b.pairs[id];
    if (na < kMinElementPairs || nb < kMinElementPairs) continue;
    ElementKind kind = topo.element_kind(static_cast<ElementId>(id));
    if (kind == ElementKind::kSwitch && topo.members()[id - topo.first_id(kind)].size() < 2)
      continue;
    double delta = static_cast<double>(a.factor[id]) - static_cast<double>(b.factor[id]);
    double ea = 1.2533 * a.spread / std::sqrt(static_cast<double>(na));
    double eb = 1.2533 * b.spread / std::sqrt(static_cast<double>(nb));
    double z = delta / std::sqrt(ea * ea + eb * eb);
    if (std::fabs(delta) <= a.element_threshold || std::fabs(z) < kElementZ) continue;
    nlohmann::json j = element_json(now, static_cast<ElementId>(id));
    j["test"] = now.tests[t].test;
    j["direction"] = delta > 0 ? "regression" : "improvement";
    j["change"] = std::exp(delta);  // > 1: this many times worse now
    j["before"] = std::exp(static_cast<double>(b.factor[id]));
    j["now"] = std::exp(static_cast<double>(a.factor[id]));
    j["z"] = z;
    j["pairs"] = {{"before", nb}, {"now", na}};
    out.push_back({std::fabs(delta), std::move(j)});
  }
}

void link_changes(const MatrixRun& now, const MatrixRun& then, size_t t, std::vector<Change>& out) {
  const TestFit& a = now.fit.tests[t];
  const TestFit& b = then.fit.tests[t];
  if (!a.valid || !b.valid) return;
  const FigureMatrix& mn = now.tests[t].matrix;
  const FigureMatrix& mb = then.tests[t].matrix;
  std::vector<bool> up_now = now.alive(), up_then = then.alive();
  double noise = std::sqrt(a.spread * a.spread + b.spread * b.spread);
  double limit = std::max(a.link_threshold, kLinkNoise * noise);
  mb.for_each([&](int x, int y, std::optional<double> vb) {
    auto vn = mn.get(x, y);
    if (!vb || !vn || !up_now[static_cast<size_t>(x)] || !up_now[static_cast<size_t>(y)] ||
        !up_then[static_cast<size_t>(x)] || !up_then[static_cast<size_t>(y)]) {
      return;
    }
    double now_value = mn.retest(x, y).value_or(*vn), then_value = mb.retest(x, y).value_or(*vb);
    double d =
        pair_residual(now, a, t, x, y, now_value) - pair_residual(then, b, t, x, y, then_value);
    if (std::fabs(d) <= limit) return;
    nlohmann::json j = {
        {"kind", "link"},
        {"hosts", {now.ranks[static_cast<size_t>(x)].host, now.ranks[static_cast<size_t>(y)].host}},
        {"ranks", {x, y}},
        {"test", now.tests[t].test},
        {"direction", d > 0 ? "regression" : "improvement"},
        {"change", std::exp(d)},
        {"before", then_value},
        {"now", now_value},
        {"z", d / noise}};
    out.push_back({std::fabs(d), std::move(j)});
  });
}

// Per pair of switches (by index), the median change of their common pairs, for the report's
// heatmap of the difference.
nlohmann::json switch_changes(const MatrixRun& now, const MatrixRun& then, size_t t) {
  const Topology& topo = *now.topology;
  const size_t switches = topo.switches().size();
  if (switches > 2048) return nullptr;
  std::unordered_map<uint64_t, std::vector<float>> cells;
  const FigureMatrix& mn = now.tests[t].matrix;
  Better better = now.tests[t].figure.better;
  then.tests[t].matrix.for_each([&](int x, int y, std::optional<double> vb) {
    auto vn = mn.get(x, y);
    int sx = topo.switch_of(x), sy = topo.switch_of(y);
    if (!vb || !vn || sx < 0 || sy < 0) return;
    if (sx > sy) std::swap(sx, sy);
    cells[static_cast<uint64_t>(sx) * switches + static_cast<uint64_t>(sy)].push_back(
        static_cast<float>(log_off(*vn, *vb, better)));
  });
  nlohmann::json out = nlohmann::json::array();
  std::vector<uint64_t> keys;
  for (const auto& kv : cells) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  for (uint64_t k : keys) {
    std::vector<float>& v = cells[k];
    std::nth_element(v.begin(), v.begin() + static_cast<ptrdiff_t>(v.size() / 2), v.end());
    out.push_back(
        {k / switches, k % switches, std::exp(static_cast<double>(v[v.size() / 2])), v.size()});
  }
  return out;
}

}  // namespace

Result<std::shared_ptr<const BaselineRun>> load_baseline(const std::string& path,
                                                         const std::vector<BaselineTest>& tests) {
  auto text = read_capped_file(path, kMaxFileBytes, "--baseline " + path);
  if (!text.ok()) return text.status();
  return parse_baseline(*text, path, tests);
}

Result<std::shared_ptr<const BaselineRun>> parse_baseline(std::string_view text,
                                                          const std::string& path,
                                                          const std::vector<BaselineTest>& tests) {
  const std::string origin = "--baseline " + path;
  auto run = std::make_shared<BaselineRun>();
  run->path = path;
  auto doc = parse_json_text(text, origin);
  if (!doc.ok()) return Status::usage(doc.status().message());
  run->doc = std::move(doc).value();
  const nlohmann::json& d = run->doc;
  if (!d.is_object() || !d.contains("mode") || d["mode"] != "matrix" || !d.contains("matrix") ||
      !d["matrix"].is_object()) {
    return Status::usage(origin + ": not the --json report of a --matrix run");
  }
  if (Status shape = check_baseline_shape(d, origin); !shape.ok()) return shape;
  std::string measured;
  for (const nlohmann::json& t : d["matrix"].value("tests", nlohmann::json::array())) {
    measured +=
        (measured.empty() ? "" : ", ") + t.value("test", "?") + " (" + t.value("figure", "?") + ")";
  }
  for (const BaselineTest& want : tests) {
    const nlohmann::json* t = earlier_test(d["matrix"], want.test);
    if (t == nullptr || t->value("figure", "") != want.figure) {
      return Status::usage(fmt::format(
          "{}: it measured {}, not {} ({}): a baseline must be a run of the same tests and "
          "figures",
          origin, measured.empty() ? "nothing" : measured, want.test, want.figure));
    }
  }
  return std::shared_ptr<const BaselineRun>(std::move(run));
}

nlohmann::json compare_with_baseline(const MatrixRun& now, const BaselineRun& before) {
  std::vector<int> map;
  std::vector<std::string> only_before, only_now;
  std::vector<uint64_t> compared;
  MatrixRun n2;  // this run on a flat topology, when it has none of its own
  const MatrixRun* cur = &now;
  MatrixRun then = earlier_run(now, before, map, only_before, only_now, compared);
  if (!now.topology || !now.topology->has_levels()) {
    // Nodes and links still compare: both runs fitted as one flat switch.
    Topology flat(TopologyKind::kFlat);
    flat.add_switch("all", -1, -1);
    std::vector<std::string> hosts = now.hosts();
    for (size_t r = 0; r < hosts.size(); ++r) flat.add_host(hosts[r], 0);
    flat.place_ranks(hosts, nullptr);
    auto shared = std::make_shared<const Topology>(std::move(flat));
    n2.ranks = now.ranks;
    n2.tol = now.tol;
    n2.topology = shared;
    for (const TestColumn& c : now.tests) {
      n2.tests.emplace_back(c.test, c.figure, now.size(), MatrixLayout::kSparse);
      c.matrix.for_each([&](int a, int b, std::optional<double> v) {
        if (v) n2.tests.back().matrix.set(a, b, *v);
      });
    }
    n2.fit = fit_fabric(n2);
    cur = &n2;
    then.topology = shared;
  }
  then.fit = fit_fabric(then);
  nlohmann::json tests = nlohmann::json::array();
  std::vector<Change> changes;
  for (size_t t = 0; t < now.tests.size(); ++t) {
    nlohmann::json j = {{"test", now.tests[t].test}, {"pairs_compared", compared[t]}};
    const TestFit& a = cur->fit.tests[t];
    const TestFit& b = then.fit.tests[t];
    if (a.valid && b.valid) {
      nlohmann::json classes = nlohmann::json::object();
      for (int c = 0; c < kPathClasses; ++c) {
        if (a.has_class[c] && b.has_class[c]) {
          classes[path_class_name(static_cast<PathClass>(c))] =
              std::exp(log_off(a.base[c], b.base[c], now.tests[t].figure.better));
        }
      }
      j["classes"] = classes;  // > 1: the class's healthy paths this many times worse now
      j["spread"] = {{"before", b.spread}, {"now", a.spread}};
    }
    if (cur == &now) j["switch_changes"] = switch_changes(now, then, t);
    element_changes(*cur, then, t, changes);
    link_changes(*cur, then, t, changes);
    tests.push_back(std::move(j));
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const Change& x, const Change& y) { return x.size > y.size; });
  nlohmann::json list = nlohmann::json::array();
  size_t regressions = 0, improvements = 0;
  for (const Change& c : changes) {
    (c.j["direction"] == "regression" ? regressions : improvements)++;
    if (list.size() < kMaxChanges) list.push_back(c.j);
  }
  size_t matched =
      static_cast<size_t>(std::count_if(map.begin(), map.end(), [](int r) { return r >= 0; }));
  return {{"file", before.path},
          {"started", before.doc.value("started", "")},
          {"hosts_matched", matched},
          {"hosts_only_now", only_now},
          {"hosts_only_before", only_before},
          {"tests", tests},
          {"regressions", regressions},
          {"improvements", improvements},
          {"changes", list}};
}

std::string baseline_text(const nlohmann::json& c) {
  if (c.is_null()) return "";
  std::string out =
      fmt::format("\nbaseline: {} (started {}): {} hosts matched", c.value("file", ""),
                  c.value("started", ""), c.value("hosts_matched", 0));
  auto hosts = [&](const char* key, const char* what) {
    const nlohmann::json& list = c[key];
    if (list.empty()) return;
    std::string names;
    for (size_t i = 0; i < std::min<size_t>(list.size(), 12); ++i) {
      names += (i ? ", " : "") + list[i].get<std::string>();
    }
    if (list.size() > 12) names += fmt::format(" and {} more", list.size() - 12);
    out += fmt::format("; {} host{} only in {}: {}", list.size(), list.size() == 1 ? "" : "s", what,
                       names);
  };
  hosts("hosts_only_now", "this run");
  hosts("hosts_only_before", "the baseline");
  out += "\n";
  for (const nlohmann::json& t : c["tests"]) {
    out +=
        fmt::format("    {}: {} pairs compared", t.value("test", ""), t.value("pairs_compared", 0));
    if (t.contains("classes")) {
      for (const auto& [cls, ratio] : t["classes"].items()) {
        out += fmt::format(", {} {:.3g}x", cls, ratio.get<double>());
      }
    }
    out += "\n";
  }
  out += fmt::format("    {} regressions, {} improvements (change: times worse now)\n",
                     c.value("regressions", 0), c.value("improvements", 0));
  size_t shown = 0;
  for (const nlohmann::json& ch : c["changes"]) {
    if (++shown > kTextChanges) {
      out += "        ... (the JSON report lists every change)\n";
      break;
    }
    std::string what = ch.value("kind", "");
    if (ch.contains("host")) what += " " + ch["host"].get<std::string>();
    if (ch.contains("switch")) what += " " + ch["switch"].get<std::string>();
    if (ch.contains("leaf")) what += " " + ch["leaf"].get<std::string>();
    for (const char* key : {"hosts", "switches", "groups"}) {
      if (ch.contains(key))
        what += " " + ch[key][0].get<std::string>() + " - " + ch[key][1].get<std::string>();
    }
    out += fmt::format("        {} {} in {}: {:.2f}x (z {:.1f})\n", ch.value("direction", ""), what,
                       ch.value("test", ""), ch.value("change", 0.0), ch.value("z", 0.0));
  }
  return out;
}

}  // namespace fabperf::cluster
