// Order-statistic intervals for quantiles: binomial ranks, read from a tally.
#include "stats/quantile_ci.h"

#include <algorithm>
#include <cmath>

#include "stats/rank_test.h"

namespace fabperf {

namespace {

constexpr uint64_t kMaxExactBinomial = 1000;

// P(B <= k) for B ~ Binomial(n, q), summed in log space (n up to kMaxExactBinomial).
double binomial_cdf(uint64_t n, double q, int64_t k) {
  if (k < 0) return 0;
  if (k >= static_cast<int64_t>(n)) return 1;
  double sum = 0;
  for (int64_t i = 0; i <= k; ++i) {
    const double log_term = std::lgamma(static_cast<double>(n) + 1) -
                            std::lgamma(static_cast<double>(i) + 1) -
                            std::lgamma(static_cast<double>(n - static_cast<uint64_t>(i)) + 1) +
                            static_cast<double>(i) * std::log(q) +
                            static_cast<double>(n - static_cast<uint64_t>(i)) * std::log1p(-q);
    sum += std::exp(log_term);
  }
  return std::min(1.0, sum);
}

// 1-based ranks (l, u) with B = #samples below q_p in [l, u - 1] at probability >= level.
void binomial_ranks(uint64_t n, double q, double level, uint64_t* l, uint64_t* u) {
  const double tail = (1 - level) / 2;
  if (n <= kMaxExactBinomial) {
    // l: the largest rank with P(B <= l - 1) <= tail; u: the smallest with P(B >= u) <= tail.
    int64_t lo = 0;
    while (lo + 1 <= static_cast<int64_t>(n) && binomial_cdf(n, q, lo) <= tail) ++lo;
    int64_t hi = static_cast<int64_t>(n) + 1;
    while (hi - 1 >= 1 && 1 - binomial_cdf(n, q, hi - 2) <= tail) --hi;
    *l = static_cast<uint64_t>(std::max<int64_t>(lo, 1));
    *u = static_cast<uint64_t>(std::min<int64_t>(hi, static_cast<int64_t>(n)));
    return;
  }
  const double z = normal_quantile(1 - tail);
  const double mean = static_cast<double>(n) * q;
  const double sd = std::sqrt(mean * (1 - q));
  const double lo = std::floor(mean - z * sd), hi = std::ceil(mean + z * sd) + 1;
  *l = static_cast<uint64_t>(std::clamp(lo, 1.0, static_cast<double>(n)));
  *u = static_cast<uint64_t>(std::clamp(hi, 1.0, static_cast<double>(n)));
}

}  // namespace

QuantileInterval quantile_interval(const Tally& sample, double p, double level) {
  QuantileInterval r;
  r.n = sample.count();
  if (r.n == 0) return r;
  const double q = std::clamp(p / 100, 1e-12, 1 - 1e-12);
  r.value = sample.at_percentile(p);
  binomial_ranks(r.n, q, std::clamp(level, 0.0, 0.999999), &r.lo_rank, &r.hi_rank);
  r.lo = sample.at_rank(r.lo_rank);
  r.hi = sample.at_rank(r.hi_rank);
  // What [X(l), X(u)] covers: X(l) <= q_p when at least l samples lie at or below q_p, and
  // X(u) >= q_p when fewer than u do, so P(l <= B <= u - 1) (X(1) misses when B = 0, X(n)
  // when B = n).
  if (r.n <= kMaxExactBinomial) {
    const double below = binomial_cdf(r.n, q, static_cast<int64_t>(r.lo_rank) - 1);
    const double upto = binomial_cdf(r.n, q, static_cast<int64_t>(r.hi_rank) - 1);
    r.confidence = std::clamp(upto - below, 0.0, 1.0);
  } else {
    r.confidence = level;
  }
  return r;
}

QuantileTestResult quantile_difference(const QuantileInterval& a, const QuantileInterval& b) {
  QuantileTestResult r;
  if (a.n == 0 || b.n == 0) return r;
  // Each interval's half-width is z(confidence) standard errors.
  auto se = [](const QuantileInterval& x) {
    const double z = normal_quantile(0.5 + std::clamp(x.confidence, 0.5, 0.999999) / 2);
    return z > 0 ? (x.hi - x.lo) / (2 * z) : 0;
  };
  const double sa = se(a), sb = se(b);
  const double diff = b.value - a.value;
  const double spread = std::sqrt(sa * sa + sb * sb);
  if (!(spread > 0)) {
    r.p = diff == 0 ? 1 : 0;  // both exact to a bucket: equal or not
    return r;
  }
  r.z = diff / spread;
  r.p = std::min(1.0, 2 * normal_cdf(-std::fabs(r.z)));
  return r;
}

}  // namespace fabperf
