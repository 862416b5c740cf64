// Tests of the comparison statistics: tallies from histograms, the Mann-Whitney U test (exact,
// with ties, over histogram buckets) and order-statistic intervals for quantiles.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "stats/histogram.h"
#include "stats/quantile_ci.h"
#include "stats/rank_test.h"
#include "stats/tally.h"

namespace fabperf {
namespace {

// U of `a` the slow way: every pair, a tie counting one half.
double brute_u(const std::vector<double>& a, const std::vector<double>& b) {
  double u = 0;
  for (double x : a) {
    for (double y : b) u += x > y ? 1 : (x == y ? 0.5 : 0);
  }
  return u;
}

TEST(Tally, FromValuesAndHistogramAgreeWhereBucketsAreExact) {
  const std::vector<double> values = {5, 3, 3, 900, 7, 3};
  const Tally t = Tally::of_values(values);
  ASSERT_EQ(t.entries().size(), 4u);
  EXPECT_EQ(t.count(), 6u);
  EXPECT_EQ(t.entries()[0].value, 3);
  EXPECT_EQ(t.entries()[0].count, 3u);
  EXPECT_EQ(t.at_rank(1), 3);
  EXPECT_EQ(t.at_rank(4), 5);
  EXPECT_EQ(t.at_rank(6), 900);
  EXPECT_EQ(t.at_percentile(50), 3);  // rank 3 of 6

  Histogram h;
  for (double v : values) h.record(static_cast<uint64_t>(v));
  const Tally th = Tally::of_histogram(h, 0.5);
  ASSERT_EQ(th.entries().size(), 4u);
  EXPECT_EQ(th.entries()[3].value, 450);  // scaled as the report's figures are
  EXPECT_EQ(th.at_percentile(50), 1.5);
  EXPECT_TRUE(Tally::of_histogram(h, -1).empty());
  EXPECT_EQ(Tally::of_values({NAN, INFINITY, 1}).count(), 1u);
}

TEST(MannWhitney, ExactWithoutTies) {
  const RankTestResult r =
      mann_whitney(Tally::of_values({1, 2, 3, 4, 5}), Tally::of_values({6, 7, 8, 9, 10}));
  EXPECT_TRUE(r.exact);
  EXPECT_EQ(r.u, 0);
  EXPECT_NEAR(r.p, 2.0 / 252, 1e-12);  // the one most extreme ordering of C(10, 5), both sides
  // Interleaved: nothing to see.
  const RankTestResult same =
      mann_whitney(Tally::of_values({1, 4, 5, 8}), Tally::of_values({2, 3, 6, 7}));
  EXPECT_EQ(same.u, 8);
  EXPECT_EQ(same.p, 1);
  // Three repetitions each can never reach 0.05: benchstat's reason to ask for more.
  const RankTestResult three =
      mann_whitney(Tally::of_values({1, 2, 3}), Tally::of_values({7, 8, 9}));
  EXPECT_NEAR(three.p, 0.1, 1e-12);
}

TEST(MannWhitney, TiesTakeMidranksAndShrinkTheVariance) {
  // By hand: U = 3 of 16 pairs; tie groups of 3 at 2 and at 3; var = 16/12 (9 - 48/56).
  const RankTestResult r =
      mann_whitney(Tally::of_values({1, 2, 2, 3}), Tally::of_values({2, 3, 3, 4}));
  EXPECT_FALSE(r.exact);
  EXPECT_EQ(r.u, 3);
  EXPECT_NEAR(r.z, -1.365698202000489, 1e-9);
  EXPECT_NEAR(r.p, 0.17203370892182296, 1e-9);
  // All one value: no evidence either way, and no division by a zero variance.
  const RankTestResult flat = mann_whitney(Tally::of_values({4, 4, 4}), Tally::of_values({4, 4}));
  EXPECT_EQ(flat.p, 1);
  EXPECT_EQ(mann_whitney(Tally(), Tally::of_values({1})).p, 1);
}

TEST(MannWhitney, OverHistogramsEqualsOverTheSamples) {
  // Values below 2048 have a bucket each, so the histogram's tally is the sample's: the same
  // U, ties and all, from bucket counts as from a pairwise count.
  std::mt19937_64 rng(7);
  std::vector<double> a, b;
  Histogram ha, hb;
  for (int i = 0; i < 3000; ++i) {
    const auto x = static_cast<uint64_t>(std::geometric_distribution<int>(0.05)(rng) + 100);
    const auto y = static_cast<uint64_t>(std::geometric_distribution<int>(0.05)(rng) + 101);
    a.push_back(static_cast<double>(x));
    b.push_back(static_cast<double>(y));
    ha.record(x);
    hb.record(y);
  }
  const RankTestResult from_h =
      mann_whitney(Tally::of_histogram(ha, 1), Tally::of_histogram(hb, 1));
  const RankTestResult from_v = mann_whitney(Tally::of_values(a), Tally::of_values(b));
  EXPECT_EQ(from_h.u, brute_u(a, b));
  EXPECT_EQ(from_h.u, from_v.u);
  EXPECT_EQ(from_h.p, from_v.p);
  EXPECT_LT(from_h.p, 0.05);  // a shift of 1 in a mean of 120, over 3000 samples a side
  // The same histogram against itself: U at its mean, p = 1.
  EXPECT_EQ(mann_whitney(Tally::of_histogram(ha, 1), Tally::of_histogram(ha, 1)).p, 1);
}

TEST(MannWhitney, NormalHelpers) {
  EXPECT_NEAR(normal_cdf(1.959963984540054), 0.975, 1e-12);
  EXPECT_NEAR(normal_quantile(0.975), 1.959963984540054, 1e-9);
  EXPECT_NEAR(normal_quantile(0.5), 0, 1e-12);
  EXPECT_TRUE(std::isinf(normal_quantile(0)));
}

TEST(QuantileInterval, SmallSamplesUseExactBinomialRanks) {
  // n = 10: the textbook 95% interval for a median is (X(2), X(9)), covering 1002/1024.
  const Tally ten = Tally::of_values({1, 2, 3, 4, 5, 6, 7, 8, 9, 10});
  const QuantileInterval m = quantile_interval(ten, 50, 0.95);
  EXPECT_EQ(m.value, 5);
  EXPECT_EQ(m.lo_rank, 2u);
  EXPECT_EQ(m.hi_rank, 9u);
  EXPECT_EQ(m.lo, 2);
  EXPECT_EQ(m.hi, 9);
  EXPECT_NEAR(m.confidence, 1002.0 / 1024, 1e-12);
  // n = 5 cannot reach 95%: the whole range, which covers 1 - 2/32.
  const QuantileInterval five = quantile_interval(Tally::of_values({3, 1, 4, 1.5, 9}), 50, 0.95);
  EXPECT_EQ(five.lo, 1);
  EXPECT_EQ(five.hi, 9);
  EXPECT_NEAR(five.confidence, 1 - 2.0 / 32, 1e-12);
  EXPECT_EQ(quantile_interval(Tally(), 50, 0.95).n, 0u);
}

TEST(QuantileInterval, LargeSamplesCoverAtTheirLevel) {
  // 400 samples of 5000 exponential values (rate 1): the true median is ln 2 and the true
  // p99 ln 100. About 95% of the intervals must hold them; 90-99% bounds chance for 400.
  std::mt19937_64 rng(11);
  std::exponential_distribution<double> e(1);
  int median_hits = 0, p99_hits = 0;
  constexpr int kTrials = 400;
  for (int t = 0; t < kTrials; ++t) {
    std::vector<double> v(5000);
    for (double& x : v) x = e(rng);
    const Tally s = Tally::of_values(v);
    const QuantileInterval m = quantile_interval(s, 50, 0.95);
    const QuantileInterval p = quantile_interval(s, 99, 0.95);
    median_hits += m.lo <= std::log(2.0) && std::log(2.0) <= m.hi;
    p99_hits += p.lo <= std::log(100.0) && std::log(100.0) <= p.hi;
    ASSERT_LE(m.lo, m.value);
    ASSERT_GE(m.hi, m.value);
  }
  EXPECT_GE(median_hits, kTrials * 90 / 100);
  EXPECT_LE(median_hits, kTrials * 99 / 100);
  EXPECT_GE(p99_hits, kTrials * 90 / 100);
  EXPECT_LE(p99_hits, kTrials * 99 / 100);
}

TEST(QuantileInterval, FromAHistogramReadsBucketValues) {
  Histogram h;
  for (uint64_t v = 1000; v < 3000; ++v) h.record(v * 10);  // 10 us to 30 us
  const Tally t = Tally::of_histogram(h, 1);
  const QuantileInterval m = quantile_interval(t, 50, 0.95);
  // The rank rule is the histogram's own: the interval's centre is its p50.
  EXPECT_EQ(m.value, static_cast<double>(h.value_at_percentile(50)));
  EXPECT_LT(m.lo, m.value);
  EXPECT_GT(m.hi, m.value);
  EXPECT_LT((m.hi - m.lo) / m.value, 0.05);  // 2000 samples: a few percent wide
}

TEST(QuantileDifference, SameSampleIsNotADifferenceAShiftIs) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> n(100, 5);
  std::vector<double> a(2000), b(2000);
  for (double& x : a) x = n(rng);
  for (double& x : b) x = n(rng) * 1.05;
  const QuantileInterval ia = quantile_interval(Tally::of_values(a), 99, 0.95);
  const QuantileInterval ib = quantile_interval(Tally::of_values(b), 99, 0.95);
  EXPECT_EQ(quantile_difference(ia, ia).p, 1);
  EXPECT_LT(quantile_difference(ia, ib).p, 0.001);
  EXPECT_GT(quantile_difference(ia, ib).z, 0);
  // Two intervals of width 0 (every sample in one bucket): equal or not, nothing between.
  QuantileInterval exact{.value = 5, .lo = 5, .hi = 5, .confidence = 0.95, .n = 100};
  QuantileInterval other = exact;
  other.value = other.lo = other.hi = 6;
  EXPECT_EQ(quantile_difference(exact, exact).p, 1);
  EXPECT_EQ(quantile_difference(exact, other).p, 0);
}

}  // namespace
}  // namespace fabperf
