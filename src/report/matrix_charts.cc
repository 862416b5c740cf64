// Cluster matrix sections (`fabperf --matrix`): a heatmap per tested figure with host names,
// suspects outlined, their table, and every node's verdict.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include <tuple>

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
  }).IgnoreError();
  double lo = 0, hi = 0;
  size_t measured = 0;
  for (const auto& [a, b, d] : values) {
    lo = measured == 0 ? d : std::min(lo, d);
    hi = measured == 0 ? d : std::max(hi, d);
    ++measured;
  }
  const std::string json_unit = string_at(test, "unit");
  const DisplayUnit unit = unit_for(json_unit, std::max(std::fabs(lo), std::fabs(hi)));
  const bool higher_better = string_at(test, "better") == "higher";
  // Colour scale: where the matrix's own verdict has a median and a threshold, green at the
  // median (or better), yellow at the threshold, red at twice the distance, so a node 2.5x
  // slow shows red even beside one 8x slow link; otherwise the range of the values.
  double good = higher_better ? hi : lo, bad = higher_better ? lo : hi, mid_value = (lo + hi) / 2;
  const auto median = number_at(test, "median"), threshold = number_at(test, "threshold");
  if (median && threshold && *threshold != *median) {
    good = *median;
    mid_value = *threshold;
    bad = *median + 2 * (*threshold - *median);
  }
  auto color = [&](double v) { return heat_color(bad != good ? (v - good) / (bad - good) : 0.0); };

  nlohmann::json labels(n, "");
  for (size_t i = 0; i < n; ++i) labels[place[i]] = rank_label(ranks, i);
  nlohmann::json heat =
      chart("heatmap", id + "-heatmap", figure + " by pair",
            axis("server rank (column)", "", false), axis("client rank (row)", "", false));
  heat["labels"] = labels;
  heat["unit"] = unit.name;
  heat["cells"] = nlohmann::json::array();
  for (const auto& [row, col, d] : values) {
    heat["cells"].push_back({place[col], place[row], rounded(d / unit.divisor), color(d)});
  }
  heat["separators"] = switch_separators(ranks, n);
  // [[text, colour], ...], best first (json::array: pairs of strings would make an object).
  heat["legend"] = nlohmann::json::array();
  for (double v : {good, mid_value, bad}) {
    heat["legend"].push_back(nlohmann::json::array({format_value(v, unit), color(v)}));
  }
  heat["measured"] = measured;

  nlohmann::json summary = table(name + " " + figure, {"figure", "value"});
  summary["rows"].push_back({text_cell("pairs measured"),
                             value_cell(static_cast<double>(measured), {"", 1}, "measured")});
  for (const char* key : {"median", "threshold"}) {
    if (auto v = number_at(test, key))
      summary["rows"].push_back({text_cell(key), value_cell(*v, unit, key)});
  }
  summary["rows"].push_back({text_cell("better"), text_cell(higher_better ? "higher" : "lower")});

  nlohmann::json suspects = table("Suspects", {"client", "server", "value", "verdict"});
  heat["suspects"] = nlohmann::json::array();
  if (auto it = test.find("suspects"); it != test.end() && it->is_array()) {
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
  }
  sec["charts"].push_back(std::move(heat));
  sec["tables"].push_back(std::move(summary));
  sec["tables"].push_back(std::move(suspects));
  if (measured == 0) sec["notes"].push_back("No pair of this figure was measured.");
  return sec;
}

nlohmann::json nodes_section(const nlohmann::json& matrix, const std::string& run_label,
                             const std::string& id) {
  nlohmann::json sec = section(id, "Nodes" + (run_label.empty() ? "" : " (" + run_label + ")"));
  nlohmann::json tab =
      table("Verdict per node", {"rank", "host", "verdict", "bad links", "links", "reason"});
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
      nlohmann::json verdict_cell = text_cell(verdict);
      if (verdict != "ok") verdict_cell["c"] = "bad";
      auto count = [&](const char* key) {
        auto v = number_at(node, key);
        return v ? value_cell(*v, {"", 1}, key) : text_cell("");
      };
      tab["rows"].push_back({value_cell(rank, {"", 1}, "rank"), text_cell(string_at(node, "host")),
                             verdict_cell, count("bad_links"), count("links"),
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
