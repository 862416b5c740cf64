// FigureMatrix: one test's figure for every (client, server) pair of ranks, 4 bytes a cell, with
// what went wrong on the pairs that failed and the values of pairs re-measured alone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

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

class FigureMatrix {
 public:
  explicit FigureMatrix(int ranks);

  int ranks() const { return ranks_; }
  // Row = client rank, column = server rank.
  void set(int client, int server, double value);
  std::optional<double> get(int client, int server) const;
  bool measured(int client, int server) const { return get(client, server).has_value(); }
  // A pair whose measurement failed while both ranks were alive: a broken link. The first
  // kMaxErrorTexts errors keep their text; every failure keeps its cell marked.
  void fail(int client, int server, const std::string& error);
  bool failed(int client, int server) const;
  const std::string* error(int client, int server) const;
  void set_retest(int client, int server, double value);
  std::optional<double> retest(int client, int server) const;
  // Pairs measured under host noise (stats/host_noise.h): shown as such, retested first.
  void set_noisy(int client, int server, bool noisy);
  bool noisy(int client, int server) const { return noisy_.count(key(client, server)) > 0; }
  const std::unordered_set<uint64_t>& noisy_cells() const { return noisy_; }
  std::pair<int, int> pair_of(uint64_t cell) const {
    return {static_cast<int>(cell / static_cast<uint64_t>(ranks_)),
            static_cast<int>(cell % static_cast<uint64_t>(ranks_))};
  }
  uint64_t measured_count() const { return measured_; }
  uint64_t failed_count() const { return failed_; }
  // Cells in memory: 4 bytes each, N x N.
  size_t bytes() const { return cells_.size() * sizeof(float); }

  static constexpr size_t kMaxErrorTexts = 100000;

 private:
  uint64_t key(int client, int server) const {
    return static_cast<uint64_t>(client) * static_cast<uint64_t>(ranks_) +
           static_cast<uint64_t>(server);
  }

  int ranks_;
  std::vector<float> cells_;  // NaN: not measured; -infinity: failed
  uint64_t measured_ = 0;
  uint64_t failed_ = 0;
  std::unordered_map<uint64_t, std::string> errors_;
  std::unordered_map<uint64_t, float> retests_;
  std::unordered_set<uint64_t> noisy_;
};

}  // namespace fabperf::cluster
