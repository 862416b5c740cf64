// Tally: histograms and plain values as sorted (value, count) pairs.
#include "stats/tally.h"

#include <algorithm>
#include <cmath>

namespace fabperf {

Tally Tally::of_histogram(const Histogram& h, double scale) {
  Tally t;
  if (!(scale > 0) || !std::isfinite(scale)) return t;
  for (size_t i = 0; i < Histogram::kBucketCount; ++i) {
    const uint64_t n = h.count_at(i);
    if (n == 0) continue;
    // Bucket values strictly increase with the index, so the entries stay sorted and distinct.
    t.entries_.push_back({static_cast<double>(Histogram::bucket_value(i)) * scale, n});
    t.count_ += n;
  }
  return t;
}

Tally Tally::of_values(std::vector<double> values) {
  std::erase_if(values, [](double v) { return !std::isfinite(v); });
  std::sort(values.begin(), values.end());
  Tally t;
  for (double v : values) {
    if (!t.entries_.empty() && t.entries_.back().value == v) {
      ++t.entries_.back().count;
    } else {
      t.entries_.push_back({v, 1});
    }
    ++t.count_;
  }
  return t;
}

double Tally::at_rank(uint64_t rank) const {
  if (count_ == 0) return 0;
  rank = std::clamp<uint64_t>(rank, 1, count_);
  uint64_t seen = 0;
  for (const TallyEntry& e : entries_) {
    seen += e.count;
    if (seen >= rank) return e.value;
  }
  return entries_.back().value;
}

double Tally::at_percentile(double p) const {
  return at_rank(Histogram::percentile_rank(p, count_));
}

}  // namespace fabperf
