// Tests for Histogram: bucket layout, percentile accuracy, merging and the validated JSON form.
#include "stats/histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace fabperf {
namespace {

constexpr double kMaxRelativeError = 0.001;

// The percentile Histogram promises to approximate: the sample at the same 1-based rank.
uint64_t ExactPercentile(const std::vector<uint64_t>& sorted, double p) {
  const uint64_t rank = Histogram::percentile_rank(p, sorted.size());
  return sorted[rank - 1];
}

void ExpectPercentilesMatch(std::vector<uint64_t> samples, const std::string& name) {
  Histogram h;
  for (uint64_t v : samples) h.record(v);
  std::sort(samples.begin(), samples.end());
  ASSERT_EQ(h.count(), samples.size());
  for (double p : {0.0, 0.1, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 99.999, 100.0}) {
    const uint64_t exact = ExactPercentile(samples, p);
    const uint64_t got = h.value_at_percentile(p);
    if (exact == 0) {
      EXPECT_EQ(got, 0u) << name << " p" << p;
      continue;
    }
    const double err = std::fabs(static_cast<double>(got) - static_cast<double>(exact)) /
                       static_cast<double>(exact);
    EXPECT_LE(err, kMaxRelativeError) << name << " p" << p << " exact " << exact << " got " << got;
  }
}

TEST(HistogramTest, EmptyReportsZero) {
  Histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.value_at_percentile(50), 0u);
  EXPECT_EQ(h.value_at_percentile(0), 0u);
  EXPECT_EQ(h.value_at_percentile(100), 0u);
}

TEST(HistogramTest, PercentileRankRule) {
  EXPECT_EQ(Histogram::percentile_rank(50, 0), 0u);
  EXPECT_EQ(Histogram::percentile_rank(50, 10), 5u);
  EXPECT_EQ(Histogram::percentile_rank(50, 3), 2u);
  EXPECT_EQ(Histogram::percentile_rank(99.9, 1000), 999u);
  EXPECT_EQ(Histogram::percentile_rank(99.99, 10000), 9999u);
  EXPECT_EQ(Histogram::percentile_rank(99.9, 1001), 1000u);
  EXPECT_EQ(Histogram::percentile_rank(0, 7), 1u);
  EXPECT_EQ(Histogram::percentile_rank(-3, 7), 1u);
  EXPECT_EQ(Histogram::percentile_rank(100, 7), 7u);
  EXPECT_EQ(Histogram::percentile_rank(250, 7), 7u);
  EXPECT_EQ(Histogram::percentile_rank(std::nan(""), 7), 1u);
}

TEST(HistogramTest, SmallValuesAreExact) {
  Histogram h;
  for (uint64_t v = 0; v < 2 * Histogram::kSubBucketCount; ++v) {
    EXPECT_EQ(Histogram::bucket_index(v), v);
    EXPECT_EQ(Histogram::bucket_value(v), v);
    h.record(v);
  }
  std::vector<uint64_t> sorted(2 * Histogram::kSubBucketCount);
  for (size_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
  for (double p : {0.0, 1.0, 33.3, 50.0, 99.0, 100.0}) {
    EXPECT_EQ(h.value_at_percentile(p), ExactPercentile(sorted, p)) << p;
  }
}

TEST(HistogramTest, BucketLayoutIsConsistent) {
  std::mt19937_64 rng(1);
  std::vector<uint64_t> probes = {0,
                                  1,
                                  2047,
                                  2048,
                                  2049,
                                  4095,
                                  4096,
                                  Histogram::kMaxTrackable,
                                  Histogram::kMaxTrackable - 1,
                                  3600ull * 1000000000ull};
  for (int i = 0; i < 100000; ++i) probes.push_back(rng() >> (rng() % 64));
  for (uint64_t v : probes) {
    if (v > Histogram::kMaxTrackable) continue;
    const size_t i = Histogram::bucket_index(v);
    ASSERT_LT(i, Histogram::kBucketCount) << v;
    const uint64_t lower = Histogram::bucket_lower(i);
    const uint64_t width = Histogram::bucket_width(i);
    EXPECT_LE(lower, v);
    EXPECT_LT(v - lower, width) << v;
    // The width bound is what makes the midpoint within 0.05% of anything in the bucket.
    EXPECT_LE(static_cast<double>(width), std::max(1.0, static_cast<double>(lower) / 1024.0)) << v;
  }
  // Adjacent buckets tile the range with no gap or overlap.
  for (size_t i = 0; i + 1 < Histogram::kBucketCount; ++i) {
    ASSERT_EQ(Histogram::bucket_lower(i) + Histogram::bucket_width(i),
              Histogram::bucket_lower(i + 1))
        << i;
  }
  EXPECT_EQ(Histogram::bucket_index(Histogram::kMaxTrackable), Histogram::kBucketCount - 1);
  // An hour in ns is inside the unclamped range.
  EXPECT_LT(3600ull * 1000000000ull, Histogram::kMaxTrackable);
}

TEST(HistogramTest, HugeValuesClampIntoTopBucket) {
  Histogram h;
  h.record(std::numeric_limits<uint64_t>::max());
  h.record(uint64_t{1} << 50);
  EXPECT_EQ(h.count(), 2u);
  EXPECT_EQ(h.count_at(Histogram::kBucketCount - 1), 2u);
  EXPECT_EQ(h.value_at_percentile(100), Histogram::bucket_value(Histogram::kBucketCount - 1));
}

TEST(HistogramTest, UniformMatchesExactPercentiles) {
  std::mt19937_64 rng(42);
  std::uniform_int_distribution<uint64_t> dist(1, 1000000);
  std::vector<uint64_t> v(200000);
  for (auto& x : v) x = dist(rng);
  ExpectPercentilesMatch(v, "uniform");
}

TEST(HistogramTest, ExponentialMatchesExactPercentiles) {
  std::mt19937_64 rng(7);
  std::exponential_distribution<double> dist(1.0 / 20000.0);
  std::vector<uint64_t> v(200000);
  for (auto& x : v) x = static_cast<uint64_t>(dist(rng));
  ExpectPercentilesMatch(v, "exponential");
}

TEST(HistogramTest, BimodalMatchesExactPercentiles) {
  std::mt19937_64 rng(9);
  std::normal_distribution<double> fast(2000, 100);
  std::normal_distribution<double> slow(500000, 20000);
  std::bernoulli_distribution pick_slow(0.05);
  std::vector<uint64_t> v(200000);
  for (auto& x : v) {
    x = static_cast<uint64_t>(std::max(1.0, pick_slow(rng) ? slow(rng) : fast(rng)));
  }
  ExpectPercentilesMatch(v, "bimodal");
}

TEST(HistogramTest, WideRangeMatchesExactPercentiles) {
  // Log-uniform from 1 ns to 1 hour: every bucket group gets exercised.
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> exponent(0.0, std::log(3600e9));
  std::vector<uint64_t> v(200000);
  for (auto& x : v) x = static_cast<uint64_t>(std::exp(exponent(rng)));
  v.push_back(1);
  v.push_back(3600ull * 1000000000ull);
  ExpectPercentilesMatch(v, "wide");
}

TEST(HistogramTest, RecordNEqualsRepeatedRecord) {
  Histogram a;
  Histogram b;
  a.record_n(123456, 5);
  a.record_n(7, 0);
  for (int i = 0; i < 5; ++i) b.record(123456);
  EXPECT_EQ(a.count(), 5u);
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) ASSERT_EQ(a.count_at(i), b.count_at(i));
}

TEST(HistogramTest, MergeEqualsRecordingAllInOne) {
  std::mt19937_64 rng(5);
  std::exponential_distribution<double> dist(1.0 / 50000.0);
  Histogram all;
  Histogram parts[3];
  for (int i = 0; i < 90000; ++i) {
    const uint64_t v = static_cast<uint64_t>(dist(rng));
    all.record(v);
    parts[i % 3].record(v);
  }
  Histogram merged;
  for (const Histogram& p : parts) merged.merge(p);
  EXPECT_EQ(merged.count(), all.count());
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    ASSERT_EQ(merged.count_at(i), all.count_at(i)) << i;
  }
  for (double p : {1.0, 50.0, 99.0, 99.99}) {
    EXPECT_EQ(merged.value_at_percentile(p), all.value_at_percentile(p));
  }
}

TEST(HistogramTest, ResetEmpties) {
  Histogram h;
  h.record(5);
  h.record(1000000);
  h.reset();
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.count_at(5), 0u);
  EXPECT_EQ(h.value_at_percentile(100), 0u);
  // A moved-from histogram becomes usable again after reset().
  Histogram moved = std::move(h);
  h.reset();
  h.record(9);
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(moved.count(), 0u);
}

TEST(HistogramTest, JsonRoundTrip) {
  std::mt19937_64 rng(3);
  Histogram h;
  for (int i = 0; i < 10000; ++i) h.record(rng() >> (20 + rng() % 44));
  h.record(std::numeric_limits<uint64_t>::max());
  const nlohmann::json j = h.to_json();
  EXPECT_EQ(j["sub_bucket_bits"], Histogram::kSubBucketBits);
  const Result<Histogram> back = Histogram::from_json(nlohmann::json::parse(j.dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->count(), h.count());
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) ASSERT_EQ(back->count_at(i), h.count_at(i));

  const Result<Histogram> empty = Histogram::from_json(Histogram().to_json());
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->count(), 0u);
}

TEST(HistogramTest, JsonIsSparse) {
  Histogram h;
  h.record(10);
  h.record(10);
  h.record(5000);
  const nlohmann::json j = h.to_json();
  ASSERT_EQ(j["counts"].size(), 2u);
  EXPECT_EQ(j["counts"][0], nlohmann::json({10, 2}));
  EXPECT_EQ(j["count"], 3);
}

TEST(HistogramTest, FromJsonRejectsGarbage) {
  const nlohmann::json good = nlohmann::json::parse(
      R"({"sub_bucket_bits":10,"max_bits":43,"count":3,"counts":[[1,1],[2000,2]]})");
  ASSERT_TRUE(Histogram::from_json(good).ok());

  auto with = [&](const char* key, nlohmann::json value) {
    nlohmann::json j = good;
    j[key] = std::move(value);
    return j;
  };
  auto without = [&](const char* key) {
    nlohmann::json j = good;
    j.erase(key);
    return j;
  };
  const std::vector<nlohmann::json> bad = {
      nlohmann::json(),
      nlohmann::json(42),
      nlohmann::json("histogram"),
      nlohmann::json::array(),
      without("sub_bucket_bits"),
      without("max_bits"),
      without("count"),
      without("counts"),
      with("sub_bucket_bits", 11),
      with("sub_bucket_bits", "10"),
      with("sub_bucket_bits", 10.0),
      with("max_bits", 64),
      with("count", -3),
      with("count", 4),
      with("count", "3"),
      with("counts", "lots"),
      with("counts", nlohmann::json::object()),
      with("counts", nlohmann::json::parse(R"([[1,1],[2000,2],[5]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[2000,2,7]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],["2000",2]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[2000,"2"]])")),
      with("counts", nlohmann::json::parse(R"([[1,4],[2000,-1]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[2000,2.0]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[-2000,2]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[1e18,2]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[18446744073709551615,2]])")),
      with("counts", nlohmann::json::array({nlohmann::json::array({1, 1}),
                                            nlohmann::json::array({Histogram::kBucketCount, 2})})),
      with("counts", nlohmann::json::parse(R"([[2000,2],[1,1]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],[1,2]])")),
      with("counts", nlohmann::json::parse(R"([[1,1],null])")),
      with("counts", nlohmann::json::parse(R"({"1":1})")),
  };
  for (const nlohmann::json& j : bad) {
    const Result<Histogram> r = Histogram::from_json(j);
    EXPECT_FALSE(r.ok()) << j.dump();
    if (!r.ok()) {
      EXPECT_FALSE(r.status().message().empty());
    }
  }

  // Counts whose sum wraps must not be accepted as a small total.
  nlohmann::json overflow = good;
  overflow["counts"] = nlohmann::json::array({nlohmann::json::array({1, uint64_t{1} << 63}),
                                              nlohmann::json::array({2, uint64_t{1} << 63}),
                                              nlohmann::json::array({3, 3})});
  overflow["count"] = 3;
  EXPECT_FALSE(Histogram::from_json(overflow).ok());
}

TEST(HistogramTest, FromJsonAcceptsSignedIntegersBuiltInCode) {
  // json built from int literals holds number_integer, not number_unsigned.
  nlohmann::json j = {{"sub_bucket_bits", 10}, {"max_bits", 43}, {"count", 1}};
  j["counts"] = nlohmann::json::array({nlohmann::json::array({int64_t{5}, int64_t{1}})});
  const Result<Histogram> r = Histogram::from_json(j);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->value_at_percentile(50), 5u);
}

}  // namespace
}  // namespace fabperf
