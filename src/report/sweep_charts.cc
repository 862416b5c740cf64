// Sections of figures against a variable: size sweeps (-oo msg_size, fab_* -s), figures over
// time (interval reports), and the table of every result.
#include <algorithm>
#include <map>
#include <set>

#include "report/chart_model.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

// A result's value of variable `var`: its effective parameter, else its loop value.
std::optional<double> x_value(const nlohmann::json& result, const std::string& var) {
  if (auto it = result.find("params"); it != result.end()) {
    if (auto v = number_at(*it, var)) return v;
  }
  if (auto it = result.find("loop"); it != result.end()) return number_at(*it, var);
  return std::nullopt;
}

// The variable a run's results of one test vary: msg_size first, else a loop variable.
std::string swept_variable(const std::vector<const ResultRef*>& run_refs) {
  std::vector<std::string> candidates = {"msg_size"};
  for (const ResultRef* r : run_refs) {
    if (auto it = r->result->find("loop"); it != r->result->end() && it->is_object()) {
      for (auto kv = it->begin(); kv != it->end(); ++kv) {
        if (std::find(candidates.begin(), candidates.end(), kv.key()) == candidates.end()) {
          candidates.push_back(kv.key());
        }
      }
    }
  }
  for (const std::string& var : candidates) {
    std::set<double> values;
    for (const ResultRef* r : run_refs) {
      if (auto v = x_value(*r->result, var)) values.insert(*v);
    }
    if (values.size() >= 2) return var;
  }
  return "";
}

// The loop values other than the swept one ("tx_depth 64"), which split a run into series.
std::string rest_label(const nlohmann::json& result, const std::string& var) {
  std::string label;
  if (auto it = result.find("loop"); it != result.end() && it->is_object()) {
    for (auto kv = it->begin(); kv != it->end(); ++kv) {
      if (kv.key() == var) continue;
      label += (label.empty() ? "" : " ") + kv.key() + " " + text_of(kv.value());
    }
  }
  return label;
}

// One figure a sweep or interval chart can show: where it is in a result, how it is named.
struct Figure {
  const char* key;    // dotted path in the result ("latency_ns.p50")
  const char* name;   // series suffix
  const char* chart;  // "latency", "bandwidth", "msg_rate"
};
constexpr Figure kSweepFigures[] = {
    {"latency_ns.p50", "p50", "latency"},   {"latency_ns.p99", "p99", "latency"},
    {"latency_ns.mean", "mean", "latency"}, {"bandwidth.recv_Bps", "bandwidth", "bandwidth"},
    {"msg_rate", "msg_rate", "msg_rate"},
};

// A figure's value in a result and the key it came from. Bandwidth is what the receiver
// counted, else what the sender sent; message rate only where nothing else applies.
struct Value {
  double v;
  std::string key;
};
std::optional<Value> figure_value(const nlohmann::json& result, const Figure& f) {
  const std::string chart = f.chart;
  if (chart == "bandwidth") {
    auto recv = number_at_path(result, "bandwidth.recv_Bps");
    if (recv && *recv > 0) return Value{*recv, "bandwidth.recv_Bps"};
    auto send = number_at_path(result, "bandwidth.send_Bps");
    if (send) return Value{*send, "bandwidth.send_Bps"};
    return std::nullopt;
  }
  if (chart == "msg_rate" && (result.contains("bandwidth") || result.contains("latency_ns"))) {
    return std::nullopt;
  }
  auto v = number_at_path(result, f.key);
  if (!v) return std::nullopt;
  return Value{*v, f.key};
}

DisplayUnit unit_of_chart(const std::string& chart, double largest) {
  if (chart == "latency") return latency_unit(largest);
  if (chart == "bandwidth") return bandwidth_unit(largest);
  return rate_unit(largest);
}

const char* title_of_chart(const std::string& chart) {
  if (chart == "latency") return "Latency";
  if (chart == "bandwidth") return "Bandwidth";
  return "Message rate";
}

// One series of a sweep: a figure of one run (and one value of any other loop variable), by x.
struct Line {
  std::string label;
  const Figure* figure;
  size_t run;
  std::string rest;                           // the other loop values ("" for none)
  std::map<double, std::vector<Value>> reps;  // every repetition of each x
  std::map<double, Value> points;             // their median
};

Value median_value(std::vector<Value> reps) {
  std::sort(reps.begin(), reps.end(), [](const Value& a, const Value& b) { return a.v < b.v; });
  return reps[(reps.size() - 1) / 2];
}

// A series tagged for the page: its run (hue family), its statistic (dash) and its group
// (shade within the run's family).
nlohmann::json line_series(const Line& l, std::vector<std::pair<double, double>> points) {
  nlohmann::json s = series(l.label, std::move(points));
  s["run"] = l.run;
  s["stat"] = l.figure->name;
  if (!l.rest.empty()) s["group"] = l.rest;
  return s;
}

// Each run's figure over the baseline run's at the same x: 1 is "the same", 0.8 "20% less".
// The page redraws it from `of` when the reader picks another baseline.
nlohmann::json ratio_chart(const nlohmann::json& absolute, const std::vector<Line>& lines,
                           const std::string& kind, size_t base_run,
                           const std::vector<std::string>& run_labels, nlohmann::json x) {
  nlohmann::json c = chart("ratio", absolute["id"].get<std::string>() + "-ratio",
                           std::string(title_of_chart(kind)) + " relative to a baseline run",
                           std::move(x), axis("ratio to the baseline", "\u00d7", false, "ratio"));
  c["of"] = absolute["id"];
  c["base"] = base_run;
  c["base_label"] = run_labels[base_run];
  for (const Line& l : lines) {
    if (l.figure->chart != kind || l.run == base_run) continue;
    auto base = std::find_if(lines.begin(), lines.end(), [&](const Line& b) {
      return b.run == base_run && b.figure == l.figure && b.rest == l.rest;
    });
    if (base == lines.end()) continue;
    std::vector<std::pair<double, double>> points;
    for (const auto& [px, py] : l.points) {
      auto at = base->points.find(px);
      if (at != base->points.end() && at->second.v != 0) {
        points.emplace_back(px, py.v / at->second.v);
      }
    }
    nlohmann::json s = line_series(l, std::move(points));
    s["label"] = l.label + " / " + run_labels[base_run];
    c["series"].push_back(std::move(s));
  }
  return c;
}

// The sweep's numbers: one row per x, one column per series, each column in one unit.
nlohmann::json sweep_table(const std::string& test, const std::string& var,
                           const std::vector<Line>& lines, const std::set<double>& xs) {
  const bool sizes = var == "msg_size";
  std::vector<std::string> columns = {var};
  std::vector<DisplayUnit> units;
  for (const Line& l : lines) {
    std::vector<double> values;
    for (const auto& point : l.points) values.push_back(point.second.v);
    units.push_back(unit_of_chart(l.figure->chart, bulk_of(values)));
    columns.push_back(l.label + " (" + units.back().name + ")");
  }
  nlohmann::json tab = table(test + " by " + var, columns);
  for (double x : xs) {
    nlohmann::json row = nlohmann::json::array(  // not {x}: clang copies x
        {text_cell(sizes ? size_text(x) : format_value(x, {"", 1}, 6))});
    for (size_t i = 0; i < lines.size(); ++i) {
      auto it = lines[i].points.find(x);
      row.push_back(it == lines[i].points.end()
                        ? text_cell("")
                        : value_cell(it->second.v, {"", units[i].divisor}, it->second.key));
    }
    tab["rows"].push_back(std::move(row));
  }
  return tab;
}

}  // namespace

std::optional<nlohmann::json> sweep_section(const std::string& test,
                                            const std::vector<ResultRef>& refs,
                                            const std::vector<std::string>& run_labels,
                                            const std::string& id) {
  std::map<size_t, std::vector<const ResultRef*>> by_run;
  for (const ResultRef& r : refs) by_run[r.run].push_back(&r);
  std::string var;
  for (const auto& [run, run_refs] : by_run) {
    if (var.empty()) var = swept_variable(run_refs);
  }
  if (var.empty()) return std::nullopt;
  const bool several_runs = by_run.size() > 1;

  std::vector<Line> lines;
  std::set<double> xs;
  for (const auto& [run, run_refs] : by_run) {
    if (swept_variable(run_refs) != var) continue;  // a run sweeping something else
    for (const ResultRef* r : run_refs) {
      auto x = x_value(*r->result, var);
      if (!x) continue;
      const std::string rest = rest_label(*r->result, var);
      std::string base = several_runs ? run_labels[run] : "";
      if (!rest.empty()) base += (base.empty() ? "" : " ") + rest;
      for (const Figure& f : kSweepFigures) {
        auto v = figure_value(*r->result, f);
        if (!v) continue;
        std::string label = base.empty() ? f.name : base + " " + f.name;
        auto line = std::find_if(lines.begin(), lines.end(),
                                 [&](const Line& l) { return l.label == label; });
        if (line == lines.end()) {
          line = lines.insert(lines.end(), Line{label, &f, run, rest, {}, {}});
        }
        // Repetitions (--repeat) of one size: the median of them, as compare centres a row.
        line->reps[*x].push_back(*v);
        xs.insert(*x);
      }
    }
  }
  if (xs.size() < 2) return std::nullopt;
  for (Line& l : lines) {
    for (auto& [x, reps] : l.reps) l.points[x] = median_value(reps);
  }

  const bool sizes = var == "msg_size";
  const bool log_x = *xs.begin() > 0 && *xs.rbegin() / *xs.begin() >= 16;
  nlohmann::json ticks = nlohmann::json::array();
  for (double x : xs) ticks.push_back({x, sizes ? size_text(x) : format_value(x, {"", 1}, 6)});
  nlohmann::json sec = section(id, test + ": against " + var);
  const size_t base_run = by_run.begin()->first;
  for (const char* kind : {"latency", "bandwidth", "msg_rate"}) {
    std::vector<double> values;
    for (const Line& l : lines) {
      if (l.figure->chart != std::string(kind)) continue;
      for (const auto& point : l.points) values.push_back(point.second.v);
    }
    if (values.empty()) continue;
    // The unit and the axis' end from the bulk; outliers past it sit on the edge, labelled.
    const DisplayUnit unit = unit_of_chart(kind, bulk_of(values));
    nlohmann::json x = axis(sizes ? "message size" : var, sizes ? "bytes" : "", log_x, "values");
    x["values"] = ticks;
    nlohmann::json y = axis(title_of_chart(kind), unit.name, true);
    if (double limit = axis_limit(values, true); limit > 0) y["max"] = limit / unit.divisor;
    nlohmann::json c = chart("line", id + "-" + kind,
                             std::string(title_of_chart(kind)) + " by " + var, x, std::move(y));
    for (const Line& l : lines) {
      if (l.figure->chart != std::string(kind)) continue;
      std::vector<std::pair<double, double>> points;
      for (const auto& [px, py] : l.points) points.emplace_back(px, py.v / unit.divisor);
      c["series"].push_back(line_series(l, std::move(points)));
    }
    sec["charts"].push_back(c);
    if (several_runs) {
      sec["charts"].push_back(ratio_chart(c, lines, kind, base_run, run_labels, std::move(x)));
    }
  }
  sec["tables"].push_back(sweep_table(test, var, lines, xs));
  return sec;
}

}  // namespace fabperf::report
