// Mann-Whitney U over tallies: one merge walk for U and the ties, the exact null
// distribution by the usual recurrence for small untied samples.
#include "stats/rank_test.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace fabperf {

namespace {

constexpr uint64_t kMaxExact = 40;  // n1 + n2; C(40, 20) = 1.4e11 counts stay exact in a double

// Number of orderings of n1 a's and n2 b's for each U from 0 to n1 * n2: f(i, j)[u] =
// f(i - 1, j)[u - j] + f(i, j - 1)[u] (the largest element is an a, beating all j b's, or a b).
std::vector<double> exact_u_counts(uint64_t n1, uint64_t n2) {
  std::vector<std::vector<std::vector<double>>> f(n1 + 1, std::vector<std::vector<double>>(n2 + 1));
  for (uint64_t i = 0; i <= n1; ++i) {
    for (uint64_t j = 0; j <= n2; ++j) {
      std::vector<double>& out = f[i][j];
      out.assign(i * j + 1, 0);
      if (i == 0 || j == 0) {
        out[0] = 1;
        continue;
      }
      const std::vector<double>& with_a = f[i - 1][j];
      for (size_t u = 0; u < with_a.size(); ++u) out[u + j] += with_a[u];
      const std::vector<double>& with_b = f[i][j - 1];
      for (size_t u = 0; u < with_b.size(); ++u) out[u] += with_b[u];
    }
  }
  return f[n1][n2];
}

}  // namespace

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double normal_quantile(double q) {
  if (!(q > 0)) return -INFINITY;
  if (!(q < 1)) return INFINITY;
  // Bisection on the distribution function: 200 halvings of [-40, 40] reach double precision,
  // and this runs a few times per comparison, never per sample.
  double lo = -40, hi = 40;
  for (int i = 0; i < 200 && hi - lo > 1e-15; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < q ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

RankTestResult mann_whitney(const Tally& a, const Tally& b) {
  RankTestResult r;
  r.n1 = a.count();
  r.n2 = b.count();
  if (r.n1 == 0 || r.n2 == 0) return r;
  // One walk over both sorted tallies: each value's a's beat every b below it and tie with
  // the b's at it. The tie term sums t^3 - t over each value's combined count t.
  const auto& ea = a.entries();
  const auto& eb = b.entries();
  size_t i = 0, j = 0;
  double b_below = 0, tie_term = 0;
  bool ties = false;
  while (i < ea.size() || j < eb.size()) {
    const bool take_a = j == eb.size() || (i < ea.size() && ea[i].value <= eb[j].value);
    const bool take_b = i == ea.size() || (j < eb.size() && eb[j].value <= ea[i].value);
    const double na = take_a ? static_cast<double>(ea[i].count) : 0;
    const double nb = take_b ? static_cast<double>(eb[j].count) : 0;
    r.u += na * (b_below + 0.5 * nb);
    const double t = na + nb;
    if (t > 1) ties = true;
    tie_term += t * t * t - t;
    b_below += nb;
    if (take_a) ++i;
    if (take_b) ++j;
  }
  const double n1 = static_cast<double>(r.n1), n2 = static_cast<double>(r.n2), n = n1 + n2;
  const double mean = n1 * n2 / 2;
  if (!ties && r.n1 + r.n2 <= kMaxExact) {
    const std::vector<double> counts = exact_u_counts(r.n1, r.n2);
    double total = 0, below = 0, above = 0;  // P(U <= u), P(U >= u) as counts
    const auto u = static_cast<size_t>(std::llround(r.u));
    for (size_t k = 0; k < counts.size(); ++k) {
      total += counts[k];
      if (k <= u) below += counts[k];
      if (k >= u) above += counts[k];
    }
    r.p = std::min(1.0, 2 * std::min(below, above) / total);
    r.exact = true;
    return r;
  }
  const double variance = n1 * n2 / 12 * ((n + 1) - tie_term / (n * (n - 1)));
  if (!(variance > 0)) {
    r.p = 1;  // every sample the same value: nothing tells the two apart
    return r;
  }
  const double distance = std::max(0.0, std::fabs(r.u - mean) - 0.5);
  r.z = (r.u >= mean ? distance : -distance) / std::sqrt(variance);
  r.p = std::min(1.0, 2 * normal_cdf(-std::fabs(r.z)));
  return r;
}

}  // namespace fabperf
