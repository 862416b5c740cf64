// Verdicts: each link and each node judged against the job's own distribution of a figure
// (docs/cluster.md, "Verdicts", gives the rules and their reasons).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/figure_matrix.h"

namespace fabperf::cluster {

// How far from the job's baseline a link may be before it is a suspect (--lat_tolerance,
// --bw_tolerance, --outlier_mads) and how many of a node's links must be bad before the node
// is (--node_fraction).
struct Tolerances {
  double lat_ratio = 2.0;  // latency suspect above 2x the baseline ...
  double bw_ratio = 0.9;   // bandwidth or message rate suspect below 90% of it ...
  // ... and beyond this many robust deviations from it (0: the ratio alone); the deviations
  // relax the ratio at most twofold (4x latency, 45% bandwidth at the defaults).
  double outlier_mads = 3.0;
  double node_fraction = 0.75;
};

struct Distribution {
  uint64_t count = 0;  // measured pairs
  double min = 0, p10 = 0, median = 0, p90 = 0, max = 0;
  double baseline = 0;   // the median over ranks of each rank's median link
  double spread = 0;     // 1.4826 x the median absolute deviation from the baseline
  double threshold = 0;  // a link beyond it is a suspect
};

enum class Verdict { kBadLink, kContention, kBadNode };
const char* verdict_name(Verdict verdict);

struct Suspect {
  int client = 0, server = 0;
  std::optional<double> value;   // none: the measurement failed
  double severity = 0;           // how far beyond the baseline (x times); failures rank first
  std::optional<double> retest;  // its value measured alone
  Verdict verdict = Verdict::kBadLink;
};

// One test's distribution and suspects.
struct TestJudgement {
  Distribution dist;
  std::vector<Suspect> suspects;  // worst first, at most kMaxListedSuspects
  uint64_t suspect_count = 0;     // all of them
  std::vector<uint32_t> links;    // per rank: its pairs measured or failed in this test
  std::vector<uint32_t> bad;      // per rank: its suspects not cleared by a retest
  std::vector<bool> bad_node;     // per rank: bad in this test
  // Per rank, the leave-one-out node rule: how many times worse its median link is than the
  // median of the other nodes' median links (0: not judged), and whether that is beyond the
  // threshold drawn from the other nodes alone.
  std::vector<double> slowdown;
  std::vector<bool> slow_node;
  static constexpr size_t kMaxListedSuspects = 10000;
};

// True when `value` is beyond the distribution's threshold.
bool beyond(double value, const Distribution& dist, Better better);

// First pass over a finished matrix: the distribution of its values and the suspect links.
// Ranks not `alive` keep their measured values in the distribution but are judged no further.
TestJudgement judge_links(const FigureMatrix& matrix, Better better, const Tolerances& tol,
                          const std::vector<bool>& alive);

// After the retests: a suspect that was within the threshold alone is contention; a rank with
// at least node_fraction of its links bad, or slow by the leave-one-out rule, is a bad node,
// and its links' verdict is bad_node.
void settle(TestJudgement& judgement, const FigureMatrix& matrix, Better better,
            const Tolerances& tol);

enum class NodeState { kOk, kBad, kUnreachable };
const char* node_state_name(NodeState state);

struct NodeJudgement {
  int rank = 0;
  NodeState state = NodeState::kOk;
  uint32_t links = 0;          // in its worst test
  uint32_t bad_links = 0;      // in its worst test
  double slowdown = 0;         // its median link vs the other nodes' (x times), where slow
  std::vector<size_t> bad_in;  // indexes of the tests in which it is bad
};

// Every rank's verdict over all tests: bad in any test makes a bad node.
std::vector<NodeJudgement> judge_nodes(const std::vector<TestJudgement>& tests,
                                       const std::vector<bool>& alive);

}  // namespace fabperf::cluster
