// --pattern adaptive: find the bad switches, links and nodes of a large fabric with O(N) pair
// measurements instead of N^2/2, in three steps.
//  1. Screen: rounds inside every switch at once (each rank meets up to 15 switch mates), then
//     a few pairs through every link between switches (each local link, global link or uplink
//     crossed by kPairsPerLink pairs of distinct ranks), packed into rounds that put at most
//     one pair on a dragonfly link (a quarter of its ranks on a tree switch's uplinks) at a
//     time, so that no round measures its own contention.
//  2. Localise: fit the fabric (locate.h) to what was measured, and measure more pairs through
//     every element that looks slow or stands on too few pairs: a node's row, more of a
//     switch's inside pairs, more pairs through a link, each with partners away from the
//     other suspects. Twice at most.
//  3. Retest: a few pairs through each element found bad, and the links the fit leaves
//     unexplained, re-measured alone (rounds that share no switch or link).
// Every round is a valid partial matrix: --budget can end the plan after any of them.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <random>
#include <unordered_set>
#include <vector>

#include "cluster/round_source.h"
#include "cluster/topology.h"

namespace fabperf::cluster {

struct FabricFit;

class AdaptivePlan : public RoundSource {
 public:
  AdaptivePlan(std::shared_ptr<const Topology> topology, uint64_t seed, bool randomize);

  std::optional<PlannedRound> next(const MatrixRun& run) override;
  size_t rounds_left() const override;
  uint64_t pairs_planned() const override { return screen_pairs_; }
  bool ordered() const override { return false; }
  bool retests_suspects() const override { return true; }

  // For tests: the phase the plan is in.
  enum class Phase { kScreen, kLocalise, kRetest, kDone };
  Phase phase() const { return phase_; }

  static constexpr size_t kIntraRounds = 15;
  static constexpr size_t kPairsPerLink = 6;
  static constexpr size_t kLocaliseSteps = 2;
  static constexpr uint32_t kTargetPairs = 16;  // evidence an element should stand on
  static constexpr size_t kMaxRetests = 20000;

 private:
  void build_screen();
  void intra_rounds();
  std::vector<Pair> link_demands();
  // Pairs through element `id`, with ranks not in `avoid` (its own node excepted); pairs
  // planned before, or measured in `run`, are skipped.
  void demands_through(ElementId id, size_t count, const std::vector<bool>& avoid,
                       const MatrixRun* run, std::vector<Pair>& out);
  std::vector<PlannedRound> pack(const std::vector<Pair>& demands) const;
  std::vector<PlannedRound> localise(const MatrixRun& run);
  std::vector<PlannedRound> retest(const MatrixRun& run);
  int random_rank(const std::vector<int>& from);
  // Not planned before (and now it is).
  bool fresh(int a, int b);
  // The ranks under switch s (its own members, or its subtree's).
  const std::vector<int>& under(int s) const { return under_[static_cast<size_t>(s)]; }

  std::shared_ptr<const Topology> topo_;
  std::mt19937_64 rng_;
  bool randomize_;
  Phase phase_ = Phase::kScreen;
  std::deque<PlannedRound> queue_;
  size_t localise_done_ = 0;
  size_t retest_waves_ = 0;
  uint64_t screen_pairs_ = 0;
  std::vector<std::vector<int>> under_;
  std::vector<std::vector<int>> group_ranks_;
  std::vector<int> unplaced_;          // ranks the topology lacks
  std::vector<uint8_t> caps_;          // per element id: pairs a round may put through it (0: any)
  std::unordered_set<uint64_t> seen_;  // pairs planned so far, unordered
};

}  // namespace fabperf::cluster
