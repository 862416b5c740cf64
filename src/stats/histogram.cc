// Histogram: bucket layout, percentile walk and the validated JSON wire form.
#include "stats/histogram.h"

#include <cmath>
#include <string>

#include "core/json_numbers.h"

namespace fabperf {

namespace {

Status json_error(const std::string& what) { return Status::failed("histogram json: " + what); }

}  // namespace

Histogram::Histogram() : counts_(kBucketCount, 0) {}

uint64_t Histogram::bucket_lower(size_t index) {
  // Inverse of bucket_index: the first two sub-bucket ranges share shift 0.
  const size_t group = index >> kSubBucketBits;
  const int shift = group == 0 ? 0 : static_cast<int>(group) - 1;
  return static_cast<uint64_t>(index - (static_cast<size_t>(shift) << kSubBucketBits)) << shift;
}

uint64_t Histogram::bucket_width(size_t index) {
  const size_t group = index >> kSubBucketBits;
  const int shift = group == 0 ? 0 : static_cast<int>(group) - 1;
  return uint64_t{1} << shift;
}

void Histogram::merge(const Histogram& other) {
  if (counts_.size() != kBucketCount) counts_.assign(kBucketCount, 0);
  if (other.counts_.size() != kBucketCount) return;  // moved-from: nothing to add
  for (size_t i = 0; i < kBucketCount; ++i) counts_[i] += other.counts_[i];
  total_ += other.total_;
}

void Histogram::reset() {
  counts_.assign(kBucketCount, 0);
  total_ = 0;
}

uint64_t Histogram::percentile_rank(double p, uint64_t count) {
  if (count == 0) return 0;
  if (!(p > 0)) return 1;  // also catches NaN
  if (p >= 100) return count;
  const double exact = p * static_cast<double>(count) / 100.0;
  // p is usually a decimal like 99.9 that double cannot hold exactly; without the nudge
  // 99.9% of 1000 could come out as 999.0000000000001 and select rank 1000.
  const double r = std::ceil(exact - exact * 1e-12);
  if (r < 1) return 1;
  if (r >= static_cast<double>(count)) return count;
  return static_cast<uint64_t>(r);
}

uint64_t Histogram::value_at_percentile(double p) const {
  const uint64_t rank = percentile_rank(p, total_);
  if (rank == 0 || counts_.size() != kBucketCount) return 0;
  uint64_t seen = 0;
  for (size_t i = 0; i < kBucketCount; ++i) {
    seen += counts_[i];
    if (seen >= rank) return bucket_value(i);
  }
  return bucket_value(kBucketCount - 1);  // unreachable while total_ matches the buckets
}

nlohmann::json Histogram::to_json() const {
  nlohmann::json pairs = nlohmann::json::array();
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) pairs.push_back({static_cast<uint64_t>(i), counts_[i]});
  }
  return {{"sub_bucket_bits", kSubBucketBits},
          {"max_bits", kMaxBits},
          {"count", total_},
          {"counts", std::move(pairs)}};
}

Result<Histogram> Histogram::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return json_error("not an object");
  for (const char* key : {"sub_bucket_bits", "max_bits", "count", "counts"}) {
    if (!j.contains(key)) return json_error(std::string("missing \"") + key + "\"");
  }
  uint64_t bits = 0;
  uint64_t max_bits = 0;
  if (!json_to_u64(j["sub_bucket_bits"], &bits) || bits != kSubBucketBits ||
      !json_to_u64(j["max_bits"], &max_bits) || max_bits != kMaxBits) {
    return json_error("layout mismatch (want sub_bucket_bits " + std::to_string(kSubBucketBits) +
                      ", max_bits " + std::to_string(kMaxBits) + ")");
  }
  uint64_t declared = 0;
  if (!json_to_u64(j["count"], &declared)) {
    return json_error("\"count\" is not a non-negative integer");
  }
  const nlohmann::json& pairs = j["counts"];
  if (!pairs.is_array()) return json_error("\"counts\" is not an array");
  // Strictly increasing indexes bound the array by kBucketCount before anything is stored.
  if (pairs.size() > kBucketCount) return json_error("\"counts\" has too many entries");

  Histogram h;
  uint64_t sum = 0;
  bool first = true;
  uint64_t last_index = 0;
  for (const nlohmann::json& pair : pairs) {
    uint64_t index = 0;
    uint64_t n = 0;
    if (!pair.is_array() || pair.size() != 2 || !json_to_u64(pair[0], &index) ||
        !json_to_u64(pair[1], &n)) {
      return json_error("\"counts\" entries must be [index, count] with non-negative integers");
    }
    if (index >= kBucketCount) {
      return json_error("bucket index " + std::to_string(index) + " out of range");
    }
    if (!first && index <= last_index) return json_error("bucket indexes not strictly increasing");
    if (__builtin_add_overflow(sum, n, &sum)) return json_error("counts overflow");
    h.counts_[index] = n;
    last_index = index;
    first = false;
  }
  if (sum != declared) return json_error("\"count\" does not match the bucket counts");
  h.total_ = sum;
  return h;
}

}  // namespace fabperf
