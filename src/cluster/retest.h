// The re-measurements alone that tell a fault from the company a pair kept: which pairs (the
// links the fabric fit does not explain and a few pairs through each element it finds bad; or,
// without switch levels, the worst per-link suspects), packed into rounds whose pairs share no
// rank, switch or link, so that each is measured as if alone.
#pragma once

#include <cstddef>
#include <vector>

#include "cluster/round_source.h"
#include "cluster/topology.h"

namespace fabperf::cluster {

struct MatrixRun;
struct FabricFit;

struct RetestPair {
  size_t test = 0;
  Pair pair{0, 0};
  double severity = 0;  // worst first
};

// Pairs through a bad element re-measured alone to confirm it, and how many times a link
// slow alone is re-measured again until its runs decide it.
inline constexpr size_t kElementRetests = 3;
inline constexpr size_t kPairRetests = 3;
// Waves of retests at most: kPairRetests for the links, more for the pairs that flapped in
// some of their --passes (fabric_findings.h), a few runs alone each wave.
inline constexpr size_t kRetestWaves = 8;

// Pairs worst first, both ranks alive, none re-measured before: with `fit` (a topology of
// levels), kElementRetests pairs through each bad element and at most `limit` links the fit
// leaves unexplained; else at most `limit` of the run's per-link suspects (MatrixRun::judge).
std::vector<RetestPair> retest_candidates(const MatrixRun& run, const FabricFit* fit, size_t limit);

// Rounds of one test each whose pairs share nothing but the spine: no rank, and with a
// topology no switch, local link or uplink. Without one, a pair a round.
std::vector<PlannedRound> pack_alone(const std::vector<RetestPair>& pairs, const Topology* topo);

}  // namespace fabperf::cluster
