// The findings of a run whose topology has levels above the nodes: the elements the fabric fit
// (locate.h) finds slow, switch before node, and the links those do not explain.
#pragma once

#include <cstdint>
#include <vector>

#include "cluster/findings.h"
#include "cluster/locate.h"

namespace fabperf::cluster {

std::vector<Finding> fabric_findings(const MatrixRun& run, const FabricFit& fit);

// The flapping rule, shared by the findings and the retests that gather its runs. A run is a
// flap when it is at least kFlapFactor off (and beyond the test's link limit). A pair is
// flapping when its flaps are more than the job's own rate of flaps explains: the binomial
// tail of its count below kFlapAlpha over the pairs (the chance that some healthy pair of the
// job is named). With --passes 2 or more, a pair that flapped in some run and is not decided
// either way is re-measured alone (retest.cc) until it is named, or until so few of its runs
// are flaps that a link slow in kFlapLeast of them would show more than that only kFlapMiss
// of the time, kFlapRetests runs alone at most.
inline constexpr double kFlapAlpha = 0.01;
inline constexpr double kFlapFactor = 2.0;
inline constexpr double kFlapLeast = 0.3;
inline constexpr double kFlapMiss = 0.01;
inline constexpr uint32_t kFlapRetests = 24;

// P(X >= k) where X is the sum of independent Binomial(m[i], p[i]).
double binomial_tail(uint32_t k, const std::vector<uint32_t>& m, const std::vector<double>& p);
// P(X <= k) where X is Binomial(n, p).
double binomial_at_most(uint32_t k, uint32_t n, double p);

}  // namespace fabperf::cluster
