// Latency statistics: summaries, percentile naming/parsing and the recorder's wire form.
#include "stats/latency.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>

#include "core/json_numbers.h"

namespace fabperf {

namespace {

constexpr size_t kMaxPercentiles = 32;

bool json_to_finite(const nlohmann::json& j, double* out) {
  if (!j.is_number()) return false;
  *out = j.get<double>();
  return std::isfinite(*out);
}

Status json_error(const std::string& what) { return Status::failed("latency json: " + what); }

std::string_view trim(std::string_view s) {
  const auto space = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && space(s.front())) s.remove_prefix(1);
  while (!s.empty() && space(s.back())) s.remove_suffix(1);
  return s;
}

}  // namespace

nlohmann::json LatencySummary::to_json() const {
  nlohmann::json j = {{"samples", samples},
                      {"min", finite_or_zero(min)},
                      {"max", finite_or_zero(max)},
                      {"mean", finite_or_zero(mean)},
                      {"stddev", finite_or_zero(stddev)}};
  for (const auto& [p, value] : percentiles) j[percentile_key(p)] = finite_or_zero(value);
  return j;
}

std::string percentile_key(double p) {
  // Shortest round-trip digits in fixed notation: 99.9 stays "99.9", never "99.900000000000006"
  // and never an exponent, whose '-' or 'e' would make an awkward key.
  char buf[512];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), p, std::chars_format::fixed);
  std::string digits = ec == std::errc() ? std::string(buf, end) : std::to_string(p);
  std::replace(digits.begin(), digits.end(), '.', '_');
  return "p" + digits;
}

Result<std::vector<double>> parse_percentiles(std::string_view list) {
  std::vector<double> out;
  size_t items = 0;
  while (true) {
    const size_t comma = list.find(',');
    const std::string_view item = trim(list.substr(0, comma));
    ++items;
    if (items > kMaxPercentiles) {
      return Status::usage("--percentiles: too many percentiles (at most " +
                           std::to_string(kMaxPercentiles) + ")");
    }
    double p = 0;
    const auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), p);
    if (item.empty() || ec != std::errc() || ptr != item.data() + item.size()) {
      return Status::usage("--percentiles: bad percentile \"" + std::string(item) + "\"");
    }
    if (!(p > 0 && p <= 100)) {  // rejects nan and inf too
      return Status::usage("--percentiles: bad percentile \"" + std::string(item) +
                           "\" (must be > 0 and <= 100)");
    }
    out.push_back(p);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<double> default_percentiles() { return {50, 90, 99, 99.9, 99.99}; }

LatencyRecorder::LatencyRecorder(double scale) { set_scale(scale); }

void LatencyRecorder::set_scale(double scale) {
  if (std::isfinite(scale) && scale > 0) scale_ = scale;
}

void LatencyRecorder::merge(const LatencyRecorder& other) {
  if (other.count_ == 0) return;
  histogram_.merge(other.histogram_);
  min_ = std::min(min_, other.min_);
  max_ = std::max(max_, other.max_);
  if (count_ == 0) {
    // An empty recorder has reported nothing yet, so the side that measured decides the scale
    // (the server may be the only side that recorded a ping-pong test's round trips).
    scale_ = other.scale_;
    count_ = other.count_;
    mean_ = other.mean_;
    m2_ = other.m2_;
    return;
  }
  // Works from the difference of the means, so a shared large offset cancels exactly.
  const double na = static_cast<double>(count_);
  const double nb = static_cast<double>(other.count_);
  const double n = na + nb;
  const double delta = other.mean_ - mean_;
  mean_ += delta * (nb / n);
  m2_ += other.m2_ + delta * delta * (na * (nb / n));
  count_ += other.count_;
}

void LatencyRecorder::reset() {
  histogram_.reset();
  count_ = 0;
  min_ = std::numeric_limits<uint64_t>::max();
  max_ = 0;
  mean_ = 0;
  m2_ = 0;
}

LatencySummary LatencyRecorder::summarize(const std::vector<double>& percentiles) const {
  LatencySummary s;
  s.samples = count_;
  s.percentiles.reserve(percentiles.size());
  if (count_ == 0) {
    for (double p : percentiles) s.percentiles.emplace_back(p, 0.0);
    return s;
  }
  s.min = finite_or_zero(static_cast<double>(min_) * scale_);
  s.max = finite_or_zero(static_cast<double>(max_) * scale_);
  s.mean = finite_or_zero(mean_ * scale_);
  // Population standard deviation: it describes the samples measured, and is 0 for one sample.
  s.stddev = finite_or_zero(std::sqrt(std::max(m2_, 0.0) / static_cast<double>(count_)) * scale_);
  for (double p : percentiles) {
    const uint64_t v = std::clamp(histogram_.value_at_percentile(p), min_, max_);
    s.percentiles.emplace_back(p, finite_or_zero(static_cast<double>(v) * scale_));
  }
  return s;
}

nlohmann::json LatencyRecorder::to_json() const {
  return {{"scale", scale_}, {"count", count_}, {"min", count_ == 0 ? 0 : min_},    {"max", max_},
          {"mean", mean_},   {"m2", m2_},       {"histogram", histogram_.to_json()}};
}

Result<LatencyRecorder> LatencyRecorder::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return json_error("not an object");
  for (const char* key : {"scale", "count", "min", "max", "mean", "m2", "histogram"}) {
    if (!j.contains(key)) return json_error(std::string("missing \"") + key + "\"");
  }
  double scale = 0;
  if (!json_to_finite(j["scale"], &scale) || scale <= 0) return json_error("bad \"scale\"");
  uint64_t count = 0;
  uint64_t min = 0;
  uint64_t max = 0;
  if (!json_to_u64(j["count"], &count)) return json_error("bad \"count\"");
  if (!json_to_u64(j["min"], &min) || !json_to_u64(j["max"], &max)) {
    return json_error("bad min/max");
  }
  double mean = 0;
  double m2 = 0;
  if (!json_to_finite(j["mean"], &mean) || !json_to_finite(j["m2"], &m2) || m2 < 0) {
    return json_error("bad mean/m2");
  }
  Result<Histogram> h = Histogram::from_json(j["histogram"]);
  if (!h.ok()) return h.status().prefixed("latency json");
  if (h->count() != count) return json_error("\"count\" does not match the histogram");

  LatencyRecorder r(scale);
  if (count > 0) {
    if (min > max) return json_error("min > max");
    // The exact extremes must fall in the outermost non-empty buckets, or the two halves of
    // the state describe different samples.
    size_t lo = Histogram::kBucketCount;
    size_t hi = 0;
    for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
      if (h->count_at(i) == 0) continue;
      lo = std::min(lo, i);
      hi = i;
    }
    if (Histogram::bucket_index(min) != lo || Histogram::bucket_index(max) != hi) {
      return json_error("min/max disagree with the histogram");
    }
    // Rounding in the running update may stray by a few ulps, never further.
    const double dmin = static_cast<double>(min);
    const double dmax = static_cast<double>(max);
    const double slack = 1e-9 * dmax + 1;
    if (mean < dmin - slack || mean > dmax + slack) return json_error("mean outside [min, max]");
    // Popoviciu: the variance of values in [min, max] is at most (max - min)^2 / 4.
    const double range = dmax - dmin;
    const double m2_bound = static_cast<double>(count) * range * range / 4;
    if (m2 > m2_bound * (1 + 1e-9) + 1) return json_error("m2 larger than the range allows");
    r.count_ = count;
    r.min_ = min;
    r.max_ = max;
    r.mean_ = std::clamp(mean, dmin, dmax);
    r.m2_ = m2;
  }
  r.histogram_ = std::move(h).value();
  return r;
}

}  // namespace fabperf
