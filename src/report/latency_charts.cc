// The latency distribution section: histogram re-binned from the full log-linear histogram,
// an HDR-style percentile plot, the reported figures marked and tabled.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include "report/chart_model.h"
#include "report/report_sections.h"
#include "stats/histogram.h"

namespace fabperf::report {

namespace {

constexpr double kBinsPerDecade = 50;  // ~4.7% wide: a loaded run's 3-decade tail keeps detail
constexpr size_t kMaxBins = 250;
constexpr double kPointsPerDecade = 20;
constexpr size_t kMaxMarkedSeries = 4;  // of the percentile plot's 1/(1-q) axis

// A percentile figure's key ("p99_9") as its percentile (99.9).
std::optional<double> percentile_of(const std::string& key) {
  if (key.size() < 2 || key[0] != 'p') return std::nullopt;
  std::string digits = key.substr(1);
  std::replace(digits.begin(), digits.end(), '_', '.');
  double p = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), p);
  if (ec != std::errc() || end != digits.data() + digits.size() || !(p > 0 && p <= 100)) {
    return std::nullopt;
  }
  return p;
}

// The reported percentiles of a latency_ns object, in increasing order: (p, key, value).
struct Reported {
  double p;
  std::string key;
  double value;
};
std::vector<Reported> reported_percentiles(const nlohmann::json& lat) {
  std::vector<Reported> out;
  if (!lat.is_object()) return out;
  for (auto it = lat.begin(); it != lat.end(); ++it) {
    auto p = percentile_of(it.key());
    auto v = number_at(lat, it.key());
    if (p && v) out.push_back({*p, it.key(), *v});
  }
  std::sort(out.begin(), out.end(), [](const Reported& a, const Reported& b) { return a.p < b.p; });
  return out;
}

// A result's histogram in reported units, if it carries a valid one.
struct ScaledHistogram {
  Histogram h;
  double scale = 1;
  size_t first = 0, last = 0;  // non-empty bucket range
};
std::optional<ScaledHistogram> histogram_of(const nlohmann::json& result, std::string* why) {
  auto it = result.find("latency_histogram");
  if (it == result.end()) return std::nullopt;
  auto h = Histogram::from_json(*it);
  auto scale = number_at(*it, "scale");
  if (!h.ok() || !scale || *scale <= 0) {
    *why = h.ok() ? "latency_histogram: bad \"scale\"" : h.status().message();
    return std::nullopt;
  }
  if (h->count() == 0) return std::nullopt;
  ScaledHistogram s{std::move(h).value(), *scale, Histogram::kBucketCount, 0};
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    if (s.h.count_at(i) == 0) continue;
    s.first = std::min(s.first, i);
    s.last = i;
  }
  return s;
}

// Log-spaced bins over [lo, hi] (reported ns), never finer than the histogram's buckets there,
// so no bin falls empty between two full ones merely by bucket rounding.
struct Bins {
  double lo = 1, hi = 2;
  size_t n = 1;
  size_t of(double v) const {
    if (v <= lo) return 0;
    const double f = std::log(v / lo) / std::log(hi / lo) * static_cast<double>(n);
    return std::min(n - 1, static_cast<size_t>(f));
  }
  double center(size_t i) const {
    return lo * std::pow(hi / lo, (static_cast<double>(i) + 0.5) / static_cast<double>(n));
  }
};
// Bins up to `limit` (reported ns; 0: no limit): samples past it are counted apart and drawn
// as a marker on the axis' edge.
Bins bins_for(const std::vector<ScaledHistogram>& hs, double limit) {
  Bins b{std::numeric_limits<double>::max(), 0, 1};
  double finest = 0;  // the widest relative bucket width at the low end, over all series
  for (const ScaledHistogram& s : hs) {
    const double lower = static_cast<double>(Histogram::bucket_lower(s.first));
    b.lo = std::min(b.lo, std::max(lower, 1.0) * s.scale);
    b.hi = std::max(b.hi, static_cast<double>(Histogram::bucket_lower(s.last) +
                                              Histogram::bucket_width(s.last)) *
                              s.scale);
    finest =
        std::max(finest, std::max(2.0 / Histogram::kSubBucketCount, 1.0 / std::max(lower, 1.0)));
  }
  if (limit > 0) b.hi = std::min(b.hi, limit);
  if (!(b.hi > b.lo * (1 + finest))) b.hi = b.lo * (1 + finest) * 1.01;
  const double n = std::min(std::floor(std::log(b.hi / b.lo) / std::log1p(finest)),
                            std::ceil(std::log10(b.hi / b.lo) * kBinsPerDecade));
  b.n = static_cast<size_t>(std::clamp(n, 1.0, static_cast<double>(kMaxBins)));
  return b;
}

// The share (%) of samples in each bin, and in `beyond` the share past the bins' end.
std::vector<std::pair<double, double>> binned(const ScaledHistogram& s, const Bins& b,
                                              double* beyond) {
  std::vector<double> counts(b.n, 0);
  double past = 0;
  for (size_t i = s.first; i <= s.last; ++i) {
    const uint64_t c = s.h.count_at(i);
    if (c == 0) continue;
    const double v = static_cast<double>(Histogram::bucket_value(i)) * s.scale;
    if (v > b.hi) {
      past += static_cast<double>(c);
    } else {
      counts[b.of(v)] += static_cast<double>(c);
    }
  }
  std::vector<std::pair<double, double>> points;
  const double total = static_cast<double>(s.h.count());
  for (size_t i = 0; i < b.n; ++i) points.emplace_back(b.center(i), 100.0 * counts[i] / total);
  *beyond = 100.0 * past / total;
  return points;
}

// Where the histogram's latency axis ends: the fence of the series' bulk figures (p10 to
// p99, and the largest sample), so a few stalled samples do not squeeze every bar left.
double histogram_limit(const std::vector<ScaledHistogram>& hs) {
  std::vector<double> figures;
  for (const ScaledHistogram& s : hs) {
    for (double p : {10.0, 25.0, 50.0, 75.0, 90.0, 99.0}) {
      figures.push_back(static_cast<double>(s.h.value_at_percentile(p)) * s.scale);
    }
    figures.push_back(static_cast<double>(Histogram::bucket_value(s.last)) * s.scale);
  }
  return axis_limit(figures, true);
}

// The HDR curve: latency at q for 1/(1-q) = 1, 10^(1/20), ... up to the sample count, read
// in one walk over the buckets and clamped to the exact [min, max] as the summary is.
std::vector<std::pair<double, double>> percentile_curve(const ScaledHistogram& s, double min,
                                                        double max) {
  const uint64_t count = s.h.count();
  std::vector<std::pair<double, uint64_t>> wanted;  // (1/(1-q), rank)
  for (int k = 0;; ++k) {
    const double x = std::pow(10.0, k / kPointsPerDecade);
    if (x > static_cast<double>(count)) break;
    wanted.emplace_back(x, Histogram::percentile_rank(100.0 * (1 - 1 / x), count));
  }
  std::vector<std::pair<double, double>> points;
  uint64_t seen = 0;
  size_t i = s.first;
  for (const auto& [x, rank] : wanted) {
    while (i <= s.last && seen + s.h.count_at(i) < rank) seen += s.h.count_at(i++);
    const double v = static_cast<double>(Histogram::bucket_value(std::min(i, s.last))) * s.scale;
    points.emplace_back(x, std::clamp(v, min, std::max(min, max)));
  }
  return points;
}

double x_of_percentile(double p) { return p >= 100 ? 0 : 1 / (1 - p / 100); }

// "p99_9" as people write it: "p99.9".
std::string figure_name(std::string key) {
  std::replace(key.begin(), key.end(), '_', '.');
  return key;
}

// Points in the chart's display units (the page draws numbers as given).
std::vector<std::pair<double, double>> in_units(std::vector<std::pair<double, double>> points,
                                                double x_divisor, double y_divisor) {
  for (auto& [x, y] : points) {
    x /= x_divisor;
    y /= y_divisor;
  }
  return points;
}

// A series tagged with its run and what it shows: the page gives each run one hue family
// and each statistic one dash, and the run toggle finds a run's series by it.
nlohmann::json tagged(nlohmann::json s, const ResultRef& r, const std::string& stat) {
  s["run"] = r.run;
  s["stat"] = stat;
  return s;
}

// The figures of every series, one row a series and one column a figure, each column in the
// one unit its bulk (median) calls for: a sweep's table grows down, not off the card.
nlohmann::json figures_table(const std::string& test, const std::vector<ResultRef>& refs) {
  std::vector<std::string> keys = {"samples", "min", "mean"};
  for (const ResultRef& r : refs) {
    for (const Reported& p : reported_percentiles((*r.result)["latency_ns"])) {
      if (std::find(keys.begin(), keys.end(), p.key) == keys.end()) keys.push_back(p.key);
    }
  }
  std::sort(keys.begin() + 3, keys.end(), [](const std::string& a, const std::string& b) {
    return percentile_of(a).value_or(0) < percentile_of(b).value_or(0);
  });
  keys.push_back("max");
  keys.push_back("stddev");
  std::vector<DisplayUnit> units;
  std::vector<std::string> columns = {"series"};
  for (const std::string& key : keys) {
    std::vector<double> values;
    for (const ResultRef& r : refs) {
      if (auto v = number_at((*r.result)["latency_ns"], key)) values.push_back(*v);
    }
    units.push_back(key == "samples" ? DisplayUnit{"", 1} : bulk_unit("ns", values));
    const std::string& name = units.back().name;
    columns.push_back(figure_name(key) + (name.empty() ? "" : " (" + name + ")"));
  }
  nlohmann::json tab = table("Latency (" + test + ")", columns);
  for (const ResultRef& r : refs) {
    nlohmann::json row = nlohmann::json::array({text_cell(r.label)});  // not {x}: clang copies x
    for (size_t i = 0; i < keys.size(); ++i) {
      auto v = number_at((*r.result)["latency_ns"], keys[i]);
      row.push_back(v ? value_cell(*v, {"", units[i].divisor}, "latency_ns." + keys[i])
                      : text_cell(""));
    }
    tab["rows"].push_back(std::move(row));
  }
  return tab;
}

// The results whose histogram the percentile plot drew, and those histograms.
struct Histograms {
  std::vector<ScaledHistogram> hists;
  std::vector<const ResultRef*> refs;
};

// The HDR-style plot: each result's curve from its histogram (from its reported figures where
// it has none) and the figures marked. A histogram left out is noted in `sec`.
nlohmann::json percentile_chart(const std::vector<ResultRef>& refs, const std::string& id,
                                const DisplayUnit& unit, nlohmann::json& sec, Histograms& found) {
  nlohmann::json pct =
      chart("percentile", id + "-percentiles", "Latency by percentile",
            axis("percentile", "", true, "percentile"), axis("latency", unit.name, true));
  for (const ResultRef& r : refs) {
    const nlohmann::json& lat = (*r.result)["latency_ns"];
    const double min = number_at(lat, "min").value_or(0), max = number_at(lat, "max").value_or(0);
    std::string why;
    auto h = histogram_of(*r.result, &why);
    if (!why.empty()) sec["notes"].push_back(r.label + ": histogram left out: " + why);
    std::vector<std::pair<double, double>> marks;
    for (const Reported& p : reported_percentiles(lat)) {
      if (p.p < 100) marks.emplace_back(x_of_percentile(p.p), p.value);
    }
    nlohmann::json curve;
    if (h) {
      curve = series(r.label, in_units(percentile_curve(*h, min, max), 1, unit.divisor));
      found.hists.push_back(std::move(*h));
      found.refs.push_back(&r);
    } else {
      curve = series(r.label, in_units(marks, 1, unit.divisor));  // the figures alone
    }
    pct["series"].push_back(tagged(std::move(curve), r, "curve"));
    // The reported figures on their curve; past a few series the dots only clutter.
    if (refs.size() <= kMaxMarkedSeries) {
      pct["series"].push_back(
          tagged(series(r.label + " (reported)", in_units(marks, 1, unit.divisor), "points"), r,
                 "reported"));
    }
  }
  return pct;
}

// The samples past the axis: a marker on its edge, with their share and how far they reach
// (the run's exact maximum).
nlohmann::json past_edge_series(const ResultRef& r, const Bins& bins, double beyond,
                                const DisplayUnit& unit) {
  const double max = number_at_path(*r.result, "latency_ns.max").value_or(0);
  nlohmann::json edge = tagged(series(r.label + " past " + format_value(bins.hi, unit),
                                      {{bins.hi / unit.divisor, beyond}}, "points"),
                               r, "beyond");
  char share[32];
  std::snprintf(share, sizeof share, "%.2g%%", beyond);
  edge["edge"] = std::string(share) + " up to " + format_value(max, unit);
  return edge;
}

// A result's figures (latency_ns) as vertical lines, `top` high.
void add_figure_markers(nlohmann::json& hist, const nlohmann::json& lat, double top,
                        const DisplayUnit& unit) {
  std::vector<std::pair<std::string, double>> lines;
  for (const char* key : {"min", "mean"}) lines.emplace_back(key, number_at(lat, key).value_or(0));
  for (const Reported& p : reported_percentiles(lat)) lines.emplace_back(p.key, p.value);
  lines.emplace_back("max", number_at(lat, "max").value_or(0));
  for (const auto& [key, v] : lines) {
    hist["series"].push_back(series(figure_name(key) + " " + format_value(v, unit),
                                    in_units({{v, 0}, {v, top}}, unit.divisor, 1), "marker"));
  }
}

// The histogram of every sample of each result that has one, re-binned on one axis.
nlohmann::json histogram_chart(const Histograms& found, const std::string& id,
                               const DisplayUnit& unit) {
  const std::vector<ScaledHistogram>& hists = found.hists;
  const std::vector<const ResultRef*>& hist_refs = found.refs;
  const double limit = histogram_limit(hists);
  const Bins bins = bins_for(hists, limit);
  nlohmann::json hist = chart("histogram", id + "-histogram", "Histogram (every sample)",
                              axis("latency", unit.name, true), axis("samples", "%", false));
  double top = 0;
  std::vector<nlohmann::json> past_edge;
  for (size_t i = 0; i < hists.size(); ++i) {
    double beyond = 0;
    auto points = binned(hists[i], bins, &beyond);
    for (const auto& point : points) top = std::max(top, point.second);
    // Every series drawn: the runs are told apart by hue family, not by hiding some.
    hist["series"].push_back(
        tagged(series(hist_refs[i]->label, in_units(std::move(points), unit.divisor, 1)),
               *hist_refs[i], "histogram"));
    if (beyond > 0) past_edge.push_back(past_edge_series(*hist_refs[i], bins, beyond, unit));
  }
  for (nlohmann::json& e : past_edge) hist["series"].push_back(std::move(e));
  if (!past_edge.empty()) hist["x"]["max"] = bins.hi / unit.divisor;
  // One distribution: its figures as vertical lines (several would bury the bars).
  if (hists.size() == 1) add_figure_markers(hist, (*hist_refs[0]->result)["latency_ns"], top, unit);
  return hist;
}

}  // namespace

nlohmann::json latency_section(const std::string& test, const std::vector<ResultRef>& refs,
                               const std::string& id) {
  nlohmann::json sec = section(id, test + ": latency distribution");
  // The axis' unit from the bulk: the series' medians, not the largest value anywhere.
  std::vector<double> medians;
  for (const ResultRef& r : refs) {
    if (auto v = number_at_path(*r.result, "latency_ns.p50")) medians.push_back(*v);
  }
  const DisplayUnit unit = bulk_unit("ns", medians);

  Histograms found;
  nlohmann::json pct = percentile_chart(refs, id, unit, sec, found);
  // The percentile plot keeps its whole range: its tail is what it is drawn for.
  sec["tables"].push_back(figures_table(test, refs));

  if (!found.hists.empty()) {
    sec["charts"].push_back(histogram_chart(found, id, unit));
  } else {
    sec["notes"].push_back(
        "No histogram in this JSON (written before schema 2): the percentile plot shows the "
        "reported percentiles only.");
  }
  sec["charts"].push_back(std::move(pct));
  return sec;
}

}  // namespace fabperf::report
