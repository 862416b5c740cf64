// Cluster matrix sections (`fabperf --matrix`): a heatmap per tested figure with host names,
// suspects outlined, their table, and every node's verdict.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <utility>
#include <vector>

#include "report/chart_model.h"
#include "report/matrix_fabric_charts.h"
#include "report/matrix_values.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

// A bad node makes every one of its links a suspect: the heatmap outlines them all, the table
// lists the first few.
constexpr size_t kMaxSuspectRows = 24;

// "n3 (2)": the host of `rank`, from the matrix's "ranks", with the rank to tell twins apart.
std::string rank_label(const nlohmann::json& ranks, size_t rank) {
  std::string host;
  if (ranks.is_array()) {
    for (const nlohmann::json& r : ranks) {
      auto n = number_at(r, "rank");
      if (n && *n == static_cast<double>(rank)) host = string_at(r, "host");
    }
  }
  return (host.empty() ? "rank" : host) + " (" + std::to_string(rank) + ")";
}

// Four significant digits: the heatmap shows colours and tooltips, the tables the exact value.
double rounded(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return std::strtod(buf, nullptr);
}

std::optional<size_t> index_at(const nlohmann::json& j, const char* key, size_t n) {
  auto v = number_at(j, key);
  if (!v || *v < 0 || *v >= static_cast<double>(n) || *v != std::floor(*v)) return std::nullopt;
  return static_cast<size_t>(*v);
}

// The suspects, worst first (the first kMaxSuspectRows), and their outlines on the heatmap.
// `place`: each rank's display position (by switch when the run had a topology).
nlohmann::json suspects_table(const nlohmann::json& test, const nlohmann::json& ranks,
                              const std::vector<size_t>& place, const DisplayUnit& unit,
                              nlohmann::json& heat) {
  const size_t n = heat["labels"].size();
  nlohmann::json suspects = table("Suspects", {"client", "server", "value", "verdict"});
  heat["suspects"] = nlohmann::json::array();
  auto it = test.find("suspects");
  if (it == test.end() || !it->is_array()) return suspects;
  for (const nlohmann::json& s : *it) {
    auto a = index_at(s, "a", n), b = index_at(s, "b", n);
    const std::string verdict = string_at(s, "verdict");
    if (a && b) heat["suspects"].push_back({place[*b], place[*a], verdict});
    auto v = number_at(s, "value");
    nlohmann::json verdict_cell = text_cell(verdict);
    verdict_cell["c"] = "bad";
    if (suspects["rows"].size() == kMaxSuspectRows) {
      const std::string more = std::to_string(it->size() - kMaxSuspectRows) + " more";
      suspects["rows"].push_back(
          {text_cell("..."), text_cell(more), text_cell(""), text_cell("see the JSON")});
    }
    if (suspects["rows"].size() > kMaxSuspectRows) continue;
    suspects["rows"].push_back(
        {text_cell(a ? rank_label(ranks, *a) : "?"), text_cell(b ? rank_label(ranks, *b) : "-"),
         v ? value_cell(*v, unit, "suspects.value") : text_cell(""), verdict_cell});
  }
  return suspects;
}

// Ranks up to which every heatmap cell carries its value as text.
constexpr size_t kMaxLabelledRanks = 32;

// Row groups from the ranks' "switch" (where the topology names one): consecutive display
// positions (`place` of each rank) under one switch, [{"label", "first", "last"}]; none when no
// rank names a switch.
nlohmann::json row_groups(const nlohmann::json& ranks, const std::vector<size_t>& place) {
  const size_t n = place.size();
  nlohmann::json groups = nlohmann::json::array();
  if (!ranks.is_array()) return groups;
  std::vector<std::string> of(n);
  bool any = false;
  for (const nlohmann::json& r : ranks) {
    auto i = index_at(r, "rank", n);
    if (!i || place[*i] >= n) continue;
    of[place[*i]] = string_at(r, "switch");
    any = any || !of[place[*i]].empty();
  }
  if (!any) return groups;
  for (size_t i = 0; i < n; ++i) {
    if (i == 0 || of[i] != of[i - 1]) {
      groups.push_back({{"label", of[i].empty() ? "?" : of[i]}, {"first", i}, {"last", i}});
    } else {
      groups.back()["last"] = i;
    }
  }
  return groups;
}

// The measured range of a matrix's values.
struct ValueRange {
  double lo = 0, hi = 0;
  size_t cells = 0;
};

// The colour scale: green at the best measured value, red at the worst, so every difference
// the matrix holds shows; the baseline and the threshold are marked where they fall on it
// ("at" 0..1 from best to worst, null beyond the measured range).
nlohmann::json heat_scale(const nlohmann::json& test, const ValueRange& range,
                          const DisplayUnit& unit, bool higher_better) {
  const double best = higher_better ? range.hi : range.lo;
  const double worst = higher_better ? range.lo : range.hi;
  nlohmann::json scale = {{"best", format_value(best, unit)},
                          {"worst", format_value(worst, unit)},
                          {"best_v", best},
                          {"worst_v", worst},
                          {"marks", nlohmann::json::array()}};
  const std::pair<const char*, const char*> marks[] = {{"median", "baseline"},
                                                       {"threshold", "threshold"}};
  for (const auto& [key, name] : marks) {
    auto v = number_at(test, key);
    if (!v) continue;
    nlohmann::json at;  // null: off the measured range
    if (worst != best) {
      const double t = (*v - best) / (worst - best);
      if (t >= -1e-9 && t <= 1 + 1e-9) at = std::clamp(t, 0.0, 1.0);
    } else if (*v == best) {
      at = 0.0;
    }
    scale["marks"].push_back(
        {{"name", name}, {"text", format_value(*v, unit)}, {"v", *v}, {"at", at}});
  }
  return scale;
}

nlohmann::json heatmap_section(const nlohmann::json& test, const nlohmann::json& ranks,
                               const std::string& run_label, const std::string& id) {
  const std::string name = string_at(test, "test"), figure = string_at(test, "figure");
  nlohmann::json sec =
      section(id, name + ": " + figure + (run_label.empty() ? "" : " (" + run_label + ")"));
  // The values in any of the JSON's forms (report/matrix_values.h), placed where the ranks
  // list puts their ranks: by switch when the run had a topology.
  const size_t n = ranks.is_array() ? ranks.size() : 0;
  const std::vector<size_t> place = rank_positions(ranks, n);
  std::vector<std::tuple<size_t, size_t, double>> values;
  for_each_matrix_value(test, n, [&](size_t a, size_t b, std::optional<double> v) {
    if (v && std::isfinite(*v)) values.emplace_back(a, b, *v);
  }).ignore_error();
  ValueRange range;
  for (const auto& [a, b, d] : values) {
    range.lo = range.cells == 0 ? d : std::min(range.lo, d);
    range.hi = range.cells == 0 ? d : std::max(range.hi, d);
    ++range.cells;
  }
  // The unit from the bulk of the values (the baseline), not from the largest.
  const DisplayUnit unit = unit_for(string_at(test, "unit"),
                                    number_at(test, "median").value_or((range.lo + range.hi) / 2));
  const bool higher_better = string_at(test, "better") == "higher";
  nlohmann::json scale = heat_scale(test, range, unit, higher_better);
  const double best = scale["best_v"], worst = scale["worst_v"];
  auto color = [&](double v) {
    return heat_color(worst != best ? (v - best) / (worst - best) : 0.0);
  };

  nlohmann::json labels(n, "");
  for (size_t i = 0; i < n; ++i) labels[place[i]] = rank_label(ranks, i);
  nlohmann::json heat =
      chart("heatmap", id + "-heatmap", figure + " by pair",
            axis("server rank (column)", "", false), axis("client rank (row)", "", false));
  heat["labels"] = labels;
  heat["groups"] = row_groups(ranks, place);
  heat["unit"] = unit.name;
  heat["cell_text"] = n <= kMaxLabelledRanks;
  heat["cells"] = nlohmann::json::array();
  for (const auto& [row, col, d] : values) {
    heat["cells"].push_back({place[col], place[row], rounded(d / unit.divisor), color(d)});
  }
  heat["separators"] = switch_separators(ranks, n);
  // Gradient stops, best first (json::array: pairs of strings would make an object).
  heat["legend"] = nlohmann::json::array();
  for (double t : {0.0, 0.25, 0.5, 0.75, 1.0}) {
    heat["legend"].push_back(nlohmann::json::array({"", heat_color(t)}));
  }
  heat["scale"] = std::move(scale);
  // Pairs as the text counts them: a round trip measured once is one pair, though the
  // matrix shows it both ways.
  const double measured = number_at(test, "measured").value_or(static_cast<double>(range.cells));
  heat["measured"] = measured;

  nlohmann::json summary = table(name + " " + figure, {"figure", "value"});
  summary["rows"].push_back(
      {text_cell("pairs measured"), value_cell(measured, {"", 1}, "measured")});
  if (auto failed = number_at(test, "failed")) {
    summary["rows"].push_back({text_cell("pairs failed"), value_cell(*failed, {"", 1}, "failed")});
  }
  for (const auto& [key, label] :
       {std::pair<const char*, const char*>{"median", "baseline"}, {"threshold", "threshold"}}) {
    if (auto v = number_at(test, key))
      summary["rows"].push_back({text_cell(label), value_cell(*v, unit, key)});
  }
  summary["rows"].push_back({text_cell("better"), text_cell(higher_better ? "higher" : "lower")});
  sec["tables"].push_back(std::move(summary));
  sec["tables"].push_back(suspects_table(test, ranks, place, unit, heat));
  sec["charts"].push_back(std::move(heat));
  if (range.cells == 0) sec["notes"].push_back("No pair of this figure was measured.");
  return sec;
}

nlohmann::json nodes_section(const nlohmann::json& matrix, const std::string& run_label,
                             const std::string& id) {
  nlohmann::json sec = section(id, "Nodes" + (run_label.empty() ? "" : " (" + run_label + ")"));
  nlohmann::json tab = table(
      "Verdict per node", {"rank", "host", "verdict", "bad links", "links", "slowdown", "reason"});
  const nlohmann::json& ranks = matrix.contains("ranks") ? matrix["ranks"] : nlohmann::json();
  auto reason_of = [&](double rank) {
    if (!ranks.is_array()) return std::string();
    for (const nlohmann::json& r : ranks) {
      if (number_at(r, "rank") == rank) return string_at(r, "reason");
    }
    return std::string();
  };
  if (auto it = matrix.find("nodes"); it != matrix.end() && it->is_array()) {
    for (const nlohmann::json& node : *it) {
      const double rank = number_at(node, "rank").value_or(-1);
      const std::string verdict = string_at(node, "verdict");
      // x times the other nodes' median link, where the node rule found it slow
      const auto slowdown = number_at(node, "slowdown");
      nlohmann::json verdict_cell = text_cell(verdict);
      if (verdict != "ok") verdict_cell["c"] = "bad";
      auto count = [&](const char* key) {
        auto v = number_at(node, key);
        return v ? value_cell(*v, {"", 1}, key) : text_cell("");
      };
      tab["rows"].push_back({value_cell(rank, {"", 1}, "rank"), text_cell(string_at(node, "host")),
                             verdict_cell, count("bad_links"), count("links"),
                             slowdown ? value_cell(*slowdown, {"x", 1}, "slowdown") : text_cell(""),
                             text_cell(reason_of(rank))});
    }
  }
  sec["tables"].push_back(std::move(tab));
  return sec;
}

}  // namespace

std::vector<nlohmann::json> matrix_sections(const nlohmann::json& matrix,
                                            const std::string& run_label,
                                            const std::string& id_prefix) {
  std::vector<nlohmann::json> out;
  const nlohmann::json ranks = matrix.value("ranks", nlohmann::json::array());
  if (auto f = findings_section(matrix, run_label, id_prefix + "-findings")) out.push_back(*f);
  if (auto it = matrix.find("tests"); it != matrix.end() && it->is_array()) {
    for (size_t i = 0; i < it->size(); ++i) {
      if (!(*it)[i].is_object()) continue;
      std::string id = id_prefix + "-m" + std::to_string(i);
      if (ranks.size() > kNodeHeatmapMax) {  // by switch, with drill-downs (fabric charts)
        for (nlohmann::json& sec : switch_heatmap_sections(matrix, (*it)[i], run_label, id)) {
          out.push_back(std::move(sec));
        }
        continue;
      }
      out.push_back(heatmap_section((*it)[i], ranks, run_label, id));
    }
  }
  if (auto b = baseline_section(matrix, run_label, id_prefix + "-baseline")) out.push_back(*b);
  if (ranks.size() <= kNodeHeatmapMax) {
    out.push_back(nodes_section(matrix, run_label, id_prefix + "-nodes"));
  }
  return out;
}

}  // namespace fabperf::report
