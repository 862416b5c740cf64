// Distribution-free confidence intervals for a quantile (median, p99) from the order
// statistics of a sample, and a test of two samples' quantiles built on them. Nothing is
// assumed about the shape of the distribution, which for latency is skewed and multi-modal.
#pragma once

#include <cstdint>

#include "stats/tally.h"

namespace fabperf {

struct QuantileInterval {
  double value = 0;       // the quantile, by Histogram::percentile_rank's rule
  double lo = 0, hi = 0;  // the interval: the order statistics at ranks lo_rank and hi_rank
  uint64_t lo_rank = 0, hi_rank = 0;
  double confidence = 0;  // what the interval achieves (below the asked level when n is small)
  uint64_t n = 0;
};

// The interval [X(l), X(u)] around quantile p (0 < p < 100) with P(X(l) <= q_p <= X(u)) at
// least `level` (0.95): the number of samples below q_p is Binomial(n, p), so l and u are its
// lower and upper level tails (exact binomial up to 1000 samples, its normal approximation
// above). Where n is too small for `level` (n < 6 for a median at 95%), the interval is the
// sample's whole range and `confidence` says what that covers.
QuantileInterval quantile_interval(const Tally& sample, double p, double level);

struct QuantileTestResult {
  double p = 1;  // two-sided p-value that the two quantiles are equal
  double z = 0;
};

// Two samples' quantiles compared: each interval gives the quantile's standard error (its
// width over 2 z, McKean and Schrader's estimator, generalised from the median), and
// z = (b - a) / sqrt(se_a^2 + se_b^2). For tails (p99), where the U test says nothing.
QuantileTestResult quantile_difference(const QuantileInterval& a, const QuantileInterval& b);

}  // namespace fabperf
