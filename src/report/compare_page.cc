// The compare page: the comparison's tables as a section of the report model.
#include "report/compare_page.h"

#include <cmath>
#include <cstdio>

#include "core/json_numbers.h"
#include "report/chart_model.h"
#include "report/compare_model.h"
#include "report/report_model.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

using nlohmann::json;

json delta_cell(const json& d, double alpha) {
  const std::string verdict = d.value("verdict", std::string("?"));
  if (verdict == "?") {
    json c = text_cell("? " + d.value("why", std::string("")));
    c["c"] = "untested";
    return c;
  }
  const double pct = d.value("delta_pct", 0.0), p = d.value("p", 1.0);
  char tail[64];
  std::snprintf(tail, sizeof tail, " (p=%.3f)", p);
  json c = {{"t", (verdict == "~" ? std::string("~") : delta_text(pct)) + tail},
            {"v", finite_or_zero(pct)},
            {"k", "delta_pct"}};
  c["c"] = p >= alpha ? "same" : verdict == "worse" ? "worse" : "better";
  if (d.value("regressed", false)) c["c"] = "worse regressed";
  return c;
}

json comparison_section(const json& cmp) {
  json sec = section("compare", "Comparison against " + cmp["runs"][0]["label"].get<std::string>());
  const double alpha = cmp.value("alpha", 0.05);
  char note[256];
  std::snprintf(note, sizeof note,
                "± : %.0f%% confidence interval; ~ : no significant difference (p >= %g); "
                "a regression is a significant change worse than %g%%.",
                cmp.value("confidence", 0.95) * 100, alpha, cmp.value("threshold_pct", 5.0));
  sec["notes"].push_back(note);
  for (const json& n : cmp.value("notes", json::array())) sec["notes"].push_back(n);
  const json& runs = cmp["runs"];
  for (const json& t : cmp["tables"]) {
    std::vector<std::vector<double>> values(runs.size());
    for (const json& row : t["rows"]) {
      for (size_t i = 0; i < runs.size(); ++i) {
        if (row["cells"][i].contains("value")) values[i].push_back(row["cells"][i]["value"]);
      }
    }
    std::vector<std::string> columns = {t["title"].get<std::string>()};
    std::vector<DisplayUnit> units;
    for (size_t i = 0; i < runs.size(); ++i) {
      units.push_back(bulk_unit(t["unit"], values[i]));
      columns.push_back(runs[i]["label"].get<std::string>() + " (" + units[i].name + ")");
      columns.push_back("±");
      if (i > 0) columns.push_back("vs " + runs[0]["label"].get<std::string>());
    }
    json tab = table(t["title"].get<std::string>(), columns);
    tab["id"] = "compare-" + t["metric"].get<std::string>();
    for (const json& row : t["rows"]) {
      json cells = json::array({text_cell(row["key"])});  // not {x}: clang copies x
      for (size_t i = 0; i < runs.size(); ++i) {
        const json& c = row["cells"][i];
        if (c.contains("value")) {
          cells.push_back(
              value_cell(c["value"], {"", units[i].divisor}, t["metric"].get<std::string>()));
          cells.push_back(text_cell(row["basis"] == "single" ? "" : interval_text(c)));
        } else {
          cells.push_back(text_cell(c.value("why", std::string("-"))));
          cells.push_back(text_cell(""));
        }
        if (i > 0) cells.push_back(delta_cell(row["deltas"][i - 1], alpha));
      }
      tab["rows"].push_back(std::move(cells));
    }
    sec["tables"].push_back(std::move(tab));
  }
  return sec;
}

}  // namespace

Result<nlohmann::json> build_compare_page_model(const std::vector<RunDocument>& runs,
                                                const nlohmann::json& comparison) {
  auto model = build_report_model(runs);
  if (!model.ok()) return model.status();
  json& sections = (*model)["sections"];
  sections.insert(sections.begin(), comparison_section(comparison));
  (*model)["title"] =
      "fabperf compare: " + std::to_string(runs.size()) + " runs against " + runs[0].label;
  return model;
}

}  // namespace fabperf::report
