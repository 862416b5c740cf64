// Tests for LatencyRecorder, LatencySummary and the percentile option helpers.
#include "stats/latency.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace fabperf {
namespace {

// True when no number anywhere in j is NaN/Infinity (nlohmann would dump those as null).
bool AllFinite(const nlohmann::json& j) {
  if (j.is_number_float()) return std::isfinite(j.get<double>());
  if (j.is_null()) return false;
  if (j.is_structured()) {
    for (const auto& item : j) {
      if (!AllFinite(item)) return false;
    }
  }
  return true;
}

TEST(PercentileKeyTest, Names) {
  EXPECT_EQ(percentile_key(50), "p50");
  EXPECT_EQ(percentile_key(25), "p25");
  EXPECT_EQ(percentile_key(90), "p90");
  EXPECT_EQ(percentile_key(99.9), "p99_9");
  EXPECT_EQ(percentile_key(99.99), "p99_99");
  EXPECT_EQ(percentile_key(99.999), "p99_999");
  EXPECT_EQ(percentile_key(100), "p100");
  EXPECT_EQ(percentile_key(0.5), "p0_5");
  EXPECT_EQ(percentile_key(0.00001), "p0_00001");
}

TEST(ParsePercentilesTest, Good) {
  Result<std::vector<double>> r = parse_percentiles("50,90,99,99.9");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (std::vector<double>{50, 90, 99, 99.9}));

  r = parse_percentiles(" 99.99 , 50,50, 100");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(*r, (std::vector<double>{50, 99.99, 100}));

  r = parse_percentiles("0.001");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r, (std::vector<double>{0.001}));

  std::string many;
  for (int i = 1; i <= 32; ++i) many += (i > 1 ? "," : "") + std::to_string(i);
  r = parse_percentiles(many);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->size(), 32u);
}

TEST(ParsePercentilesTest, Bad) {
  for (const char* list : {"", " ", "abc", "50,abc", "50,,90", "50,", ",50", "0", "-5", "100.5",
                           "101", "nan", "inf", "50%", "5 0", "+50", "0x10", "1e400"}) {
    const Result<std::vector<double>> r = parse_percentiles(list);
    EXPECT_FALSE(r.ok()) << '"' << list << '"';
    if (!r.ok()) {
      EXPECT_EQ(r.status().code(), Code::kUsage);
      EXPECT_EQ(r.status().message().rfind("--percentiles: ", 0), 0u) << r.status().message();
    }
  }
  const Result<std::vector<double>> r = parse_percentiles("50,abc,90");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "--percentiles: bad percentile \"abc\"");

  std::string many;
  for (int i = 1; i <= 33; ++i) many += (i > 1 ? "," : "") + std::to_string(i);
  EXPECT_FALSE(parse_percentiles(many).ok());
}

TEST(ParsePercentilesTest, Defaults) {
  EXPECT_EQ(default_percentiles(), (std::vector<double>{50, 90, 99, 99.9, 99.99}));
}

TEST(LatencySummaryTest, JsonKeys) {
  LatencySummary s;
  s.samples = 3;
  s.min = 1;
  s.max = 3;
  s.mean = 2;
  s.stddev = 0.5;
  s.percentiles = {{50, 2}, {99.9, 3}, {99.99, 3}};
  const nlohmann::json j = s.to_json();
  EXPECT_EQ(j["samples"], 3);
  EXPECT_EQ(j["min"], 1.0);
  EXPECT_EQ(j["max"], 3.0);
  EXPECT_EQ(j["mean"], 2.0);
  EXPECT_EQ(j["stddev"], 0.5);
  EXPECT_EQ(j["p50"], 2.0);
  EXPECT_EQ(j["p99_9"], 3.0);
  EXPECT_EQ(j["p99_99"], 3.0);

  s.mean = std::nan("");
  s.stddev = INFINITY;
  EXPECT_TRUE(AllFinite(s.to_json()));
}

TEST(LatencyRecorderTest, ZeroSamplesHasNoNaN) {
  LatencyRecorder r;
  const LatencySummary s = r.summarize(default_percentiles());
  EXPECT_EQ(s.samples, 0u);
  EXPECT_EQ(s.min, 0);
  EXPECT_EQ(s.max, 0);
  EXPECT_EQ(s.mean, 0);
  EXPECT_EQ(s.stddev, 0);
  ASSERT_EQ(s.percentiles.size(), 5u);
  for (const auto& [p, v] : s.percentiles) EXPECT_EQ(v, 0) << p;
  const nlohmann::json j = s.to_json();
  EXPECT_TRUE(AllFinite(j)) << j.dump();
  EXPECT_EQ(j["p99_99"], 0.0);
}

TEST(LatencyRecorderTest, OneSample) {
  LatencyRecorder r;
  r.record(123457);
  const LatencySummary s = r.summarize(default_percentiles());
  EXPECT_EQ(s.samples, 1u);
  EXPECT_EQ(s.min, 123457);
  EXPECT_EQ(s.max, 123457);
  EXPECT_EQ(s.mean, 123457);
  EXPECT_EQ(s.stddev, 0);
  // Clamping to the exact [min, max] makes a single sample's percentiles exact.
  for (const auto& [p, v] : s.percentiles) EXPECT_EQ(v, 123457) << p;
  EXPECT_TRUE(AllFinite(s.to_json()));
}

TEST(LatencyRecorderTest, ScaleHalvesEveryFigure) {
  LatencyRecorder r(0.5);
  r.record(1000);
  r.record(3000);
  LatencySummary s = r.summarize({50, 100});
  EXPECT_EQ(s.min, 500);
  EXPECT_EQ(s.max, 1500);
  EXPECT_EQ(s.mean, 1000);
  EXPECT_DOUBLE_EQ(s.stddev, 500);  // population stddev of {1000, 3000} is 1000
  EXPECT_EQ(s.percentiles[0].second, 500);
  EXPECT_EQ(s.percentiles[1].second, 1500);

  r.set_scale(1.0);
  EXPECT_EQ(r.summarize({}).max, 3000);
  r.set_scale(0);  // ignored
  r.set_scale(-1);
  r.set_scale(std::nan(""));
  EXPECT_EQ(r.scale(), 1.0);
  EXPECT_EQ(LatencyRecorder(-2).scale(), 1.0);
}

TEST(LatencyRecorderTest, NoCancellationOnHugeOffset) {
  // Samples 1e12 + small noise: E[x^2] - E[x]^2 in double would lose every digit of a
  // variance around 1e4, because 1e24 has an ulp of about 1.3e8.
  std::mt19937_64 rng(17);
  std::uniform_int_distribution<uint64_t> noise(0, 999);
  std::vector<uint64_t> v(1000000);
  for (auto& x : v) x = 1000000000000ull + noise(rng);
  LatencyRecorder r;
  for (uint64_t x : v) r.record(x);

  double sum = 0;
  for (uint64_t x : v) sum += static_cast<double>(x);
  const double mean = sum / static_cast<double>(v.size());
  double sq = 0;
  for (uint64_t x : v) sq += (static_cast<double>(x) - mean) * (static_cast<double>(x) - mean);
  const double stddev = std::sqrt(sq / static_cast<double>(v.size()));

  const LatencySummary s = r.summarize({});
  EXPECT_NEAR(s.mean, mean, mean * 1e-12);
  EXPECT_NEAR(s.stddev, stddev, stddev * 1e-6);
  EXPECT_GT(stddev, 280);  // uniform 0..999 has stddev ~288.7: the test data is meaningful
  EXPECT_LT(stddev, 300);
}

TEST(LatencyRecorderTest, PercentilesWithinTolerance) {
  std::mt19937_64 rng(23);
  std::lognormal_distribution<double> dist(9, 1.5);
  std::vector<uint64_t> v(100000);
  LatencyRecorder r(0.5);
  for (auto& x : v) {
    x = static_cast<uint64_t>(dist(rng)) + 1;
    r.record(x);
  }
  std::sort(v.begin(), v.end());
  const LatencySummary s = r.summarize(default_percentiles());
  for (const auto& [p, got] : s.percentiles) {
    const double exact = 0.5 * static_cast<double>(v[Histogram::percentile_rank(p, v.size()) - 1]);
    EXPECT_LE(std::fabs(got - exact) / exact, 0.001) << p;
  }
  EXPECT_EQ(s.min, 0.5 * static_cast<double>(v.front()));
  EXPECT_EQ(s.max, 0.5 * static_cast<double>(v.back()));
}

TEST(LatencyRecorderTest, MergeEqualsRecordingAllInOne) {
  std::mt19937_64 rng(31);
  std::exponential_distribution<double> dist(1.0 / 8000.0);
  LatencyRecorder all;
  LatencyRecorder a;
  LatencyRecorder b;
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = 5000000000ull + static_cast<uint64_t>(dist(rng));
    all.record(x);
    (i % 3 == 0 ? a : b).record(x);
  }
  LatencyRecorder merged;
  merged.merge(a);
  merged.merge(LatencyRecorder());  // empty: no effect
  merged.merge(b);
  const LatencySummary want = all.summarize(default_percentiles());
  const LatencySummary got = merged.summarize(default_percentiles());
  EXPECT_EQ(got.samples, want.samples);
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  EXPECT_NEAR(got.mean, want.mean, want.mean * 1e-12);
  EXPECT_NEAR(got.stddev, want.stddev, want.stddev * 1e-9);
  EXPECT_EQ(got.percentiles, want.percentiles);
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    ASSERT_EQ(merged.histogram().count_at(i), all.histogram().count_at(i));
  }
}

TEST(LatencyRecorderTest, MergeScale) {
  LatencyRecorder half(0.5);
  half.record(2000);
  LatencyRecorder empty;
  empty.merge(half);  // nothing recorded here: the measuring side's scale wins
  EXPECT_EQ(empty.scale(), 0.5);
  EXPECT_EQ(empty.summarize({}).max, 1000);

  LatencyRecorder full(1.0);
  full.record(4000);
  full.merge(half);  // raw samples merge; the receiver's scale stays
  EXPECT_EQ(full.scale(), 1.0);
  EXPECT_EQ(full.summarize({}).min, 2000);
  EXPECT_EQ(full.summarize({}).max, 4000);
}

TEST(LatencyRecorderTest, ResetForgetsEverything) {
  LatencyRecorder r;
  r.record(10);
  r.record(1000);
  r.reset();
  EXPECT_EQ(r.count(), 0u);
  r.record(50);
  const LatencySummary s = r.summarize({50});
  EXPECT_EQ(s.min, 50);
  EXPECT_EQ(s.max, 50);
  EXPECT_EQ(s.mean, 50);
}

TEST(LatencyRecorderTest, JsonRoundTrip) {
  std::mt19937_64 rng(41);
  std::exponential_distribution<double> dist(1.0 / 3000.0);
  LatencyRecorder r(0.5);
  for (int i = 0; i < 20000; ++i) r.record(static_cast<uint64_t>(dist(rng)));
  const Result<LatencyRecorder> back =
      LatencyRecorder::from_json(nlohmann::json::parse(r.to_json().dump()));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->scale(), 0.5);
  EXPECT_EQ(back->count(), r.count());
  const LatencySummary want = r.summarize(default_percentiles());
  const LatencySummary got = back->summarize(default_percentiles());
  EXPECT_EQ(got.min, want.min);
  EXPECT_EQ(got.max, want.max);
  EXPECT_EQ(got.mean, want.mean);  // doubles survive dump/parse exactly
  EXPECT_EQ(got.stddev, want.stddev);
  EXPECT_EQ(got.percentiles, want.percentiles);

  const Result<LatencyRecorder> empty = LatencyRecorder::from_json(LatencyRecorder().to_json());
  ASSERT_TRUE(empty.ok()) << empty.status().message();
  EXPECT_EQ(empty->count(), 0u);
  EXPECT_TRUE(AllFinite(empty->summarize(default_percentiles()).to_json()));
}

TEST(LatencyRecorderTest, FromJsonRejectsGarbage) {
  LatencyRecorder r;
  r.record(1000);
  r.record(2000);
  r.record(90000);
  const nlohmann::json good = r.to_json();
  ASSERT_TRUE(LatencyRecorder::from_json(good).ok());

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
  LatencyRecorder other;
  other.record(5);
  const std::vector<nlohmann::json> bad = {
      nlohmann::json(),
      nlohmann::json("recorder"),
      nlohmann::json::array({1, 2}),
      without("scale"),
      without("count"),
      without("min"),
      without("max"),
      without("mean"),
      without("m2"),
      without("histogram"),
      with("scale", 0),
      with("scale", -0.5),
      with("scale", "0.5"),
      with("count", 4),
      with("count", -3),
      with("count", 3.0),
      with("min", -1),
      with("min", 1001),  // values below 2048 have their own bucket, so this disagrees
      with("max", 95000),
      with("min", 3000),
      with("max", 500),
      with("mean", 1e9),
      with("mean", -1),
      with("mean", "31000"),
      with("m2", -1.0),
      with("m2", 1e30),
      with("histogram", "none"),
      with("histogram", other.histogram().to_json()),
      with("histogram", nlohmann::json::parse(R"({"sub_bucket_bits":10,"max_bits":43,"count":3,
                                                   "counts":[[99999999,3]]})")),
  };
  for (const nlohmann::json& j : bad) {
    const Result<LatencyRecorder> back = LatencyRecorder::from_json(j);
    EXPECT_FALSE(back.ok()) << j.dump().substr(0, 300);
  }
}

// Replaces one random node of j with a random value of a random type.
void Mutate(nlohmann::json* j, std::mt19937_64* rng) {
  nlohmann::json* node = j;
  while (node->is_structured() && !node->empty() && (*rng)() % 3 != 0) {
    auto it = node->begin();
    std::advance(it, static_cast<long>((*rng)() % node->size()));
    node = &*it;
  }
  switch ((*rng)() % 9) {
    case 0:
      *node = nullptr;
      break;
    case 1:
      *node = -static_cast<int64_t>((*rng)() % 1000) - 1;
      break;
    case 2:
      *node = (*rng)();
      break;
    case 3:
      *node = static_cast<double>((*rng)() % 1000) / 7.0;
      break;
    case 4:
      *node = "garbage";
      break;
    case 5:
      *node = nlohmann::json::array({(*rng)(), (*rng)() % 3});
      break;
    case 6:
      *node = nlohmann::json::object();
      break;
    case 7:
      *node = (*rng)() % Histogram::kBucketCount;
      break;
    default:
      *node = 1e300;
      break;
  }
}

TEST(LatencyRecorderTest, FromJsonSurvivesRandomMutations) {
  LatencyRecorder r;
  for (uint64_t v : {5u, 900u, 3000u, 3000u, 77777u, 123456789u}) r.record(v);
  const nlohmann::json good = r.to_json();
  std::mt19937_64 rng(99);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    nlohmann::json j = good;
    const int mutations = 1 + static_cast<int>(rng() % 3);
    for (int m = 0; m < mutations; ++m) Mutate(&j, &rng);
    const Result<LatencyRecorder> back = LatencyRecorder::from_json(j);
    if (!back.ok()) continue;
    ++accepted;
    // Whatever got through must still summarize to finite, ordered figures.
    const LatencySummary s = back->summarize(default_percentiles());
    EXPECT_TRUE(AllFinite(s.to_json())) << j.dump();
    EXPECT_LE(s.min, s.max);
    EXPECT_EQ(s.samples, back->histogram().count());
  }
  EXPECT_LT(accepted, 3000);
}

}  // namespace
}  // namespace fabperf
