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

  // One series: a figure of one run (and one value of any other loop variable), by x.
  struct Line {
    std::string label;
    const Figure* figure;
    std::map<double, Value> points;
  };
  std::vector<Line> lines;
  std::set<double> xs;
  for (const auto& [run, run_refs] : by_run) {
    if (swept_variable(run_refs) != var) continue;  // a run sweeping something else
    for (const ResultRef* r : run_refs) {
      auto x = x_value(*r->result, var);
      if (!x) continue;
      std::string base = several_runs ? run_labels[run] : "";
      std::string rest = rest_label(*r->result, var);
      if (!rest.empty()) base += (base.empty() ? "" : " ") + rest;
      for (const Figure& f : kSweepFigures) {
        auto v = figure_value(*r->result, f);
        if (!v) continue;
        std::string label = base.empty() ? f.name : base + " " + f.name;
        auto line = std::find_if(lines.begin(), lines.end(),
                                 [&](const Line& l) { return l.label == label; });
        if (line == lines.end()) line = lines.insert(lines.end(), Line{label, &f, {}});
        line->points[*x] = *v;
        xs.insert(*x);
      }
    }
  }
  if (xs.size() < 2) return std::nullopt;

  const bool sizes = var == "msg_size";
  const bool log_x = *xs.begin() > 0 && *xs.rbegin() / *xs.begin() >= 16;
  nlohmann::json ticks = nlohmann::json::array();
  for (double x : xs) ticks.push_back({x, sizes ? size_text(x) : format_value(x, {"", 1}, 6)});
  nlohmann::json sec = section(id, test + ": against " + var);
  std::vector<std::string> columns = {var};
  for (const Line& l : lines) columns.push_back(l.label);
  nlohmann::json tab = table(test + " by " + var, columns);
  for (const char* kind : {"latency", "bandwidth", "msg_rate"}) {
    double largest = 0;
    for (const Line& l : lines) {
      if (l.figure->chart != std::string(kind)) continue;
      for (const auto& point : l.points) largest = std::max(largest, point.second.v);
    }
    const DisplayUnit unit = unit_of_chart(kind, largest);
    nlohmann::json x = axis(sizes ? "message size" : var, sizes ? "bytes" : "", log_x, "values");
    x["values"] = ticks;
    nlohmann::json c =
        chart("line", id + "-" + kind, std::string(title_of_chart(kind)) + " by " + var,
              std::move(x), axis(title_of_chart(kind), unit.name, true));
    for (const Line& l : lines) {
      if (l.figure->chart != std::string(kind)) continue;
      std::vector<std::pair<double, double>> points;
      for (const auto& [px, py] : l.points) points.emplace_back(px, py.v / unit.divisor);
      const bool mean = l.figure->name == std::string("mean");
      c["series"].push_back(series(l.label, std::move(points), mean ? "dash" : "line"));
    }
    if (!c["series"].empty()) sec["charts"].push_back(std::move(c));
  }
  for (double x : xs) {
    nlohmann::json row = {text_cell(sizes ? size_text(x) : format_value(x, {"", 1}, 6))};
    for (const Line& l : lines) {
      auto it = l.points.find(x);
      // Each cell in its own unit: a sweep's figures span decades.
      row.push_back(it == l.points.end()
                        ? text_cell("")
                        : value_cell(it->second.v, unit_of_chart(l.figure->chart, it->second.v),
                                     it->second.key));
    }
    tab["rows"].push_back(std::move(row));
  }
  sec["tables"].push_back(std::move(tab));
  return sec;
}

}  // namespace fabperf::report
