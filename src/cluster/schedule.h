// Who measures whom, round by round: the pairing patterns of --pattern, generated one round at a
// time so a schedule of 10,000 ranks costs memory in proportion to N, not N squared.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabperf::cluster {

// One measurement: `client` runs the test against `server`'s fabperf server.
struct Pair {
  int client;
  int server;
  bool operator==(const Pair&) const = default;
};

enum class PatternKind {
  kAll,       // round-robin tournament: every unordered pair once, N/2 disjoint pairs a round
  kShift,     // mpiGraph's ring shifts: round d, every rank i measures i+d (ordered pairs)
  kSerial,    // one pair a round, every unordered pair once: nothing shares the fabric
  kFile,      // the pairs a file lists
  kAdaptive,  // screen, localise, retest (adaptive_plan.h): chosen round by round, not here
};

struct PatternSpec {
  PatternKind kind = PatternKind::kAll;
  std::string path;          // kFile
  std::string name() const;  // "all", "shift", "serial", "adaptive", "file:PATH"
};

// "all", "shift", "serial", "adaptive" or "file:PATH"; errors name --pattern and the choices.
Result<PatternSpec> parse_pattern(std::string_view text);

// A bijection of [0, size) that looks random (a keyed Feistel network, cycle-walked into the
// domain): shuffles rounds and pairs without holding a table of them.
class IndexPermutation {
 public:
  IndexPermutation(uint64_t size, uint64_t seed, bool identity);
  uint64_t operator()(uint64_t index) const;

 private:
  uint64_t size_;
  uint64_t seed_;
  bool identity_;
  int half_bits_ = 1;
};

class Schedule {
 public:
  // --randomize: a random rank order and round order, drawn from `seed`.
  static Result<Schedule> make(const PatternSpec& spec, int ranks, bool randomize, uint64_t seed);
  // The file pattern from its text: lines "CLIENT SERVER" (packed into rounds in order, a rank
  // at most once a round) or "ROUND CLIENT SERVER" (rounds as given); '#' starts a comment.
  // `origin` names the file in errors.
  static Result<Schedule> from_pairs_text(std::string_view text, int ranks, bool randomize,
                                          uint64_t seed, const std::string& origin);

  size_t rounds() const { return rounds_; }
  uint64_t pair_count() const { return pair_count_; }
  std::vector<Pair> round(size_t k) const;
  // True when (a,b) and (b,a) are distinct measurements (shift, file); false when each
  // unordered pair is measured once (all, serial).
  bool ordered() const { return kind_ == PatternKind::kShift || kind_ == PatternKind::kFile; }
  PatternKind kind() const { return kind_; }
  int ranks() const { return ranks_; }

 private:
  Schedule(PatternKind kind, int ranks, bool randomize, uint64_t seed);

  PatternKind kind_;
  int ranks_;
  size_t rounds_ = 0;
  uint64_t pair_count_ = 0;
  std::vector<int> order_;  // rank order (a permutation of 0..N-1)
  IndexPermutation round_order_;
  // kFile: pairs grouped by round (offsets into pairs_).
  std::vector<Pair> pairs_;
  std::vector<size_t> round_start_;
};

}  // namespace fabperf::cluster
