// Tests of the --matrix verdicts (cluster/verdicts.h): suspects against the job's own baseline,
// retests that clear contention, and the node rule.
#include <gtest/gtest.h>

#include <cmath>

#include "cluster/verdicts.h"

namespace fabperf::cluster {
namespace {

// Every unordered pair measured once (a as client), `base` with a little spread.
FigureMatrix healthy(int n, double base) {
  FigureMatrix m(n);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) m.set(a, b, base * (1 + 0.01 * ((a * 7 + b * 3) % 5)));
  }
  return m;
}

std::vector<bool> everyone(int n) { return std::vector<bool>(static_cast<size_t>(n), true); }

void set_link(FigureMatrix& m, int a, int b, double v) { m.set(std::min(a, b), std::max(a, b), v); }

TEST(ClusterVerdicts, HealthyJobHasNoSuspects) {
  FigureMatrix m = healthy(8, 20000);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kLower, tol, everyone(8));
  EXPECT_EQ(t.suspect_count, 0u);
  EXPECT_EQ(t.dist.count, 28u);
  EXPECT_NEAR(t.dist.baseline, 20400, 400);
  EXPECT_GE(t.dist.threshold, 2 * t.dist.baseline - 1);
  settle(t, m, Better::kLower, tol);
  for (NodeJudgement& n : judge_nodes({t}, everyone(8))) EXPECT_EQ(n.state, NodeState::kOk);
}

TEST(ClusterVerdicts, SlowLinkIsNamedAndItsNodesStayHealthy) {
  FigureMatrix m = healthy(8, 20000);
  set_link(m, 2, 5, 200000);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kLower, tol, everyone(8));
  ASSERT_EQ(t.suspect_count, 1u);
  EXPECT_EQ(t.suspects[0].client, 2);
  EXPECT_EQ(t.suspects[0].server, 5);
  EXPECT_NEAR(t.suspects[0].severity, 10, 0.5);
  settle(t, m, Better::kLower, tol);
  EXPECT_EQ(t.suspects[0].verdict, Verdict::kBadLink);
  auto nodes = judge_nodes({t}, everyone(8));
  for (const NodeJudgement& n : nodes) EXPECT_EQ(n.state, NodeState::kOk) << n.rank;
  EXPECT_EQ(nodes[2].bad_links, 1u);
  EXPECT_EQ(nodes[2].links, 7u);
}

// A slow rank spoils all of its links: a quarter of all links at N=8, half at N=4, and the
// baseline (median of per-rank medians) still sits on the healthy links.
TEST(ClusterVerdicts, SlowNodeIsTheNodeNotItsLinks) {
  for (int n : {4, 5, 8}) {
    FigureMatrix m = healthy(n, 1e9);
    for (int other = 0; other < n; ++other) {
      if (other != 1) set_link(m, 1, other, 2e8);
    }
    Tolerances tol;
    TestJudgement t = judge_links(m, Better::kHigher, tol, everyone(n));
    EXPECT_NEAR(t.dist.baseline, 1.02e9, 0.03e9) << n;
    EXPECT_EQ(t.suspect_count, static_cast<uint64_t>(n - 1)) << n;
    settle(t, m, Better::kHigher, tol);
    for (const Suspect& s : t.suspects) EXPECT_EQ(s.verdict, Verdict::kBadNode) << n;
    auto nodes = judge_nodes({t}, everyone(n));
    for (const NodeJudgement& node : nodes) {
      EXPECT_EQ(node.state, node.rank == 1 ? NodeState::kBad : NodeState::kOk)
          << n << " " << node.rank;
    }
    EXPECT_EQ(nodes[1].bad_links, static_cast<uint32_t>(n - 1));
  }
}

// user-review's small job: 5 ranks, the healthy links mostly within 10% and two of them off
// (0.7x, 1.45x), one rank sharing its CPU, every one of its links 2.2x the others' median.
// Its own 4 links of 10 widen the job's spread past them (the threshold becomes 2.4x: no link
// is a suspect), so only a rule that leaves the node out of its own baseline and spread names
// it.
FigureMatrix noisy_with_slow_node(int n, int slow, double factor) {
  FigureMatrix m(n);
  const double noise[] = {1.0, 1.05, 0.95, 1.1, 0.7, 1.45, 0.9, 1.2, 1.0, 0.8};
  int i = 0;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      m.set(a, b, 10000 * (a == slow || b == slow ? factor : noise[i++ % 10]));
    }
  }
  return m;
}

TEST(ClusterVerdicts, SlowNodeInSmallNoisyJobIsNamedLeavingItOut) {
  FigureMatrix m = noisy_with_slow_node(5, 2, 2.2);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kLower, tol, everyone(5));
  EXPECT_EQ(t.suspect_count, 0u) << "the job's spread hides every one of its links";
  settle(t, m, Better::kLower, tol);
  auto nodes = judge_nodes({t}, everyone(5));
  for (const NodeJudgement& node : nodes) {
    EXPECT_EQ(node.state, node.rank == 2 ? NodeState::kBad : NodeState::kOk) << node.rank;
  }
  EXPECT_NEAR(nodes[2].slowdown, 2.2, 0.3);
  EXPECT_EQ(nodes[1].slowdown, 0);
}

// What the node rules name (docs/cluster.md, "Verdicts"): a node whose median link is 2x
// worse than the other nodes' (latency 2.5x: named, 1.5x: not; bandwidth at 40%: named); and,
// in a quiet job, a node whose every link is a suspect (bandwidth at 80%: each link below the
// 90% threshold), by the most-links-bad rule; 95% is neither.
TEST(ClusterVerdicts, NodeRuleSensitivity) {
  struct Case {
    Better better;
    double factor;
    bool named;
  };
  for (const Case& c : std::vector<Case>{{Better::kLower, 1.5, false},
                                         {Better::kLower, 2.5, true},
                                         {Better::kHigher, 0.95, false},
                                         {Better::kHigher, 0.8, true},
                                         {Better::kHigher, 0.4, true}}) {
    for (int n : {5, 8, 16, 200}) {  // 200: the large-job path
      FigureMatrix m = healthy(n, 1e6);
      for (int other = 0; other < n; ++other) {
        if (other != 3) set_link(m, 3, other, 1e6 * c.factor);
      }
      Tolerances tol;
      TestJudgement t = judge_links(m, c.better, tol, everyone(n));
      settle(t, m, c.better, tol);
      auto nodes = judge_nodes({t}, everyone(n));
      for (const NodeJudgement& node : nodes) {
        bool bad = node.rank == 3 && c.named;
        EXPECT_EQ(node.state, bad ? NodeState::kBad : NodeState::kOk)
            << "factor " << c.factor << ", " << n << " ranks, rank " << node.rank;
      }
      // The slow rule alone: 2x worse or more.
      const bool slow = c.factor >= 2 || c.factor <= 0.5;
      EXPECT_EQ(t.slow_node[3], slow) << "factor " << c.factor << ", " << n << " ranks";
    }
  }
}

// A loaded machine's loopback bandwidth (e2e, 5 ranks, rank 2 sharing its CPU): the healthy
// links spread from 0.5 to 2.2 GB/s, and rank 0's median, pulled down by its link to rank 2,
// is 2.3x below the others'. The spread of the others' links raises the bar: only rank 2 is
// named.
TEST(ClusterVerdicts, NoisyBandwidthNamesOnlyTheSlowNode) {
  FigureMatrix m(5);
  m.set(0, 3, 0.513e9);
  m.set(0, 4, 1.38e9);
  m.set(1, 0, 0.845e9);
  m.set(1, 4, 1.88e9);
  m.set(3, 1, 0.6e9);
  m.set(4, 3, 2.24e9);
  m.set(2, 0, 0.132e9);
  m.set(2, 1, 0.101e9);
  m.set(3, 2, 0.0629e9);
  m.set(4, 2, 0.0246e9);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kHigher, tol, everyone(5));
  settle(t, m, Better::kHigher, tol);
  for (const NodeJudgement& node : judge_nodes({t}, everyone(5))) {
    EXPECT_EQ(node.state, node.rank == 2 ? NodeState::kBad : NodeState::kOk) << node.rank;
  }
  EXPECT_TRUE(t.slow_node[2]);
}

// One bad link far off in a noisy 5-rank job (loopback bandwidth from 0.5 to 2.2 GB/s, the
// link 0 <-> 3 at 4 MB/s) leaves both of its nodes ok: the rule leaves each node's worst link
// out of its median.
TEST(ClusterVerdicts, OneBadLinkInNoisyJobIsNoBadNode) {
  FigureMatrix m(5);
  const double healthy[] = {0.513e9, 1.38e9, 0.845e9, 1.88e9, 2.24e9, 0.6e9, 1.1e9, 0.7e9, 1.6e9};
  int i = 0;
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) m.set(a, b, a == 0 && b == 3 ? 4e6 : healthy[i++ % 9]);
  }
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kHigher, tol, everyone(5));
  settle(t, m, Better::kHigher, tol);
  for (const NodeJudgement& node : judge_nodes({t}, everyone(5))) {
    EXPECT_EQ(node.state, NodeState::kOk) << node.rank << " slowdown " << node.slowdown;
  }
}

// Too few others to judge a node against (fewer than 3): the rule stays silent.
TEST(ClusterVerdicts, NodeRuleNeedsThreeOtherNodes) {
  FigureMatrix m = healthy(3, 1e4);
  set_link(m, 0, 1, 5e4);
  set_link(m, 0, 2, 5e4);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kLower, tol, everyone(3));
  for (double s : t.slowdown) EXPECT_EQ(s, 0);
}

TEST(ClusterVerdicts, RetestAloneWithinToleranceIsContention) {
  FigureMatrix m = healthy(6, 5e9);
  set_link(m, 0, 3, 1e9);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kHigher, tol, everyone(6));
  ASSERT_EQ(t.suspect_count, 1u);
  m.set_retest(0, 3, 5.1e9);
  settle(t, m, Better::kHigher, tol);
  EXPECT_EQ(t.suspects[0].verdict, Verdict::kContention);
  EXPECT_EQ(t.bad[0], 0u);
  ASSERT_TRUE(t.suspects[0].retest);
  EXPECT_NEAR(*t.suspects[0].retest, 5.1e9, 1e3);  // kept as a float
}

TEST(ClusterVerdicts, RetestStillSlowStaysBad) {
  FigureMatrix m = healthy(6, 5e9);
  set_link(m, 0, 3, 1e9);
  m.set_retest(0, 3, 1.1e9);
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kHigher, tol, everyone(6));
  settle(t, m, Better::kHigher, tol);
  EXPECT_EQ(t.suspects[0].verdict, Verdict::kBadLink);
}

TEST(ClusterVerdicts, FailedPairIsTheWorstSuspect) {
  FigureMatrix m = healthy(5, 30000);
  set_link(m, 1, 2, 90000);
  FigureMatrix f(5);
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) {
      if (a == 0 && b == 4) {
        f.fail(a, b, "server: no answer");
      } else if (auto v = m.get(a, b)) {
        f.set(a, b, *v);
      }
    }
  }
  EXPECT_TRUE(f.failed(0, 4));
  EXPECT_EQ(*f.error(0, 4), "server: no answer");
  EXPECT_EQ(f.failed_count(), 1u);
  Tolerances tol;
  TestJudgement t = judge_links(f, Better::kLower, tol, everyone(5));
  ASSERT_EQ(t.suspect_count, 2u);
  EXPECT_EQ(t.suspects[0].client, 0);
  EXPECT_EQ(t.suspects[0].server, 4);
  EXPECT_FALSE(t.suspects[0].value);
  EXPECT_TRUE(std::isinf(t.suspects[0].severity));
}

TEST(ClusterVerdicts, UnreachableRanksAreJudgedNoFurther) {
  FigureMatrix m = healthy(5, 30000);
  set_link(m, 3, 4, 300000);
  std::vector<bool> alive = everyone(5);
  alive[4] = false;
  Tolerances tol;
  TestJudgement t = judge_links(m, Better::kLower, tol, alive);
  EXPECT_EQ(t.suspect_count, 0u);  // its value stays in the distribution, not in the verdicts
  EXPECT_EQ(t.dist.count, 10u);
  settle(t, m, Better::kLower, tol);
  auto nodes = judge_nodes({t}, alive);
  EXPECT_EQ(nodes[4].state, NodeState::kUnreachable);
  EXPECT_EQ(nodes[3].state, NodeState::kOk);
}

// The robust-spread condition: in a wide (noisy) distribution a 2.2x value is not singled out,
// and with --outlier_mads 0 it is.
TEST(ClusterVerdicts, WideDistributionNeedsMoreThanTheRatio) {
  FigureMatrix m(8);
  int i = 0;
  for (int a = 0; a < 8; ++a) {
    for (int b = a + 1; b < 8; ++b) m.set(a, b, 10000 * (0.4 + 0.05 * (i++ % 25)));
  }
  set_link(m, 0, 7, 2.2 * 10000 * 0.95);
  Tolerances tol;
  EXPECT_EQ(judge_links(m, Better::kLower, tol, everyone(8)).suspect_count, 0u);
  tol.outlier_mads = 0;
  EXPECT_GE(judge_links(m, Better::kLower, tol, everyone(8)).suspect_count, 1u);
}

// The figure each test kind fills its matrix with, read from the run's result as the engine
// derived it; a run without the figure gives none.
TEST(ClusterVerdicts, FigureValuesFromTheResult) {
  TestResult r;
  LatencySummary lat;
  lat.samples = 100;
  lat.percentiles = {{50, 1234.5}, {99, 2000}};
  r.figures.latency = lat;
  r.figures.has_bandwidth = true;
  r.figures.recv_Bps = 7e9;
  r.figures.msg_rate = 12;
  TestSpec lat_test{"x_lat", TransportFamily::kSocket, TestKind::kLatency, "x", "", {}, 1, nullptr,
                    nullptr};
  TestSpec bw_test = lat_test, mr_test = lat_test;
  bw_test.kind = TestKind::kBandwidth;
  mr_test.kind = TestKind::kMsgRate;
  EXPECT_DOUBLE_EQ(*figure_value(r, figure_for(lat_test)), 1234.5);
  EXPECT_DOUBLE_EQ(*figure_value(r, figure_for(bw_test)), 7e9);
  EXPECT_DOUBLE_EQ(*figure_value(r, figure_for(mr_test)), 12);
  EXPECT_EQ(figure_for(lat_test).path, "latency_ns.p50");
  EXPECT_EQ(figure_for(bw_test).path, "bandwidth.recv_Bps");
  EXPECT_EQ(figure_for(mr_test).path, "msg_rate");
  TestResult none;
  EXPECT_FALSE(figure_value(none, figure_for(lat_test)));
  EXPECT_FALSE(figure_value(none, figure_for(bw_test)));
  lat.percentiles = {{99, 2000}};  // no p50 asked for
  none.figures.latency = lat;
  EXPECT_FALSE(figure_value(none, figure_for(lat_test)));
}

}  // namespace
}  // namespace fabperf::cluster
