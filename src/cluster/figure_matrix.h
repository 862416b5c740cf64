// FigureMatrix: one test's figure for the (client, server) pairs of ranks that were measured,
// with what went wrong on the pairs that failed and the values of pairs re-measured alone.
// Stored as a full N x N grid, one cell per unordered pair (a triangle, for patterns that
// measure each pair once), or sparsely (adaptive and file patterns measure few pairs), so
// rank 0 holds N^2 floats only when it measures N^2 pairs.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cluster/worse_log.h"
#include "engine/test_result.h"
#include "engine/test_spec.h"

namespace fabperf::cluster {

enum class Better { kLower, kHigher };

// The figures a matrix can hold, one per test kind.
enum class FigureKind { kLatencyP50, kRecvBandwidth, kMsgRate };

// Which figure of a test's result fills its matrix. Reports name it by its path in a run's
// JSON result (report/json_report.cc), so a matrix and a pair run's --json name it alike.
struct FigureDef {
  FigureKind kind = FigureKind::kLatencyP50;
  std::string path;  // "latency_ns.p50", "bandwidth.recv_Bps", "msg_rate"
  std::string unit;  // "ns", "B/s", "msg/s"
  Better better = Better::kLower;
  // The figure does not depend on which side is the client (a round trip, both directions at
  // once): a value measured one way may be shown the other way too.
  bool symmetric = false;
};

// By test kind: latency p50, the bandwidth that arrived, or the message rate.
FigureDef figure_for(const TestSpec& spec);

// The figure in a run's result; nullopt when the run did not produce it (or not finite).
// Latency's p50 is there when the run's percentiles included 50.
std::optional<double> figure_value(const TestResult& result, const FigureDef& figure);

enum class MatrixLayout {
  kSquare,    // N x N floats: every ordered pair
  kTriangle,  // N(N-1)/2 floats and a direction bit: each unordered pair once
  kSparse,    // a hash of the measured pairs
};
const char* layout_name(MatrixLayout layout);

class FigureMatrix {
 public:
  explicit FigureMatrix(int ranks, MatrixLayout layout = MatrixLayout::kSquare);
  // The layout for a job: sparse when the plan measures under a quarter of the pairs, a
  // triangle when it measures each unordered pair once, else square.
  static MatrixLayout layout_for(int ranks, uint64_t pairs_planned, bool ordered);

  int ranks() const { return ranks_; }
  MatrixLayout layout() const { return layout_; }
  // Row = client rank, column = server rank. A triangle keeps one direction per pair: the
  // last one set.
  void set(int client, int server, double value);
  // A measurement of a pair measured before keeps the better of the two values and counts
  // it; a value worse than the kept one by more than kWorseBy is remembered too (a link
  // that is slow in some of its runs: flapping), for at most worse_log_limit() pairs, and for
  // as many more pairs whose first such value is kFlapWorseBy off: a job's jitter alone puts
  // a run 10% off the best in a third of its pairs (15 million at 10,000 ranks), and a
  // flapping link's evidence must not be crowded out by them.
  void record(int client, int server, double value, Better better);
  // The pairs the log of worse runs takes a value a little worse (kWorseBy) for: kMaxWorseLogged
  // (tests set it lower).
  size_t worse_log_limit() const { return worse_limit_; }
  void set_worse_log_limit(size_t pairs) { worse_limit_ = pairs; }
  std::optional<double> get(int client, int server) const;
  bool measured(int client, int server) const { return get(client, server).has_value(); }
  // A pair whose measurement failed while both ranks were alive: a broken link. The first
  // kMaxErrorTexts errors keep their text; every failure keeps its cell marked.
  void fail(int client, int server, const std::string& error);
  bool failed(int client, int server) const;
  const std::string* error(int client, int server) const;
  // A pair may be re-measured alone more than once (each value kept, up to kMaxRetests);
  // retest() is the last of them.
  void set_retest(int client, int server, double value);
  // Inline: the fit asks it of every pair in every sweep, most of them told no by the filter
  // (out of line, the std::optional came back through memory and stalled the caller).
  std::optional<double> retest(int client, int server) const {
    if (!retest_keys_.may_hold(key(client, server))) return std::nullopt;
    const std::vector<float>* values = retests(client, server);
    if (values == nullptr || values->empty()) return std::nullopt;
    return values->back();
  }
  const std::vector<float>* retests(int client, int server) const;
  uint64_t measured_count() const { return measured_; }
  uint64_t failed_count() const { return failed_; }
  // Unordered pairs with a value or a failure, each once.
  uint64_t pairs_count() const { return pairs_; }
  // How many times the pair was measured (1 when once, 0 when never), and the values worse
  // than the kept one by kWorseBy: each as fn(value), in no particular order, or all of them
  // (empty: none).
  uint32_t measurements(int client, int server) const;
  // Both directions together (a triangle holds them in one cell).
  uint32_t pair_measurements(int a, int b) const {
    return layout_ == MatrixLayout::kTriangle ? measurements(a, b)
                                              : measurements(a, b) + measurements(b, a);
  }
  template <typename Fn>
  void for_each_worse(int client, int server, Fn fn) const {
    const uint64_t slot = repeat_slot(client, server);
    if (worse_keys_.may_hold(slot)) worse_.for_each(slot, fn);
  }
  std::vector<float> worse_values(int client, int server) const;
  uint64_t repeats_total() const { return repeats_; }
  // The spread (a robust standard deviation, of the log) of a single run about its pair's
  // own level: from each pair's first two runs, whose difference has the pair's level and
  // its contention (the same round in every pass) taken out. 0 until kMinRepeatPairs pairs
  // were measured twice.
  double run_spread() const;
  // Bytes held for the cells and the log of worse runs (not the error texts and retests).
  size_t bytes() const;

  // Every stored cell as fn(client, server, value), value nullopt when it failed. Dense
  // layouts go row by row; sparse in no particular order.
  template <typename Fn>
  void for_each(Fn fn) const;
  // The stored cells with `rank` at either end, as fn(client, server, value).
  template <typename Fn>
  void for_each_of(int rank, Fn fn) const;
  // Every stored cell, by client then server.
  template <typename Fn>
  void for_each_sorted(Fn fn) const;
  // Every value of a pair re-measured alone, as fn(client, server, value).
  template <typename Fn>
  void for_each_retest(Fn fn) const {
    for (const auto& [k, values] : retests_) {
      for (float v : values) {
        fn(static_cast<int>(k / static_cast<uint64_t>(ranks_)),
           static_cast<int>(k % static_cast<uint64_t>(ranks_)), static_cast<double>(v));
      }
    }
  }
  size_t retest_count() const { return retests_.size(); }
  // Pairs measured under host noise (stats/host_noise.h): shown as such, retested first.
  void set_noisy(int client, int server, bool noisy);
  bool noisy(int client, int server) const { return noisy_.count(key(client, server)) > 0; }
  const std::unordered_set<uint64_t>& noisy_cells() const { return noisy_; }
  std::pair<int, int> pair_of(uint64_t cell) const {  // (client, server)
    return {static_cast<int>(cell / static_cast<uint64_t>(ranks_)),
            static_cast<int>(cell % static_cast<uint64_t>(ranks_))};
  }

  static constexpr size_t kMaxErrorTexts = 100000;
  static constexpr size_t kMaxWorseLogged = 1000000;
  static constexpr double kWorseBy = 1.1;
  // As far off the pair's best as a flap is (fabric_findings.h: at least kFlapFactor, 2x, off
  // the pair's expected figure): 1.5x off a best up to 1.33x above that figure. The job's
  // jitter (3% in the model) never reaches it; its outliers do.
  static constexpr double kFlapWorseBy = 1.5;
  static constexpr size_t kMaxRetests = 32;  // kFlapRetests (fabric_findings.h) and more
  static constexpr uint64_t kMinRepeatPairs = 16;
  // The first-repeat differences' histogram: |log| in bins this wide, the last open.
  static constexpr double kGapStep = 0.001;
  static constexpr size_t kGapBins = 1000;

 private:
  uint64_t key(int client, int server) const {
    return static_cast<uint64_t>(client) * static_cast<uint64_t>(ranks_) +
           static_cast<uint64_t>(server);
  }
  // The cell of a pair, and whether (client, server) is the direction stored in it.
  float* cell(int client, int server, bool create);
  const float* cell(int client, int server) const;
  size_t tri(int a, int b) const;
  bool stored_forward(int client, int server) const;
  void note_new(int client, int server);
  uint64_t repeat_slot(int client, int server) const;

  // A bit per hashed key, set for each key a map below holds: most pairs have no retest and
  // no worse run, and are told so without a hash lookup (the fit asks for every pair in every
  // sweep, every wave of retests). 512 KiB, once a key is added.
  class KeyFilter {
   public:
    void add(uint64_t k) {
      if (bits_.empty()) bits_.assign((size_t{1} << kBits) / 64, 0);
      const size_t i = at(k);
      bits_[i / 64] |= uint64_t{1} << (i % 64);
    }
    bool may_hold(uint64_t k) const {
      if (bits_.empty()) return false;
      const size_t i = at(k);
      return (bits_[i / 64] >> (i % 64)) & 1;
    }

   private:
    static constexpr int kBits = 22;
    static size_t at(uint64_t k) {
      return static_cast<size_t>((k * 0x9E3779B97F4A7C15ull) >> (64 - kBits));
    }
    std::vector<uint64_t> bits_;
  };

  int ranks_;
  MatrixLayout layout_;
  std::vector<float> cells_;       // NaN: not measured; -infinity: failed
  std::vector<uint64_t> reverse_;  // triangle: bit set when the cell holds (max, min)
  std::unordered_map<uint64_t, float> sparse_;
  std::vector<std::vector<uint32_t>> peers_;  // sparse: per rank, its peers (bit 31: as server)
  uint64_t measured_ = 0;
  uint64_t failed_ = 0;
  uint64_t pairs_ = 0;
  uint64_t repeats_ = 0;
  std::unordered_map<uint64_t, std::string> errors_;
  std::unordered_map<uint64_t, std::vector<float>> retests_;
  KeyFilter retest_keys_;
  std::vector<uint8_t> counts_;  // dense: repeats per cell (saturating), once any repeat
  std::unordered_map<uint64_t, uint8_t> sparse_counts_;
  WorseLog worse_;
  KeyFilter worse_keys_;
  size_t worse_limit_ = kMaxWorseLogged;
  std::unordered_set<uint64_t> noisy_;
  std::vector<uint32_t> first_gaps_;  // kGapBins once a pair is measured twice
  uint64_t first_gap_count_ = 0;
};

template <typename Fn>
void FigureMatrix::for_each(Fn fn) const {
  auto emit = [&](int a, int b, float v) {
    if (std::isnan(v)) return;
    fn(a, b, std::isinf(v) ? std::optional<double>() : std::optional<double>(v));
  };
  switch (layout_) {
    case MatrixLayout::kSquare:
      for (int a = 0; a < ranks_; ++a) {
        for (int b = 0; b < ranks_; ++b) emit(a, b, cells_[key(a, b)]);
      }
      break;
    case MatrixLayout::kTriangle: {
      size_t i = 0;
      for (int a = 0; a < ranks_; ++a) {
        for (int b = a + 1; b < ranks_; ++b, ++i) {
          if ((reverse_[i / 64] >> (i % 64)) & 1) {
            emit(b, a, cells_[i]);
          } else {
            emit(a, b, cells_[i]);
          }
        }
      }
      break;
    }
    case MatrixLayout::kSparse:
      for (const auto& [k, v] : sparse_) {
        emit(static_cast<int>(k / static_cast<uint64_t>(ranks_)),
             static_cast<int>(k % static_cast<uint64_t>(ranks_)), v);
      }
      break;
  }
}

template <typename Fn>
void FigureMatrix::for_each_of(int rank, Fn fn) const {
  auto visit = [&](int a, int b) {
    const float* c = cell(a, b);
    if (c == nullptr || std::isnan(*c) || !stored_forward(a, b)) return;
    fn(a, b, std::isinf(*c) ? std::optional<double>() : std::optional<double>(*c));
  };
  if (layout_ == MatrixLayout::kSparse) {
    for (uint32_t p : peers_[static_cast<size_t>(rank)]) {
      int peer = static_cast<int>(p & 0x7fffffffu);
      if (p & 0x80000000u) {
        visit(peer, rank);
      } else {
        visit(rank, peer);
      }
    }
    return;
  }
  for (int other = 0; other < ranks_; ++other) {
    if (other == rank) continue;
    visit(rank, other);
    visit(other, rank);
  }
}

template <typename Fn>
void FigureMatrix::for_each_sorted(Fn fn) const {
  if (layout_ != MatrixLayout::kSparse) {
    for (int a = 0; a < ranks_; ++a) {
      for (int b = 0; b < ranks_; ++b) {
        if (a == b) continue;
        const float* c = cell(a, b);
        if (c == nullptr || std::isnan(*c) || !stored_forward(a, b)) continue;
        fn(a, b, std::isinf(*c) ? std::optional<double>() : std::optional<double>(*c));
      }
    }
    return;
  }
  std::vector<uint64_t> keys;
  keys.reserve(sparse_.size());
  for (const auto& kv : sparse_) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  for (uint64_t k : keys) {
    float v = sparse_.at(k);
    if (std::isnan(v)) continue;
    fn(static_cast<int>(k / static_cast<uint64_t>(ranks_)),
       static_cast<int>(k % static_cast<uint64_t>(ranks_)),
       std::isinf(v) ? std::optional<double>() : std::optional<double>(v));
  }
}

}  // namespace fabperf::cluster
