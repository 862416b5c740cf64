// Latency statistics: the per-sample recorder, its summary and percentile option parsing.
#pragma once

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/status.h"
#include "stats/histogram.h"

namespace fabperf {

// The figures a latency test reports, in nanoseconds; every figure is finite (0 when empty).
struct LatencySummary {
  uint64_t samples = 0;
  double min = 0, max = 0, mean = 0, stddev = 0;
  std::vector<std::pair<double, double>> percentiles;  // (p, value), in the order asked for

  // {"samples":..,"min":..,"max":..,"mean":..,"stddev":..,"p50":..,"p99_9":..,...}
  nlohmann::json to_json() const;
};

// The JSON key of percentile p: "p" + shortest decimal form with '.' -> '_' (99.9 -> "p99_9").
std::string percentile_key(double p);

// Parses a --percentiles list such as "50,90,99,99.9": 1 to 32 items, each 0 < p <= 100.
// The result is sorted and duplicates dropped, so keys never collide in the report.
Result<std::vector<double>> parse_percentiles(std::string_view list);

// {50, 90, 99, 99.9, 99.99}
std::vector<double> default_percentiles();

// Records every latency sample of a test: a histogram for percentiles, plus exact min/max and a
// Welford running mean/variance, so mean and stddev stay accurate even when every sample sits
// on a huge common offset. `scale` multiplies every reported figure (0.5 turns recorded round
// trips into one-way latency) while the recorded values stay exact integers.
class LatencyRecorder {
 public:
  explicit LatencyRecorder(double scale = 1.0);

  // Non-positive or non-finite scales are ignored (the previous scale stays).
  void set_scale(double scale);
  double scale() const { return scale_; }

  // Allocation-free. The 1/n division is off the loop-carried dependency chain (it depends only
  // on the counter), so back-to-back calls are limited by one subtract and one FMA on mean.
  void record(uint64_t ns) {
    histogram_.record(ns);
    min_ = ns < min_ ? ns : min_;
    max_ = ns > max_ ? ns : max_;
    ++count_;
    const double x = static_cast<double>(ns);
    const double inv_n = 1.0 / static_cast<double>(count_);
    const double delta = x - mean_;
    mean_ += delta * inv_n;
    m2_ += delta * (x - mean_);
    if (sink_ != nullptr) sink_(sink_arg_, x * scale_);
  }

  // Optional per-sample observer, called after each record() with the scaled sample in ns:
  // the CXI tools stream --report-all rows and keep --latency-gap through it, so memory stays
  // constant however long the run. Not part of the JSON state; merge() leaves it alone.
  using SampleSink = void (*)(void* arg, double ns);
  void set_sink(SampleSink sink, void* arg) {
    sink_ = sink;
    sink_arg_ = arg;
  }

  // Combines the raw samples of both (Chan et al. pairwise update). This recorder's scale stays,
  // unless it holds no samples yet: then it takes the scale of the side that measured.
  void merge(const LatencyRecorder& other);
  uint64_t count() const { return count_; }
  void reset();

  // Percentiles are clamped to the exact [min, max], which only moves them closer to the truth.
  LatencySummary summarize(const std::vector<double>& percentiles) const;
  const Histogram& histogram() const { return histogram_; }

  // Full state, so the server can ship its recorder to the client for merging.
  nlohmann::json to_json() const;
  // Validates types, ranges and consistency between the moments and the histogram.
  static Result<LatencyRecorder> from_json(const nlohmann::json& j);

 private:
  Histogram histogram_;
  uint64_t count_ = 0;
  uint64_t min_ = std::numeric_limits<uint64_t>::max();  // sentinel until the first sample
  uint64_t max_ = 0;
  double mean_ = 0;
  double m2_ = 0;  // sum of squared deviations from the mean
  double scale_ = 1.0;
  SampleSink sink_ = nullptr;
  void* sink_arg_ = nullptr;
};

}  // namespace fabperf
