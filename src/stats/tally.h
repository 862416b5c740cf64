// Tally: a sample as (value, count) pairs in increasing order of value, the one form the
// comparison statistics (rank_test.h, quantile_ci.h) read, whether the sample is a latency
// histogram (a count per bucket) or a handful of per-repetition figures (a count of 1 each).
#pragma once

#include <cstdint>
#include <vector>

#include "stats/histogram.h"

namespace fabperf {

// One distinct value and how many samples had it.
struct TallyEntry {
  double value = 0;
  uint64_t count = 0;
};

// Entries strictly increasing in value, every count above 0.
class Tally {
 public:
  Tally() = default;
  // A histogram's non-empty buckets, each at its reported value bucket_value(i) * scale
  // (the value the histogram's percentiles report): every sample of a bucket ties with the
  // others of that bucket, which the statistics over a Tally treat as ties.
  static Tally of_histogram(const Histogram& h, double scale);
  // Plain values (non-finite ones dropped), sorted, equal values merged.
  static Tally of_values(std::vector<double> values);

  const std::vector<TallyEntry>& entries() const { return entries_; }
  uint64_t count() const { return count_; }
  bool empty() const { return count_ == 0; }
  // The value at 1-based rank `rank` of the sorted sample (clamped to [1, count]); 0 if empty.
  double at_rank(uint64_t rank) const;
  // The value percentile p selects, by Histogram::percentile_rank's rule.
  double at_percentile(double p) const;

 private:
  std::vector<TallyEntry> entries_;
  uint64_t count_ = 0;
};

}  // namespace fabperf
