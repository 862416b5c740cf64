// Mann-Whitney U (Wilcoxon rank-sum) test of two samples, as benchstat uses it: does one
// sample tend to hold larger values than the other? Ties (a histogram's samples within one
// bucket, equal repetition figures) take the midrank and shrink the variance.
#pragma once

#include <cstdint>

#include "stats/tally.h"

namespace fabperf {

struct RankTestResult {
  double u = 0;  // U of the first sample: pairs (a, b) with a > b, ties counted 1/2
  double p = 1;  // two-sided p-value; 1 when either sample is empty
  double z = 0;  // the normal approximation's score (0 when exact or untestable)
  uint64_t n1 = 0, n2 = 0;
  bool exact = false;  // from the exact distribution of U (small samples without ties)
};

// Two-sided test. Exact distribution of U when the samples are small (n1 + n2 <= 40) and
// have no ties; otherwise the normal approximation with the tie correction of the variance
// and a continuity correction of 1/2.
RankTestResult mann_whitney(const Tally& a, const Tally& b);

// The standard normal distribution function, and its inverse for 0 < q < 1.
double normal_cdf(double z);
double normal_quantile(double q);

}  // namespace fabperf
