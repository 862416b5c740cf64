// The comparison's data step: results grouped into rows by test, size and stream; each cell's
// centre and interval from repetitions or from the histogram's samples; each delta tested.
#include "report/compare_model.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "core/json_numbers.h"
#include "report/chart_model.h"
#include "report/report_sections.h"
#include "stats/histogram.h"
#include "stats/quantile_ci.h"
#include "stats/rank_test.h"
#include "stats/tally.h"

namespace fabperf::report {

namespace {

using nlohmann::json;

// One table of the comparison: a figure, where it comes from and which way is better.
struct Metric {
  const char* id;
  const char* title;
  const char* unit;  // as the JSON names it
  bool lower_better;
  double quantile;  // latency quantiles read from histograms; 0 for rates
};
constexpr Metric kMetrics[] = {
    {"latency_p50", "latency p50", "ns", true, 50},
    {"latency_p99", "latency p99", "ns", true, 99},
    {"bandwidth", "bandwidth", "Bps", false, 0},
    {"msg_rate", "message rate", "msgs/s", false, 0},
};
constexpr size_t kMetricCount = std::size(kMetrics);

// What one run contributes to one row: a figure per repetition, the histograms merged.
struct Cell {
  std::vector<double> reps;
  std::shared_ptr<Histogram> merged;  // null unless every repetition had a histogram
  double scale = 0;
  bool all_histograms = true;
  std::string kind;    // what must match across runs: latency mode, bandwidth direction
  std::string failed;  // the error of a failed result, where no repetition succeeded
  bool interrupted = false;
};

struct Row {
  std::string key, test, base;  // base: the key without the stream or direction
  std::vector<Cell> cells;      // one per run
};

// One figure of one result, for one row of one metric.
struct Entry {
  size_t metric;
  std::string suffix;  // "stream 0", "client->server"; "" for the result's own figure
  double value;
  std::string kind;
};

// The loop values other than msg_size ("tx_depth 64"): with the size, what names a row.
std::string row_key(const json& result) {
  std::string key = string_at(result, "test");
  if (auto size = number_at_path(result, "params.msg_size")) key += " " + size_text(*size);
  if (auto loop = result.find("loop"); loop != result.end() && loop->is_object()) {
    for (auto it = loop->begin(); it != loop->end(); ++it) {
      if (it.key() != "msg_size") key += " " + it.key() + "=" + text_of(*it);
    }
  }
  return key;
}

std::vector<Entry> entries_of(const json& r) {
  std::vector<Entry> out;
  if (auto lat = r.find("latency_ns"); lat != r.end() && lat->is_object()) {
    const std::string mode = string_at(r, "latency_mode");
    if (auto p50 = number_at(*lat, "p50")) out.push_back({0, "", *p50, mode});
    if (auto p99 = number_at(*lat, "p99")) out.push_back({1, "", *p99, mode});
  }
  if (auto bw = r.find("bandwidth"); bw != r.end() && bw->is_object()) {
    const std::string direction = string_at(*bw, "direction");
    const double recv = number_at(*bw, "recv_Bps").value_or(0);
    const auto send = number_at(*bw, "send_Bps");
    if (recv > 0 || send) out.push_back({2, "", recv > 0 ? recv : *send, direction});
    if (direction == "both") {
      if (auto v = number_at(*bw, "client_to_server_Bps"))
        out.push_back({2, "client->server", *v, direction});
      if (auto v = number_at(*bw, "server_to_client_Bps"))
        out.push_back({2, "server->client", *v, direction});
    }
    if (auto streams = r.find("streams"); streams != r.end() && streams->is_array()) {
      for (size_t i = 0; i < streams->size(); ++i) {
        const json& s = (*streams)[i];
        const double v = number_at(s, "recv_Bps").value_or(0);
        out.push_back({2, "stream " + std::to_string(i),
                       v > 0 ? v : number_at(s, "send_Bps").value_or(0), direction});
      }
    }
  }
  const bool has_other = r.contains("latency_ns") || r.contains("bandwidth");
  if (auto rate = number_at(r, "msg_rate"); rate && !has_other) out.push_back({3, "", *rate, ""});
  return out;
}

// The result's histogram, if it carries a valid one with samples.
std::optional<std::pair<Histogram, double>> histogram_of(const json& r) {
  auto it = r.find("latency_histogram");
  if (it == r.end()) return std::nullopt;
  auto h = Histogram::from_json(*it);
  auto scale = number_at(*it, "scale");
  if (!h.ok() || !scale || *scale <= 0 || h->count() == 0) return std::nullopt;
  return std::make_pair(std::move(h).value(), *scale);
}

// Rows of every metric, in order of first appearance, each with a cell per run. A failed
// result marks its rows' cells with its error; one with no row anywhere becomes a note.
std::vector<std::vector<Row>> gather(const std::vector<RunDocument>& runs, json& notes) {
  std::vector<std::vector<Row>> tables(kMetricCount);
  std::vector<std::map<std::string, size_t>> index(kMetricCount);
  std::vector<std::map<std::string, std::string>> failures(runs.size());  // base key -> error
  for (size_t run = 0; run < runs.size(); ++run) {
    for (const json& r : runs[run].doc["results"]) {
      const std::string status = string_at(r, "status");
      const std::string base = row_key(r);
      if (status != "ok" && status != "interrupted") {
        const std::string error = string_at(r, "error");
        failures[run].emplace(base, error.empty() ? status : error);
        continue;
      }
      auto hist = histogram_of(r);
      for (const Entry& e : entries_of(r)) {
        const std::string key = e.suffix.empty() ? base : base + " " + e.suffix;
        auto [it, fresh] = index[e.metric].emplace(key, tables[e.metric].size());
        if (fresh) {
          tables[e.metric].push_back(
              {key, string_at(r, "test"), base, std::vector<Cell>(runs.size())});
        }
        Cell& c = tables[e.metric][it->second].cells[run];
        c.reps.push_back(e.value);
        c.kind = e.kind;
        c.interrupted = c.interrupted || status == "interrupted";
        if (kMetrics[e.metric].quantile > 0 && hist && (!c.merged || c.scale == hist->second) &&
            c.all_histograms) {
          if (!c.merged) c.merged = std::make_shared<Histogram>();
          c.merged->merge(hist->first);
          c.scale = hist->second;
        } else {
          c.all_histograms = false;
        }
      }
    }
  }
  for (size_t run = 0; run < runs.size(); ++run) {
    for (const auto& [base, error] : failures[run]) {
      bool placed = false;
      for (auto& rows : tables) {
        for (Row& row : rows) {
          if (row.base != base || !row.cells[run].reps.empty()) continue;
          row.cells[run].failed = error;
          placed = true;
        }
      }
      if (!placed) notes.push_back(runs[run].label + ": " + base + " failed: " + error);
    }
  }
  return tables;
}

json interval_json(const QuantileInterval& q) {
  return {{"value", finite_or_zero(q.value)},
          {"lo", finite_or_zero(q.lo)},
          {"hi", finite_or_zero(q.hi)},
          {"confidence", finite_or_zero(q.confidence)},
          {"n", q.n}};
}

// The smallest two-sided p the exact U test can give n1 against n2 values: 2 / C(n1+n2, n1).
double smallest_p(size_t n1, size_t n2) {
  double orderings = 1;
  for (size_t i = 1; i <= n2; ++i) {
    orderings = orderings * static_cast<double>(n1 + i) / static_cast<double>(i);
  }
  return std::min(1.0, 2 / orderings);
}

// How a row is measured: by repetitions where every run has enough of them for the test to
// reach alpha (4 against 4 at 0.05: benchstat's rule), else by the samples of the histograms
// where every run has them, else by repetitions or one figure a run, untested or weakly so.
std::string basis_of(const Row& row, double alpha) {
  bool reps = true, enough = true, samples = true;
  const size_t base = row.cells[0].reps.size();
  for (const Cell& c : row.cells) {
    if (c.reps.empty()) continue;
    reps = reps && c.reps.size() >= 2;
    enough = enough && smallest_p(base, c.reps.size()) < alpha;
    samples = samples && c.all_histograms && c.merged;
  }
  if (reps && enough) return "repetitions";
  if (samples) return "samples";
  return reps ? "repetitions" : "single";
}

std::optional<QuantileInterval> estimate(const Cell& c, const Metric& m, const std::string& basis,
                                         double level) {
  if (c.reps.empty()) return std::nullopt;
  if (basis == "samples") {
    return quantile_interval(Tally::of_histogram(*c.merged, c.scale), m.quantile, level);
  }
  QuantileInterval q = quantile_interval(Tally::of_values(c.reps), 50, level);
  if (basis == "single") q.lo = q.hi = q.value;  // no spread to speak of
  return q;
}

// The level of the intervals a p99 row's test takes its standard errors from.
constexpr double kTestLevel = 0.95;

json delta_json(size_t run, const Row& row, const Metric& m, const std::string& basis,
                const QuantileInterval& a, const QuantileInterval& b, const CompareOptions& o) {
  json d = {{"run", run}};
  if (a.value != 0) d["delta_pct"] = finite_or_zero((b.value - a.value) / a.value * 100);
  if (basis == "single") {
    d["verdict"] = "?";
    d["why"] = m.quantile == 0 || (row.cells[0].all_histograms && row.cells[run].all_histograms)
                   ? "one measurement in a run: --repeat N (4 or more) on both gives a test"
                   : "no histogram (a schema 1 document) and one measurement in a run";
    return d;
  }
  double p = 1;
  if (basis == "repetitions") {
    p = mann_whitney(Tally::of_values(row.cells[0].reps), Tally::of_values(row.cells[run].reps)).p;
    d["method"] = "mann_whitney_repetitions";
  } else if (m.quantile == 50) {
    p = mann_whitney(Tally::of_histogram(*row.cells[0].merged, row.cells[0].scale),
                     Tally::of_histogram(*row.cells[run].merged, row.cells[run].scale))
            .p;
    d["method"] = "mann_whitney_samples";
  } else {
    // The standard errors come from intervals at one fixed level, whatever --confidence
    // shows: an interval read off buckets widens in steps, not in proportion to z, so the
    // shown level would move p, and the verdict is never the reader's choice of display.
    const auto at_a = estimate(row.cells[0], m, basis, kTestLevel);
    const auto at_b = estimate(row.cells[run], m, basis, kTestLevel);
    p = quantile_difference(*at_a, *at_b).p;
    d["method"] = "quantile_difference";
  }
  d["p"] = finite_or_zero(p);
  const bool significant = p < o.alpha;
  const bool worse = m.lower_better ? b.value > a.value : b.value < a.value;
  d["verdict"] = !significant ? "~" : worse ? "worse" : "better";
  const double pct = d.value("delta_pct", 0.0);
  d["regressed"] = significant && worse && std::fabs(pct) > o.threshold_pct;
  return d;
}

json table_json(const Metric& m, const std::vector<Row>& rows, const CompareOptions& o,
                json& regressions) {
  json t = {{"metric", m.id},         {"title", m.title},
            {"unit", m.unit},         {"better", m.lower_better ? "lower" : "higher"},
            {"quantile", m.quantile}, {"rows", json::array()}};
  const size_t n_runs = rows.empty() ? 0 : rows[0].cells.size();
  std::vector<double> log_sum(n_runs, 0);
  size_t geo_rows = 0;
  for (const Row& row : rows) {
    const std::string basis = basis_of(row, o.alpha);
    json r = {{"key", row.key},
              {"test", row.test},
              {"basis", basis},
              {"cells", json::array()},
              {"deltas", json::array()}};
    std::vector<std::optional<QuantileInterval>> est;
    for (const Cell& c : row.cells) {
      est.push_back(estimate(c, m, basis, o.confidence));
      json cell = est.back() ? interval_json(*est.back()) : json::object();
      if (!est.back()) cell["why"] = c.failed.empty() ? "not measured" : "failed: " + c.failed;
      if (c.interrupted) cell["note"] = "interrupted";
      r["cells"].push_back(std::move(cell));
    }
    bool comparable = true;
    for (size_t run = 1; run < n_runs; ++run) {
      json d = {{"run", run}, {"verdict", "?"}};
      const Cell &a = row.cells[0], &b = row.cells[run];
      if (!est[0] || !est[run]) {
        d["why"] = std::string(!est[0] ? "no figure in " + std::string("the first run")
                                       : "no figure in this run");
        comparable = false;
      } else if (a.kind != b.kind) {
        d["why"] = "measured differently: " + (a.kind.empty() ? "?" : a.kind) + " vs " +
                   (b.kind.empty() ? "?" : b.kind);
        comparable = false;
      } else {
        d = delta_json(run, row, m, basis, *est[0], *est[run], o);
        if (d.value("regressed", false)) {
          regressions.push_back({{"table", m.title},
                                 {"key", row.key},
                                 {"run", run},
                                 {"delta_pct", d["delta_pct"]},
                                 {"p", d["p"]}});
        }
      }
      r["deltas"].push_back(std::move(d));
    }
    if (comparable && n_runs > 1) {
      bool positive = true;
      for (const auto& e : est) positive = positive && e && e->value > 0;
      if (positive) {
        for (size_t i = 0; i < n_runs; ++i) log_sum[i] += std::log(est[i]->value);
        ++geo_rows;
      }
    }
    t["rows"].push_back(std::move(r));
  }
  // Across rows, as benchstat's geomean: one figure for "how did the run do overall".
  if (geo_rows > 1) {
    json values = json::array(), deltas = json::array();
    for (size_t i = 0; i < n_runs; ++i) {
      values.push_back(finite_or_zero(std::exp(log_sum[i] / static_cast<double>(geo_rows))));
      if (i > 0)
        deltas.push_back(finite_or_zero(
            (std::exp((log_sum[i] - log_sum[0]) / static_cast<double>(geo_rows)) - 1) * 100));
    }
    t["geomean"] = {{"values", values}, {"deltas_pct", deltas}, {"rows", geo_rows}};
  }
  return t;
}

// Each run's values of one setting, as text: "1", or "1,4" where its results differ.
std::string joined(const std::set<std::string>& values) {
  std::string out;
  for (const std::string& v : values) out += (out.empty() ? "" : ",") + v;
  return out;
}

std::string param_text(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "1" : "0";  // as the user typed it (-cp 1)
  return text_of(v);
}

}  // namespace

nlohmann::json parameter_differences(const std::vector<RunDocument>& runs) {
  // name -> per run: the values its results used.
  std::map<std::string, std::vector<std::set<std::string>>> values;
  std::vector<std::string> order;
  auto note = [&](const std::string& name, size_t run, const std::string& text) {
    auto [it, fresh] = values.emplace(name, std::vector<std::set<std::string>>(runs.size()));
    if (fresh) order.push_back(name);
    if (!text.empty()) it->second[run].insert(text);
  };
  for (size_t run = 0; run < runs.size(); ++run) {
    const json& doc = runs[run].doc;
    note("fabperf version", run, string_at(doc, "version"));
    note("client", run, string_at(doc.value("client", json::object()), "node"));
    note("server", run, string_at(doc.value("server", json::object()), "node"));
    if (!doc.contains("results")) continue;
    for (const json& r : doc["results"]) {
      std::set<std::string> swept = {"msg_size"};
      if (auto loop = r.find("loop"); loop != r.end() && loop->is_object()) {
        for (auto it = loop->begin(); it != loop->end(); ++it) swept.insert(it.key());
      }
      if (auto info = r.find("info"); info != r.end() && info->is_object()) {
        note("provider", run, string_at(info->value("loc", json::object()), "provider"));
      }
      auto params = r.find("params");
      if (params == r.end() || !params->is_object()) continue;
      for (auto it = params->begin(); it != params->end(); ++it) {
        if (!swept.count(it.key())) note(it.key(), run, param_text(*it));
      }
    }
  }
  json out = json::array();
  for (const std::string& name : order) {
    const auto& per_run = values[name];
    bool differs = false;
    for (size_t run = 1; run < per_run.size(); ++run)
      differs = differs || per_run[run] != per_run[0];
    if (!differs) continue;
    json texts = json::array();
    for (const auto& v : per_run) texts.push_back(v.empty() ? "-" : joined(v));
    out.push_back({{"name", name}, {"values", texts}});
  }
  return out;
}

Result<nlohmann::json> build_comparison(const std::vector<RunDocument>& runs,
                                        const CompareOptions& options) {
  json doc = {{"tool", "fabperf"},
              {"kind", "compare"},
              {"schema", kCompareSchema},
              {"version", FABPERF_VERSION},
              {"alpha", options.alpha},
              {"threshold_pct", options.threshold_pct},
              {"confidence", options.confidence},
              {"runs", json::array()},
              {"tables", json::array()},
              {"regressions", json::array()},
              {"notes", json::array()}};
  for (const RunDocument& run : runs) {
    if (run.doc.contains("matrix")) {
      return Status::usage(run.label +
                           ": a cluster matrix document; compare reads pair runs (a matrix "
                           "compares with --matrix --baseline EARLIER.json)");
    }
    doc["runs"].push_back({{"label", run.label},
                           {"started", string_at(run.doc, "started")},
                           {"version", string_at(run.doc, "version")},
                           {"client", string_at(run.doc.value("client", json::object()), "node")},
                           {"server", string_at(run.doc.value("server", json::object()), "node")}});
  }
  doc["parameters"] = parameter_differences(runs);
  const std::vector<std::vector<Row>> tables = gather(runs, doc["notes"]);
  for (size_t m = 0; m < kMetricCount; ++m) {
    if (tables[m].empty()) continue;
    doc["tables"].push_back(table_json(kMetrics[m], tables[m], options, doc["regressions"]));
  }
  return doc;
}

}  // namespace fabperf::report
