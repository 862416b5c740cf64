// The fabric sections of a matrix report: findings, the heatmap by switch with its drill-downs,
// and the difference from a baseline.
#include "report/matrix_fabric_charts.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "report/chart_model.h"
#include "report/matrix_values.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

constexpr size_t kMaxSwitchCells = 128;  // above this many switches, the heatmap is by group
constexpr size_t kDrillDowns = 3;
constexpr size_t kFindingRows = 50;
constexpr size_t kChangeRows = 50;

std::string labelled(const std::string& title, const std::string& run_label) {
  return title + (run_label.empty() ? "" : " (" + run_label + ")");
}

// What a finding or change names, as one line of text.
std::string naming(const nlohmann::json& f) {
  std::string kind = string_at(f, "kind");
  auto pair = [&](const char* key) {
    if (!f.contains(key) || !f[key].is_array() || f[key].size() != 2) return std::string("?");
    return f[key][0].get<std::string>() + " - " + f[key][1].get<std::string>();
  };
  if (kind == "link") return "link " + pair("hosts");
  if (kind == "node" || kind == "unreachable") return kind + " " + string_at(f, "host");
  if (kind == "switch") return "switch " + string_at(f, "switch");
  if (kind == "local_link") return "local link " + pair("switches");
  if (kind == "uplink") {
    return f.contains("leaf") ? "uplinks of " + string_at(f, "leaf")
                              : "global link " + pair("groups");
  }
  return kind;
}

// Per rank (by rank number): its switch and group from the "ranks" list.
struct Places {
  std::vector<std::string> switch_of, group_of, host_of;
};

Places places(const nlohmann::json& ranks, size_t n) {
  Places p;
  p.switch_of.assign(n, "");
  p.group_of.assign(n, "");
  p.host_of.assign(n, "");
  if (!ranks.is_array()) return p;
  for (const nlohmann::json& r : ranks) {
    auto rank = number_at(r, "rank");
    if (!rank || *rank < 0 || *rank >= static_cast<double>(n)) continue;
    size_t i = static_cast<size_t>(*rank);
    p.switch_of[i] = string_at(r, "switch");
    p.group_of[i] = string_at(r, "group");
    p.host_of[i] = string_at(r, "host");
  }
  return p;
}

// Colours from the test's own median and threshold, as the rank-by-rank heatmap's.
struct Scale {
  double good = 0, mid = 0, bad = 0;
  std::string color(double v) const {
    return heat_color(bad != good ? (v - good) / (bad - good) : 0.0);
  }
};

Scale scale_of(const nlohmann::json& test, double lo, double hi) {
  bool higher = string_at(test, "better") == "higher";
  Scale s{higher ? hi : lo, (lo + hi) / 2, higher ? lo : hi};
  auto median = number_at(test, "median"), threshold = number_at(test, "threshold");
  if (median && threshold && *threshold != *median) {
    s.good = *median;
    s.mid = *threshold;
    s.bad = *median + 2 * (*threshold - *median);
  }
  return s;
}

nlohmann::json heat_chart(const std::string& id, const std::string& title,
                          const std::vector<std::string>& labels, const DisplayUnit& unit,
                          nlohmann::json cells, nlohmann::json legend, size_t measured,
                          const std::string& axis_name) {
  nlohmann::json heat =
      chart("heatmap", id, title, axis(axis_name + " (column: server)", "", false),
            axis(axis_name + " (row: client)", "", false));
  heat["labels"] = labels;
  heat["unit"] = unit.name;
  heat["cells"] = std::move(cells);
  heat["suspects"] = nlohmann::json::array();
  heat["legend"] = std::move(legend);
  heat["measured"] = measured;
  return heat;
}

// The units a large matrix is drawn by: switches, or groups above kMaxSwitchCells switches.
std::vector<std::string> units_of(const Places& p, bool by_group) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& name : by_group ? p.group_of : p.switch_of) {
    if (!name.empty() && seen.insert(name).second) out.push_back(name);
  }
  return out;
}

// The ranks of a switch or group, and the switches or groups a finding lives in.
std::vector<std::string> homes(const nlohmann::json& f, bool by_group,
                               const std::map<std::string, std::string>& group_of_switch,
                               const Places& p) {
  std::vector<std::string> out;
  auto add_switch = [&](const std::string& s) {
    if (!by_group) {
      out.push_back(s);
    } else if (auto it = group_of_switch.find(s);
               it != group_of_switch.end() && !it->second.empty()) {
      out.push_back(it->second);
    }
  };
  std::string kind = string_at(f, "kind");
  if (kind == "switch") add_switch(string_at(f, "switch"));
  if (kind == "local_link" && f["switches"].is_array()) {
    for (const auto& s : f["switches"]) add_switch(s.get<std::string>());
  }
  if (kind == "uplink" && f.contains("leaf")) add_switch(string_at(f, "leaf"));
  if (kind == "uplink" && f.contains("groups") && by_group) {
    for (const auto& g : f["groups"]) out.push_back(g.get<std::string>());
  }
  if (kind == "node" || kind == "link") {
    auto rank = f.contains("rank")
                    ? number_at(f, "rank")
                    : (f.contains("ranks") ? std::optional<double>(f["ranks"][0].get<double>())
                                           : std::nullopt);
    if (rank && *rank >= 0 && *rank < static_cast<double>(p.switch_of.size())) {
      add_switch(p.switch_of[static_cast<size_t>(*rank)]);
    }
  }
  return out;
}

// Per rank, the index of its switch or group in `units` (-1: in none of them).
std::vector<int> unit_index(const Places& p, const std::vector<std::string>& units, bool by_group) {
  const size_t n = p.switch_of.size();
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < units.size(); ++i) index[units[i]] = i;
  std::vector<int> unit_of(n, -1);
  for (size_t r = 0; r < n; ++r) {
    auto it = index.find(by_group ? p.group_of[r] : p.switch_of[r]);
    if (it != index.end()) unit_of[r] = static_cast<int>(it->second);
  }
  return unit_of;
}

// Geometric mean per cell: a sum of logs and a count, whatever the number of pairs.
struct BlockMeans {
  size_t u = 0;  // units a side: block (a, b) is cell a * u + b
  std::vector<double> logs;
  std::vector<uint32_t> counts;
  double lo = 0, hi = 0;  // the range of the values summed
  size_t measured = 0;
  Status drawn;  // why some values could not be read
};

BlockMeans block_means(const nlohmann::json& test, size_t n, const std::vector<int>& unit_of,
                       size_t u) {
  BlockMeans m;
  m.u = u;
  m.logs.assign(u * u, 0.0);
  m.counts.assign(u * u, 0);
  m.drawn = for_each_matrix_value(test, n, [&](size_t a, size_t b, std::optional<double> v) {
    if (!v || *v <= 0 || unit_of[a] < 0 || unit_of[b] < 0) return;
    size_t cell = static_cast<size_t>(unit_of[a]) * u + static_cast<size_t>(unit_of[b]);
    m.logs[cell] += std::log(*v);
    ++m.counts[cell];
    m.lo = m.measured == 0 ? *v : std::min(m.lo, *v);
    m.hi = m.measured == 0 ? *v : std::max(m.hi, *v);
    ++m.measured;
  });
  return m;
}

// The heatmap's cells: each block with pairs, its geometric mean in `unit`, coloured.
nlohmann::json block_cells(const BlockMeans& m, const DisplayUnit& unit, const Scale& scale) {
  const size_t u = m.u;
  nlohmann::json cells = nlohmann::json::array();
  for (size_t a = 0; a < u; ++a) {
    for (size_t b = 0; b < u; ++b) {
      size_t cell = a * u + b;
      if (m.counts[cell] == 0) continue;
      double v = std::exp(m.logs[cell] / m.counts[cell]);
      cells.push_back({b, a, std::round(v / unit.divisor * 1e4) / 1e4, scale.color(v)});
    }
  }
  return cells;
}

nlohmann::json scale_legend(const Scale& scale, const DisplayUnit& unit) {
  nlohmann::json legend = nlohmann::json::array();
  for (double v : {scale.good, scale.mid, scale.bad}) {
    legend.push_back(nlohmann::json::array({format_value(v, unit), scale.color(v)}));
  }
  return legend;
}

// The switches or groups the findings name, in the findings' order (drawn: kDrillDowns).
std::vector<std::string> drill_down_homes(const nlohmann::json& matrix, bool by_group,
                                          const std::map<std::string, std::string>& group_of_switch,
                                          const Places& p) {
  std::vector<std::string> named;
  for (const nlohmann::json& f : matrix.value("findings", nlohmann::json::array())) {
    for (const std::string& h : homes(f, by_group, group_of_switch, p)) {
      if (std::find(named.begin(), named.end(), h) == named.end()) named.push_back(h);
    }
    if (named.size() >= kDrillDowns) break;
  }
  return named;
}

// The ranks of one switch or group (`home`) pair by pair, coloured as its blocks are; none
// where it has no ranks or too many to draw.
std::optional<nlohmann::json> drill_down_section(const nlohmann::json& test, const Places& p,
                                                 bool by_group, const std::string& home,
                                                 const std::string& did, const std::string& title,
                                                 const std::string& chart_title,
                                                 const DisplayUnit& unit, const Scale& scale,
                                                 const nlohmann::json& legend) {
  const size_t n = p.switch_of.size();
  std::vector<size_t> members;
  for (size_t r = 0; r < n; ++r) {
    if ((by_group ? p.group_of[r] : p.switch_of[r]) == home) members.push_back(r);
  }
  if (members.empty() || members.size() > kNodeHeatmapMax) return std::nullopt;
  std::map<size_t, size_t> pos;
  std::vector<std::string> labels;
  for (size_t i = 0; i < members.size(); ++i) {
    pos[members[i]] = i;
    labels.push_back(p.host_of[members[i]] + " (" + std::to_string(members[i]) + ")");
  }
  nlohmann::json dcells = nlohmann::json::array();
  size_t dmeasured = 0;
  for_each_matrix_value(test, n, [&](size_t a, size_t b, std::optional<double> v) {
    auto ia = pos.find(a), ib = pos.find(b);
    if (!v || ia == pos.end() || ib == pos.end()) return;
    dcells.push_back(
        {ib->second, ia->second, std::round(*v / unit.divisor * 1e4) / 1e4, scale.color(*v)});
    ++dmeasured;
  }).ignore_error();
  nlohmann::json dsec = section(did, title);
  dsec["charts"].push_back(heat_chart(did + "-heatmap", chart_title, labels, unit,
                                      std::move(dcells), legend, dmeasured, "rank"));
  return dsec;
}

}  // namespace

std::vector<size_t> rank_positions(const nlohmann::json& ranks, size_t n) {
  std::vector<size_t> pos(n);
  for (size_t i = 0; i < n; ++i) pos[i] = i;
  if (!ranks.is_array() || ranks.size() != n) return pos;
  std::vector<bool> seen(n, false);
  size_t next = 0;
  for (const nlohmann::json& r : ranks) {
    auto rank = number_at(r, "rank");
    if (!rank || *rank < 0 || *rank >= static_cast<double>(n) || seen[static_cast<size_t>(*rank)]) {
      for (size_t i = 0; i < n; ++i) pos[i] = i;  // not a permutation: rank order
      return pos;
    }
    seen[static_cast<size_t>(*rank)] = true;
    pos[static_cast<size_t>(*rank)] = next++;
  }
  return pos;
}

nlohmann::json switch_separators(const nlohmann::json& ranks, size_t n) {
  nlohmann::json out = nlohmann::json::array();
  if (!ranks.is_array() || ranks.size() != n) return out;
  for (size_t i = 1; i < n; ++i) {
    std::string a = string_at(ranks[i - 1], "switch"), b = string_at(ranks[i], "switch");
    if (!b.empty() && a != b) out.push_back(i);
  }
  return out;
}

std::optional<nlohmann::json> findings_section(const nlohmann::json& matrix,
                                               const std::string& run_label,
                                               const std::string& id) {
  auto fit = matrix.find("findings");
  if (fit == matrix.end() || !fit->is_array()) return std::nullopt;
  nlohmann::json sec = section(id, labelled("Findings", run_label));
  nlohmann::json tab =
      table("What the verdicts name, worst first",
            {"finding", "tests", "times off", "pairs", "alone: still bad", "verdict"});
  for (const nlohmann::json& f : *fit) {
    if (tab["rows"].size() == kFindingRows) {
      tab["rows"].push_back(
          {text_cell("..."), text_cell(std::to_string(fit->size() - kFindingRows) + " more"),
           text_cell(""), text_cell(""), text_cell(""), text_cell("see the JSON")});
      break;
    }
    std::string tests;
    if (f.contains("tests") && f["tests"].is_array()) {
      for (const auto& t : f["tests"]) tests += (tests.empty() ? "" : ", ") + t.get<std::string>();
    }
    auto count = [&](const char* key) {
      auto v = number_at(f, key);
      return v ? value_cell(*v, {"", 1}, key) : text_cell("");
    };
    auto sev = number_at(f, "severity");
    nlohmann::json verdict = text_cell(string_at(f, "kind") == "unreachable"
                                           ? string_at(f, "reason")
                                           : (f.value("firm", false) ? "firm" : "tentative"));
    verdict["c"] = "bad";
    std::string alone = f.contains("retested") ? std::to_string(f.value("confirmed", 0)) + " of " +
                                                     std::to_string(f.value("retested", 0))
                                               : "";
    tab["rows"].push_back({text_cell(naming(f)), text_cell(tests),
                           sev ? value_cell(*sev, {"x", 1}, "severity") : text_cell(""),
                           count("evidence"), text_cell(alone), verdict});
  }
  sec["tables"].push_back(std::move(tab));
  if (auto cov = matrix.find("coverage"); cov != matrix.end() && cov->is_object()) {
    nlohmann::json c = table("Coverage", {"figure", "value"});
    for (const char* key : {"pairs_measured", "pairs_total", "rounds", "measurements"}) {
      if (auto v = number_at(*cov, key))
        c["rows"].push_back({text_cell(key), value_cell(*v, {"", 1}, key)});
    }
    if (auto v = number_at(*cov, "fraction")) {
      c["rows"].push_back(
          {text_cell("share of one all-pairs pass"), value_cell(100 * *v, {"%", 1}, "fraction")});
    }
    if (cov->contains("elements") && (*cov)["elements"].is_object()) {
      for (const auto& [kind, e] : (*cov)["elements"].items()) {
        c["rows"].push_back({text_cell(kind + " covered"),
                             text_cell(std::to_string(e.value("covered", 0)) + " of " +
                                       std::to_string(e.value("total", 0)))});
      }
    }
    sec["tables"].push_back(std::move(c));
  }
  if (fit->empty()) sec["notes"].push_back("The verdicts name nothing.");
  return sec;
}

std::vector<nlohmann::json> switch_heatmap_sections(const nlohmann::json& matrix,
                                                    const nlohmann::json& test,
                                                    const std::string& run_label,
                                                    const std::string& id) {
  std::vector<nlohmann::json> out;
  const size_t n = static_cast<size_t>(number_at(matrix, "size").value_or(0));
  const nlohmann::json ranks = matrix.value("ranks", nlohmann::json::array());
  Places p = places(ranks, n);
  std::map<std::string, std::string> group_of_switch;
  for (size_t r = 0; r < n; ++r) group_of_switch[p.switch_of[r]] = p.group_of[r];
  std::vector<std::string> switches = units_of(p, false);
  bool by_group = switches.size() > kMaxSwitchCells && !units_of(p, true).empty();
  std::vector<std::string> units = by_group ? units_of(p, true) : switches;
  const std::string name = string_at(test, "test"), figure = string_at(test, "figure");
  nlohmann::json sec = section(
      id, labelled(name + ": " + figure + " by " + (by_group ? "group" : "switch"), run_label));
  if (units.empty()) {
    sec["notes"].push_back("No topology: a matrix of " + std::to_string(n) +
                           " ranks is too large to draw rank by rank; the tables and the JSON "
                           "have its values.");
    out.push_back(std::move(sec));
    return out;
  }
  const BlockMeans means = block_means(test, n, unit_index(p, units, by_group), units.size());
  if (!means.drawn.ok()) sec["notes"].push_back("Values not drawn: " + means.drawn.message());
  const DisplayUnit unit =
      unit_for(string_at(test, "unit"), std::max(std::fabs(means.lo), std::fabs(means.hi)));
  Scale scale = scale_of(test, means.lo, means.hi);
  nlohmann::json legend = scale_legend(scale, unit);
  sec["charts"].push_back(heat_chart(id + "-heatmap",
                                     figure + " by " + (by_group ? "group" : "switch") +
                                         ": the geometric mean of each block's pairs",
                                     units, unit, block_cells(means, unit, scale), legend,
                                     means.measured, by_group ? "group" : "switch"));
  out.push_back(std::move(sec));
  // Drill-down: the ranks of the switches or groups the findings name.
  std::vector<std::string> named = drill_down_homes(matrix, by_group, group_of_switch, p);
  for (size_t d = 0; d < named.size() && d < kDrillDowns; ++d) {
    std::string did = id + "-d" + std::to_string(d);
    std::optional<nlohmann::json> dsec = drill_down_section(
        test, p, by_group, named[d], did, labelled(name + ": the ranks of " + named[d], run_label),
        figure + " inside " + named[d], unit, scale, legend);
    if (dsec) out.push_back(std::move(*dsec));
  }
  return out;
}

std::optional<nlohmann::json> baseline_section(const nlohmann::json& matrix,
                                               const std::string& run_label,
                                               const std::string& id) {
  auto it = matrix.find("baseline");
  if (it == matrix.end() || !it->is_object()) return std::nullopt;
  const nlohmann::json& c = *it;
  nlohmann::json sec = section(id, labelled("Changes since " + string_at(c, "file"), run_label));
  nlohmann::json tab = table("Significant changes, largest first (change: times worse now)",
                             {"what", "test", "direction", "change", "before", "now", "z"});
  for (const nlohmann::json& ch : c.value("changes", nlohmann::json::array())) {
    if (tab["rows"].size() == kChangeRows) break;
    nlohmann::json dir = text_cell(string_at(ch, "direction"));
    if (string_at(ch, "direction") == "regression") dir["c"] = "bad";
    auto num = [&](const char* key) {
      auto v = number_at(ch, key);
      return v ? value_cell(*v, {"", 1}, key) : text_cell("");
    };
    tab["rows"].push_back({text_cell(naming(ch)), text_cell(string_at(ch, "test")), dir,
                           num("change"), num("before"), num("now"), num("z")});
  }
  sec["tables"].push_back(std::move(tab));
  for (const char* key : {"hosts_only_now", "hosts_only_before"}) {
    if (c.contains(key) && c[key].is_array() && !c[key].empty()) {
      std::string names;
      for (const auto& h : c[key]) names += (names.empty() ? "" : ", ") + h.get<std::string>();
      sec["notes"].push_back(std::string(key == std::string("hosts_only_now")
                                             ? "Only in this run: "
                                             : "Only in the baseline: ") +
                             names);
    }
  }
  // Per test, the change of each switch pair (median of its pairs), when the JSON has it.
  const nlohmann::json switches =
      matrix.contains("topology") ? matrix["topology"].value("switches", nlohmann::json::array())
                                  : nlohmann::json::array();
  std::vector<std::string> names;
  for (const auto& s : switches) names.push_back(string_at(s, "name"));
  size_t t = 0;
  for (const nlohmann::json& test : c.value("tests", nlohmann::json::array())) {
    const nlohmann::json& sc =
        test.contains("switch_changes") ? test["switch_changes"] : nlohmann::json();
    ++t;
    if (!sc.is_array() || sc.empty() || names.empty() || names.size() > kMaxSwitchCells) continue;
    nlohmann::json cells = nlohmann::json::array();
    auto color = [](double change) {
      return heat_color(0.5 + 0.5 * std::clamp(std::log2(std::max(change, 1e-9)), -1.0, 1.0));
    };
    for (const auto& cell : sc) {
      if (!cell.is_array() || cell.size() < 3) continue;
      size_t a = cell[0].get<size_t>(), b = cell[1].get<size_t>();
      double change = cell[2].get<double>();
      if (a >= names.size() || b >= names.size()) continue;
      cells.push_back({b, a, std::round(change * 1e3) / 1e3, color(change)});
      if (a != b) cells.push_back({a, b, std::round(change * 1e3) / 1e3, color(change)});
    }
    nlohmann::json legend = nlohmann::json::array(
        {nlohmann::json::array({"0.5x (better)", color(0.5)}),
         nlohmann::json::array({"1x", color(1)}), nlohmann::json::array({"2x (worse)", color(2)})});
    sec["charts"].push_back(
        heat_chart(id + "-t" + std::to_string(t),
                   string_at(test, "test") + ": change by switch pair (now / before)", names,
                   {"x", 1}, std::move(cells), legend, sc.size(), "switch"));
  }
  return sec;
}

}  // namespace fabperf::report
