// Figures over time from interval reports (`--interval`), and the table of every result.
#include <algorithm>

#include "report/chart_model.h"
#include "report/report_sections.h"

namespace fabperf::report {

namespace {

// One interval's rates. t_s is the end of the interval, seconds from the test's start; the
// interval began where the previous one ended (0 for the first).
struct Interval {
  double t = 0;
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
    const double dt = *t - number_at(e, "start_s").value_or(previous);
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

}  // namespace

std::optional<nlohmann::json> interval_section(const std::string& test,
                                               const std::vector<ResultRef>& refs,
                                               const std::string& id) {
  std::vector<std::pair<const ResultRef*, std::vector<Interval>>> all;
  nlohmann::json sec = section(id, test + ": over time");
  double top_Bps = 0, top_rate = 0, top_ns = 0;
  for (const ResultRef& r : refs) {
    std::string note;
    auto intervals = intervals_of(*r.result, &note);
    if (!note.empty()) sec["notes"].push_back(r.label + ": " + note);
    if (intervals.empty()) continue;
    for (const Interval& i : intervals) {
      top_Bps = std::max(top_Bps, i.Bps.value_or(0));
      top_rate = std::max(top_rate, i.per_s.value_or(0));
      top_ns = std::max({top_ns, i.p50.value_or(0), i.p99.value_or(0)});
    }
    all.emplace_back(&r, std::move(intervals));
  }
  if (all.empty()) return std::nullopt;

  const DisplayUnit bw = bandwidth_unit(top_Bps), rate = rate_unit(top_rate),
                    lat = latency_unit(top_ns);
  auto time_axis = [] { return axis("time", "s", false); };
  nlohmann::json bw_chart = chart("line", id + "-bandwidth", "Bandwidth over time", time_axis(),
                                  axis("bandwidth", bw.name, false));
  nlohmann::json rate_chart = chart("line", id + "-msg_rate", "Message rate over time", time_axis(),
                                    axis("message rate", rate.name, false));
  nlohmann::json lat_chart = chart("line", id + "-latency", "Latency over time", time_axis(),
                                   axis("latency", lat.name, false));
  nlohmann::json tab =
      table(test + " by interval", {"series", "t (s)", "bandwidth", "message rate", "p50", "p99"});
  for (const auto& [r, intervals] : all) {
    std::vector<std::pair<double, double>> b, m, p50, p99;
    for (const Interval& i : intervals) {
      if (i.Bps) b.emplace_back(i.t, *i.Bps / bw.divisor);
      if (i.per_s) m.emplace_back(i.t, *i.per_s / rate.divisor);
      if (i.p50) p50.emplace_back(i.t, *i.p50 / lat.divisor);
      if (i.p99) p99.emplace_back(i.t, *i.p99 / lat.divisor);
      auto cell = [](const std::optional<double>& v, const DisplayUnit& u, const char* key) {
        return v ? value_cell(*v, u, key) : text_cell("");
      };
      tab["rows"].push_back({text_cell(r->label), value_cell(i.t, {"", 1}, "intervals.t_s"),
                             cell(i.Bps, bw, "intervals.bytes/s"),
                             cell(i.per_s, rate, "intervals.msgs/s"),
                             cell(i.p50, lat, "intervals.latency_ns.p50"),
                             cell(i.p99, lat, "intervals.latency_ns.p99")});
    }
    // Bandwidth where bytes moved, else the message rate: latency tests move few bytes.
    if (top_Bps > 0 && !b.empty()) bw_chart["series"].push_back(series(r->label, std::move(b)));
    if (top_Bps == 0 && !m.empty()) rate_chart["series"].push_back(series(r->label, std::move(m)));
    if (!p50.empty()) lat_chart["series"].push_back(series(r->label + " p50", std::move(p50)));
    if (!p99.empty()) lat_chart["series"].push_back(series(r->label + " p99", std::move(p99)));
  }
  for (nlohmann::json* c : {&bw_chart, &rate_chart, &lat_chart}) {
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
