// Figures over time from interval reports (`--interval`), and the table of every result.
#include <algorithm>

#include "report/chart_model.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

// One interval's rates over its span [start, t] (seconds from the test's start): "start_s"
// where the document has it, else where the previous interval ended (0 for the first).
struct Interval {
  double start = 0, t = 0;
  std::optional<double> Bps, per_s, p50, p99;
};

std::vector<Interval> intervals_of(const nlohmann::json& result, std::string* note) {
  std::vector<Interval> out;
  auto it = result.find("intervals");
  if (it == result.end() || !it->is_array()) return out;
  double previous = 0;
  size_t skipped = 0;
  for (const nlohmann::json& e : *it) {
    auto t = number_at(e, "t_s");
    if (!t || *t <= previous) {
      ++skipped;
      continue;
    }
    Interval i;
    i.t = *t;
    i.start = std::clamp(number_at(e, "start_s").value_or(previous), previous, *t);
    if (i.start >= *t) i.start = previous;
    const double dt = *t - i.start;
    previous = *t;
    // The rates the run printed (fabperf folds a last sliver into the interval before and
    // gives no rate over less than 1 ms); older documents' from the counts.
    if (auto Bps = number_at(e, "Bps")) {
      i.Bps = *Bps;
    } else if (auto bytes = number_at(e, "bytes"); bytes && dt >= 0.001) {
      i.Bps = *bytes / dt;
    }
    if (auto rate = number_at(e, "msg_rate")) {
      i.per_s = *rate;
    } else if (auto msgs = number_at(e, "msgs"); msgs && dt >= 0.001) {
      i.per_s = *msgs / dt;
    }
    if (auto lat = e.find("latency_ns"); lat != e.end()) {
      i.p50 = number_at(*lat, "p50");
      i.p99 = number_at(*lat, "p99");
    }
    out.push_back(i);
  }
  if (skipped > 0) {
    *note = std::to_string(skipped) + " interval(s) without an increasing \"t_s\" left out";
  }
  return out;
}

// An interval figure as steps over each interval's span: (start, v) and (end, v) for each, so
// the segment over [start, end] carries the interval's own value whichever way the page steps
// between points; only the joins between intervals are vertical.
nlohmann::json step_series(const std::string& label, const ResultRef& r, const std::string& stat,
                           const std::vector<Interval>& intervals,
                           std::optional<double> Interval::*field, double divisor) {
  std::vector<std::pair<double, double>> points;
  for (const Interval& i : intervals) {
    if (!(i.*field)) continue;
    points.emplace_back(i.start, *(i.*field) / divisor);
    points.emplace_back(i.t, *(i.*field) / divisor);
  }
  nlohmann::json s = series(label, std::move(points), "step");
  s["run"] = r.run;
  s["stat"] = stat;
  return s;
}

// A run that has intervals, and its intervals.
using RunIntervals = std::pair<const ResultRef*, std::vector<Interval>>;

// Every figure of every interval, by kind: what each axis' unit is chosen from.
struct IntervalValues {
  std::vector<double> bw, rate, ns;
};

// The runs that have intervals, their figures gathered in `values`; why an interval was left
// out is noted in `sec`.
std::vector<RunIntervals> runs_with_intervals(const std::vector<ResultRef>& refs,
                                              nlohmann::json& sec, IntervalValues& values) {
  std::vector<RunIntervals> all;
  for (const ResultRef& r : refs) {
    std::string note;
    auto intervals = intervals_of(*r.result, &note);
    if (!note.empty()) sec["notes"].push_back(r.label + ": " + note);
    if (intervals.empty()) continue;
    for (const Interval& i : intervals) {
      if (i.Bps) values.bw.push_back(*i.Bps);
      if (i.per_s) values.rate.push_back(*i.per_s);
      if (i.p50) values.ns.push_back(*i.p50);
      if (i.p99) values.ns.push_back(*i.p99);
    }
    all.emplace_back(&r, std::move(intervals));
  }
  return all;
}

// A figure of the table by interval.
struct Column {
  std::string name;
  std::optional<double> Interval::*field;
  const DisplayUnit* unit;
  const char* key;
};

// The figures any interval has, one column each (a bandwidth test has no latency columns).
std::vector<Column> interval_columns(const std::vector<RunIntervals>& all, const DisplayUnit& bw,
                                     const DisplayUnit& rate, const DisplayUnit& lat) {
  std::vector<Column> columns;
  for (const Column& c : {Column{"bandwidth", &Interval::Bps, &bw, "intervals.bytes/s"},
                          Column{"message rate", &Interval::per_s, &rate, "intervals.msgs/s"},
                          Column{"p50", &Interval::p50, &lat, "intervals.latency_ns.p50"},
                          Column{"p99", &Interval::p99, &lat, "intervals.latency_ns.p99"}}) {
    bool any = false;
    for (const auto& [r, intervals] : all) {
      for (const Interval& i : intervals) any = any || (i.*c.field).has_value();
    }
    if (any) columns.push_back(c);
  }
  return columns;
}

// One row per interval of each run, in `columns`.
nlohmann::json interval_table(const std::string& test, const std::vector<RunIntervals>& all,
                              const std::vector<Column>& columns) {
  std::vector<std::string> names = {"series", "from (s)", "to (s)"};
  for (const Column& c : columns) names.push_back(c.name + " (" + c.unit->name + ")");
  nlohmann::json tab = table(test + " by interval", names);
  for (const auto& [r, intervals] : all) {
    for (const Interval& i : intervals) {
      nlohmann::json row = {text_cell(r->label), value_cell(i.start, {"", 1}, "intervals.start_s"),
                            value_cell(i.t, {"", 1}, "intervals.t_s")};
      for (const Column& c : columns) {
        const std::optional<double>& v = i.*c.field;
        row.push_back(v ? value_cell(*v, {"", c.unit->divisor}, c.key) : text_cell(""));
      }
      tab["rows"].push_back(std::move(row));
    }
  }
  return tab;
}

// The charts over time, and the divisor of each one's display unit.
struct TimeCharts {
  nlohmann::json bw, rate, lat;
  double bw_divisor, rate_divisor, lat_divisor;
};

// One run's step series in the charts, each where it has points.
void add_run_series(TimeCharts& charts, const ResultRef& run,
                    const std::vector<Interval>& run_intervals, bool moved_bytes) {
  auto add = [&](nlohmann::json& c, const std::string& label, const std::string& stat,
                 std::optional<double> Interval::*field, double divisor) {
    nlohmann::json s = step_series(label, run, stat, run_intervals, field, divisor);
    if (!s["points"].empty()) c["series"].push_back(std::move(s));
  };
  // Bandwidth where bytes moved, else the message rate: latency tests move few bytes.
  if (moved_bytes) add(charts.bw, run.label, "bandwidth", &Interval::Bps, charts.bw_divisor);
  if (!moved_bytes) {
    add(charts.rate, run.label, "msg_rate", &Interval::per_s, charts.rate_divisor);
  }
  add(charts.lat, run.label + " p50", "p50", &Interval::p50, charts.lat_divisor);
  add(charts.lat, run.label + " p99", "p99", &Interval::p99, charts.lat_divisor);
}

}  // namespace

std::optional<nlohmann::json> interval_section(const std::string& test,
                                               const std::vector<ResultRef>& refs,
                                               const std::string& id) {
  nlohmann::json sec = section(id, test + ": over time");
  IntervalValues values;
  const std::vector<RunIntervals> all = runs_with_intervals(refs, sec, values);
  if (all.empty()) return std::nullopt;

  // Units from the bulk; the latency axis ends where its bulk does (a stalled interval's p99
  // sits on the edge with its value rather than flattening every other interval).
  const DisplayUnit bw = bulk_unit("Bps", values.bw), rate = bulk_unit("msgs/s", values.rate),
                    lat = bulk_unit("ns", values.ns);
  const bool moved_bytes = bulk_of(values.bw) > 0;
  auto time_axis = [] { return axis("time", "s", false); };
  TimeCharts charts{chart("line", id + "-bandwidth", "Bandwidth over time", time_axis(),
                          axis("bandwidth", bw.name, false)),
                    chart("line", id + "-msg_rate", "Message rate over time", time_axis(),
                          axis("message rate", rate.name, false)),
                    chart("line", id + "-latency", "Latency over time", time_axis(),
                          axis("latency", lat.name, false)),
                    bw.divisor,
                    rate.divisor,
                    lat.divisor};
  if (double limit = axis_limit(values.ns, false); limit > 0) {
    charts.lat["y"]["max"] = limit / lat.divisor;
  }
  nlohmann::json tab = interval_table(test, all, interval_columns(all, bw, rate, lat));
  for (const RunIntervals& run : all) add_run_series(charts, *run.first, run.second, moved_bytes);
  for (nlohmann::json* c : {&charts.bw, &charts.rate, &charts.lat}) {
    if (!(*c)["series"].empty()) sec["charts"].push_back(std::move(*c));
  }
  sec["tables"].push_back(std::move(tab));
  return sec;
}

nlohmann::json results_section(const std::vector<ResultRef>& refs, const std::string& id) {
  nlohmann::json sec = section(id, "Every result");
  nlohmann::json tab = table(
      "Results", {"test", "series", "status", "elapsed", "figure", "value", "overlapped", "error"});
  for (const ResultRef& r : refs) {
    const nlohmann::json& res = *r.result;
    const std::string status = string_at(res, "status");
    std::string figure, key;
    DisplayUnit unit{"", 1};
    std::optional<double> value;
    if ((value = number_at_path(res, "latency_ns.mean"))) {
      figure = "latency (mean)", key = "latency_ns.mean", unit = latency_unit(*value);
    } else if ((value = number_at_path(res, "bandwidth.recv_Bps")) && *value > 0) {
      figure = "bandwidth", key = "bandwidth.recv_Bps", unit = bandwidth_unit(*value);
    } else if ((value = number_at_path(res, "bandwidth.send_Bps"))) {
      figure = "bandwidth (sent)", key = "bandwidth.send_Bps", unit = bandwidth_unit(*value);
    } else if ((value = number_at(res, "msg_rate")) && *value > 0) {
      figure = "message rate", key = "msg_rate", unit = rate_unit(*value);
    }
    nlohmann::json status_cell = text_cell(status.empty() ? "?" : status);
    if (status != "ok") status_cell["c"] = "bad";
    // The measured phase as it ran (schema 2; an interrupted run's figures cover this much).
    const auto elapsed = number_at(res, "elapsed_s");
    std::string overlapped;
    if (auto o = res.find("overlapped"); o != res.end() && o->is_array()) {
      for (const nlohmann::json& who : *o)
        overlapped += (overlapped.empty() ? "" : ", ") + text_of(who);
    }
    tab["rows"].push_back({text_cell(string_at(res, "test")), text_cell(r.label), status_cell,
                           elapsed ? value_cell(*elapsed, {"s", 1}, "elapsed_s") : text_cell(""),
                           text_cell(figure), value ? value_cell(*value, unit, key) : text_cell(""),
                           text_cell(overlapped), text_cell(string_at(res, "error"))});
  }
  sec["tables"].push_back(std::move(tab));
  return sec;
}

}  // namespace fabperf::report
