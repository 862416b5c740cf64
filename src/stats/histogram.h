// Histogram: a fixed-size, mergeable log-linear histogram of nanosecond values (HDR style).
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/status.h"

namespace fabperf {

// Counts uint64 values in log-linear buckets: every power of two above kSubBucketCount is split
// into kSubBucketCount / 2 equal buckets, so a bucket is never wider than 1/1024 of its lower
// bound (relative error <= 0.05% when reporting the bucket midpoint). Values below
// 2 * kSubBucketCount get one bucket each and are exact. Values at or above 2^kMaxBits (about
// 2.4 hours in ns) land in the top bucket; callers that need the exact maximum keep it
// themselves. All memory is allocated in the constructor, so record() never allocates; a
// moved-from Histogram holds no buckets until reset() or assignment.
class Histogram {
 public:
  static constexpr int kSubBucketBits = 10;
  static constexpr uint64_t kSubBucketCount = uint64_t{1} << kSubBucketBits;
  // Values below 2^kMaxBits are bucketed without clamping; 2^43 ns covers an hour with room.
  static constexpr int kMaxBits = 43;
  static constexpr uint64_t kMaxTrackable = (uint64_t{1} << kMaxBits) - 1;
  static constexpr size_t kBucketCount = static_cast<size_t>(kMaxBits - kSubBucketBits + 1)
                                         << kSubBucketBits;

  Histogram();

  // Branch-free apart from the clamp (a conditional move): one lzcnt, a shift and an add.
  void record(uint64_t v) { record_n(v, 1); }
  void record_n(uint64_t v, uint64_t n) {
    counts_[bucket_index(v)] += n;
    total_ += n;
  }

  void merge(const Histogram& other);
  uint64_t count() const { return total_; }
  void reset();  // also makes a moved-from histogram usable again

  // A value within 0.05% of the sample at rank percentile_rank(p, count()) in sorted order;
  // 0 when empty. p outside [0, 100] is clamped.
  uint64_t value_at_percentile(double p) const;

  // The 1-based rank the percentile p selects among `count` sorted samples: ceil(p/100*count),
  // at least 1. Public so tests and callers computing exact percentiles use the same rule.
  static uint64_t percentile_rank(double p, uint64_t count);

  // Bucket layout, exposed for tests and for validating merged state.
  static size_t bucket_index(uint64_t v) {
    v = v > kMaxTrackable ? kMaxTrackable : v;
    // OR-ing in kSubBucketCount pins the exponent at kSubBucketBits for small values, which
    // makes their shift 0 and the first 2 * kSubBucketCount buckets exact.
    const int exponent = 63 - std::countl_zero(v | kSubBucketCount);
    const int shift = exponent - kSubBucketBits;
    return (static_cast<size_t>(shift) << kSubBucketBits) + static_cast<size_t>(v >> shift);
  }
  static uint64_t bucket_lower(size_t index);
  static uint64_t bucket_width(size_t index);
  // The value reported for a bucket: its midpoint, rounded down.
  static uint64_t bucket_value(size_t index) {
    return bucket_lower(index) + (bucket_width(index) - 1) / 2;
  }
  uint64_t count_at(size_t index) const { return index < kBucketCount ? counts_[index] : 0; }

  // Sparse form: {"sub_bucket_bits":10,"max_bits":43,"count":N,"counts":[[index,count],...]},
  // indexes strictly increasing, only non-empty buckets.
  nlohmann::json to_json() const;
  // Validates everything (this arrives from the peer): layout, types, index range and order,
  // counts that overflow, and "count" against the sum.
  static Result<Histogram> from_json(const nlohmann::json& j);

 private:
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
};

}  // namespace fabperf
