// --repeat on the page: a run's repetitions of one test and size drawn as one distribution,
// their samples merged, rather than as N overlapping histograms.
#include <algorithm>
#include <cmath>
#include <map>

#include "core/json_numbers.h"
#include "report/chart_model.h"
#include "report/report_sections.h"
#include "stats/histogram.h"

namespace fabperf::report {

namespace {

// "run.json msg_size 64 #2" less its repetition number.
std::string without_repetition(const std::string& label) {
  const size_t hash = label.rfind(" #");
  if (hash == std::string::npos || hash + 2 >= label.size()) return label;
  for (size_t i = hash + 2; i < label.size(); ++i) {
    if (label[i] < '0' || label[i] > '9') return label;
  }
  return label.substr(0, hash);
}

// The repetitions' figures as one: samples added, min and max of all, the mean weighted by
// samples, the pooled standard deviation, percentiles read from the merged histogram.
nlohmann::json merged(const std::vector<const ResultRef*>& reps) {
  const nlohmann::json& first = *reps[0]->result;
  Histogram all;
  double scale = 0, samples = 0, sum = 0, min = INFINITY, max = 0;
  bool histograms = true;
  for (const ResultRef* r : reps) {
    const nlohmann::json& lat = (*r->result)["latency_ns"];
    const double n = number_at(lat, "samples").value_or(0);
    samples += n;
    sum += n * number_at(lat, "mean").value_or(0);
    min = std::min(min, number_at(lat, "min").value_or(INFINITY));
    max = std::max(max, number_at(lat, "max").value_or(0));
    auto it = r->result->find("latency_histogram");
    auto h = it == r->result->end() ? Result<Histogram>(Status::failed("none"))
                                    : Histogram::from_json(*it);
    auto s = it == r->result->end() ? std::nullopt : number_at(*it, "scale");
    if (!h.ok() || !s || (scale != 0 && *s != scale)) {
      histograms = false;
    } else {
      all.merge(*h);
      scale = *s;
    }
  }
  const double mean = samples > 0 ? sum / samples : 0;
  double square_sum = 0;  // within each repetition, and between their means
  for (const ResultRef* r : reps) {
    const nlohmann::json& lat = (*r->result)["latency_ns"];
    const double n = number_at(lat, "samples").value_or(0);
    const double sd = number_at(lat, "stddev").value_or(0), m = number_at(lat, "mean").value_or(0);
    square_sum += std::max(0.0, n - 1) * sd * sd + n * (m - mean) * (m - mean);
  }
  nlohmann::json lat = {
      {"samples", samples},
      {"min", std::isfinite(min) ? min : 0},
      {"max", max},
      {"mean", finite_or_zero(mean)},
      {"stddev", samples > 1 ? finite_or_zero(std::sqrt(square_sum / (samples - 1))) : 0}};
  nlohmann::json out = {{"test", first.value("test", "")}, {"status", "ok"}};
  if (histograms && all.count() > 0) {
    // The same percentiles the repetitions reported, from every sample of them.
    for (auto it = first["latency_ns"].begin(); it != first["latency_ns"].end(); ++it) {
      const std::string& key = it.key();
      if (key.size() < 2 || key[0] != 'p' || !it->is_number()) continue;
      std::string digits = key.substr(1);
      std::replace(digits.begin(), digits.end(), '_', '.');
      const double p = std::atof(digits.c_str());
      const double v = static_cast<double>(all.value_at_percentile(p)) * scale;
      lat[key] = std::clamp(v, lat["min"].get<double>(), std::max(lat["min"].get<double>(), max));
    }
    out["latency_histogram"] = all.to_json();
    out["latency_histogram"]["scale"] = scale;
  } else {
    for (auto it = first["latency_ns"].begin(); it != first["latency_ns"].end(); ++it) {
      if (!lat.contains(it.key())) lat[it.key()] = *it;  // one repetition's percentiles
    }
  }
  out["latency_ns"] = std::move(lat);
  return out;
}

}  // namespace

std::vector<ResultRef> merge_repetitions(const std::vector<ResultRef>& refs,
                                         std::deque<nlohmann::json>* keep) {
  // Repetitions share run and label (but for their number), in order of first appearance.
  std::vector<std::pair<std::pair<size_t, std::string>, std::vector<const ResultRef*>>> groups;
  for (const ResultRef& r : refs) {
    const auto key = std::make_pair(r.run, without_repetition(r.label));
    auto it =
        std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == key; });
    if (it == groups.end()) it = groups.insert(groups.end(), {key, {}});
    it->second.push_back(&r);
  }
  std::vector<ResultRef> out;
  for (const auto& [key, reps] : groups) {
    if (reps.size() == 1) {
      out.push_back(*reps[0]);
      continue;
    }
    keep->push_back(merged(reps));
    out.push_back({key.first, &keep->back(),
                   key.second + " (" + std::to_string(reps.size()) + " repetitions)"});
  }
  return out;
}

}  // namespace fabperf::report
