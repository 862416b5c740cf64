// Tests of the verdicts at every level (cluster/locate.h, fabric_findings.h, findings.h) and of
// the scorer (cluster/scoring.h): matrices filled from a fabric model, judged, and what the
// findings name -- the switch, not its nodes; the uplink, not its leaf; a link only when it is
// confirmed -- then scored against the faults as fabric-model.md defines.
#include <gtest/gtest.h>

#include <memory>

#include "cluster/fabric_model.h"
#include "cluster/matrix_run.h"
#include "cluster/scoring.h"
#include "fabric_test_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using fabperf::testing::small_dragonfly_topology;
using fabperf::testing::small_fat_tree_topology;
using nlohmann::json;

FabricModel model_of(const json& topology, const json& faults, double jitter = 0.02) {
  int hosts = topology["kind"] == "dragonfly" ? 64 : 64;
  auto m = FabricModel::parse(fabric_model(hosts, topology, faults, jitter).dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// Every pair measured `passes` times in latency and bandwidth, as an all-pairs run would.
MatrixRun run_over(const FabricModel& m, int passes = 1, bool with_topology = true) {
  MatrixRun run;
  run.pattern = "all";
  run.passes = static_cast<uint64_t>(passes);
  const int n = m.hosts();
  for (int r = 0; r < n; ++r)
    run.ranks.push_back(
        {r, m.host_names()[static_cast<size_t>(r)], !m.dead(r), m.dead(r) ? "dead" : ""});
  if (with_topology) run.topology = std::make_shared<const Topology>(m.topology());
  run.tests.emplace_back(
      "tcp_lat", FigureDef{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true},
      n, MatrixLayout::kTriangle);
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false}, n,
      MatrixLayout::kTriangle);
  uint64_t draw = 1;
  for (int p = 0; p < passes; ++p) {
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        if (m.dead(a) || m.dead(b)) continue;
        for (TestColumn& t : run.tests) {
          t.matrix.record(a, b, m.measure(t.figure.kind, a, b, draw++, 0), t.figure.better);
        }
      }
    }
  }
  run.judge();
  return run;
}

std::vector<json> of_kind(const MatrixRun& run, const std::string& kind) {
  std::vector<json> out;
  for (const json& f : findings_json(run)) {
    if (f["kind"] == kind) out.push_back(f);
  }
  return out;
}

TEST(ClusterFabricVerdicts, SlowSwitchIsNamedNotItsNodes) {
  FabricModel m =
      model_of(small_dragonfly_topology(),
               json::parse(R"([{"kind": "slow_switch", "switch": "g01s02", "factor": 2}])"));
  MatrixRun run = run_over(m);
  auto switches = of_kind(run, "switch");
  ASSERT_EQ(switches.size(), 1u) << findings_json(run).dump(1);
  EXPECT_EQ(switches[0]["switch"], "g01s02");
  EXPECT_NEAR(switches[0]["severity"].get<double>(), 2.0, 0.1);
  EXPECT_TRUE(of_kind(run, "node").empty()) << findings_json(run).dump(1);
  EXPECT_TRUE(of_kind(run, "link").empty()) << findings_json(run).dump(1);
  // The old per-node rule still sees its nodes' links bad; the report says what is behind them.
  EXPECT_EQ(behind(run, 24), "switch g01s02");
}

TEST(ClusterFabricVerdicts, FatTreeUplinkIsNotItsLeaf) {
  FabricModel m = model_of(small_fat_tree_topology(),
                           json::parse(R"([{"kind": "slow_uplink", "leaf": "leaf005", "factor": 3},
                                           {"kind": "slow_switch", "switch": "leaf009", "factor": 3}])"));
  MatrixRun run = run_over(m);
  auto uplinks = of_kind(run, "uplink");
  ASSERT_EQ(uplinks.size(), 1u) << findings_json(run).dump(1);
  EXPECT_EQ(uplinks[0]["leaf"], "leaf005");
  auto switches = of_kind(run, "switch");
  ASSERT_EQ(switches.size(), 1u) << findings_json(run).dump(1);
  EXPECT_EQ(switches[0]["switch"], "leaf009");
  EXPECT_EQ(findings_json(run).size(), 2u) << findings_json(run).dump(1);
}

// In a tree of a few hosts a node has most of its leaf's pairs (3 of 5 with two hosts a leaf,
// 2 of the 3 inside pairs with three), and the leaf, fitted before its nodes, took the node's
// slowness as its own: a 4-host tree with a slow node named its leaf a bad switch. And in a
// tree of two leaves every pair between them crosses a slow leaf, so their class's baseline
// sat on the slow pairs and a slow leaf of up to about 12 hosts was not named. The node is
// named, not its leaf, and a slow leaf is its leaf.
TEST(ClusterFabricVerdicts, InASmallTreeASlowNodeIsNotItsLeaf) {
  for (int per_leaf : {2, 3, 4, 8}) {
    SCOPED_TRACE("hosts per leaf: " + std::to_string(per_leaf));
    const json topology = {
        {"kind", "fat_tree"}, {"leaves", 2}, {"hosts_per_leaf", per_leaf}, {"spines", 1}};
    auto model = [&](const char* faults) {
      auto m = FabricModel::parse(fabric_model(2 * per_leaf, topology, json::parse(faults)).dump(),
                                  "m.json");
      EXPECT_TRUE(m.ok()) << m.status().message();
      return std::move(*m);
    };
    MatrixRun node = run_over(model(R"([{"kind": "slow_node", "host": "n00001", "factor": 3}])"));
    auto nodes = of_kind(node, "node");
    ASSERT_EQ(nodes.size(), 1u) << findings_json(node).dump(1);
    EXPECT_EQ(nodes[0]["host"], "n00001");
    EXPECT_TRUE(of_kind(node, "switch").empty()) << findings_json(node).dump(1);
    EXPECT_TRUE(of_kind(node, "uplink").empty()) << findings_json(node).dump(1);
    if (per_leaf < 3) continue;  // two hosts on a leaf: its slowness is theirs, as far as it shows
    MatrixRun leaf =
        run_over(model(R"([{"kind": "slow_switch", "switch": "leaf000", "factor": 3}])"));
    auto switches = of_kind(leaf, "switch");
    ASSERT_EQ(switches.size(), 1u) << findings_json(leaf).dump(1);
    EXPECT_EQ(switches[0]["switch"], "leaf000");
    EXPECT_TRUE(of_kind(leaf, "node").empty()) << findings_json(leaf).dump(1);
  }
}

TEST(ClusterFabricVerdicts, LocalLinkGlobalLinkNodeAndUnreachable) {
  FabricModel m = model_of(small_dragonfly_topology(), json::parse(R"([
      {"kind": "slow_local_link", "switches": ["g02s01", "g02s03"], "factor": 3},
      {"kind": "slow_uplink", "groups": ["g00", "g03"], "factor": 2.5},
      {"kind": "slow_node", "host": "n00005", "factor": 2},
      {"kind": "dead_node", "host": "n00060"}])"));
  MatrixRun run = run_over(m);
  json all = findings_json(run);
  ASSERT_EQ(all.size(), 4u) << all.dump(1);
  EXPECT_EQ(all[0]["kind"], "unreachable");  // first, whatever the severities
  EXPECT_EQ(all[0]["host"], "n00060");
  auto local = of_kind(run, "local_link");
  ASSERT_EQ(local.size(), 1u);
  EXPECT_EQ(local[0]["switches"], (json{"g02s01", "g02s03"}));
  auto global = of_kind(run, "uplink");
  ASSERT_EQ(global.size(), 1u);
  EXPECT_EQ(global[0]["groups"], (json{"g00", "g03"}));
  auto nodes = of_kind(run, "node");
  ASSERT_EQ(nodes.size(), 1u);
  EXPECT_EQ(nodes[0]["host"], "n00005");
  EXPECT_EQ(nodes[0]["tests"], (json{"tcp_lat", "tcp_bw"}));
  EXPECT_TRUE(nodes[0]["firm"].get<bool>());
  json score =
      score_findings(all,
                     json::array({m.fault_json(m.faults()[0]), m.fault_json(m.faults()[1]),
                                  m.fault_json(m.faults()[2]), m.fault_json(m.faults()[3])}),
                     false);
  EXPECT_EQ(score["found"], 4);
  EXPECT_EQ(score["false"], 0);
}

TEST(ClusterFabricVerdicts, ALinkOnlyWhenItsSlownessIsConfirmed) {
  FabricModel m = model_of(
      small_dragonfly_topology(),
      json::parse(R"([{"kind": "slow_link", "hosts": ["n00003", "n00040"], "factor": 3}])"));
  // Measured once, never alone: a suspect of its test, not a finding.
  MatrixRun once = run_over(m);
  EXPECT_TRUE(of_kind(once, "link").empty()) << findings_json(once).dump(1);
  bool suspected = false;
  for (const Suspect& s : once.tests[0].judgement.suspects) {
    suspected |= (s.client == 3 && s.server == 40) || (s.client == 40 && s.server == 3);
  }
  EXPECT_TRUE(suspected);
  // Slow again alone: a firm link.
  once.tests[0].matrix.set_retest(3, 40, m.measure(FigureKind::kLatencyP50, 3, 40, 999, 0));
  once.judge();
  auto links = of_kind(once, "link");
  ASSERT_EQ(links.size(), 1u) << findings_json(once).dump(1);
  EXPECT_EQ(links[0]["hosts"], (json{"n00003", "n00040"}));
  EXPECT_TRUE(links[0]["firm"].get<bool>());
  EXPECT_EQ(links[0]["confirmed"], 1);
  // Slow in every one of three passes: a link too.
  MatrixRun passes = run_over(m, 3);
  ASSERT_EQ(of_kind(passes, "link").size(), 1u) << findings_json(passes).dump(1);
}

TEST(ClusterFabricVerdicts, FlappingLinkIsSlowInMoreRunsThanNoise) {
  FabricModel m = model_of(small_fat_tree_topology(), json::parse(R"([
      {"kind": "flapping_link", "hosts": ["n00010", "n00050"], "factor": 4, "fraction": 0.5}])"));
  MatrixRun run = run_over(m, 12);
  auto links = of_kind(run, "link");
  ASSERT_EQ(links.size(), 1u) << findings_json(run).dump(1);
  EXPECT_EQ(links[0]["hosts"], (json{"n00010", "n00050"}));
  EXPECT_EQ(links[0]["runs"], 24);
  EXPECT_GT(links[0]["slow_runs"].get<int>(), 4);
  EXPECT_LT(links[0]["slow_runs"].get<int>(), 24);
  // Once is not enough to tell a flap from noise.
  EXPECT_TRUE(of_kind(run_over(m, 1), "link").empty());
}

TEST(ClusterFabricVerdicts, WithoutLevelsTheFindingsAreThePerLinkAndNodeVerdicts) {
  FabricModel m =
      model_of(small_dragonfly_topology(),
               json::parse(R"([{"kind": "slow_node", "host": "n00007", "factor": 5}])"));
  MatrixRun run = run_over(m, 1, false);
  auto nodes = of_kind(run, "node");
  ASSERT_EQ(nodes.size(), 1u) << findings_json(run).dump(1);
  EXPECT_EQ(nodes[0]["host"], "n00007");
  EXPECT_EQ(nodes.size() + of_kind(run, "link").size(), findings_json(run).size());
}

TEST(ClusterFabricVerdicts, CoverageCountsPairsRunsAndElements) {
  FabricModel m = model_of(small_dragonfly_topology(), json::array());
  MatrixRun run = run_over(m, 2);
  run.rounds_done = 7;
  run.measurements = 2 * 2 * 64 * 63 / 2;
  json c = coverage_json(run);
  EXPECT_EQ(c["pairs_measured"], 64 * 63 / 2);
  EXPECT_EQ(c["pairs_total"], 64 * 63 / 2);
  EXPECT_EQ(c["rounds"], 7);
  EXPECT_DOUBLE_EQ(c["fraction"].get<double>(), 2.0);
  EXPECT_EQ(c["tests"][0]["repeats"], 64 * 63 / 2);
  EXPECT_EQ(c["elements"]["switches"]["covered"], 16);
  EXPECT_EQ(c["elements"]["global_links"]["total"], 6);
  EXPECT_EQ(c["findings"]["tentative"], 0);
}

TEST(ClusterScoring, FoundFalseAndNodesBehindSwitches) {
  json faults = json::parse(R"([
      {"kind": "slow_switch", "switch": "s1", "factor": 2},
      {"kind": "dead_node", "host": "h9"},
      {"kind": "slow_uplink", "groups": ["g2", "g1"], "factor": 2},
      {"kind": "slow_link", "hosts": ["h1", "h2"], "factor": 3},
      {"kind": "flapping_link", "hosts": ["h3", "h4"], "factor": 3, "fraction": 0.3}])");
  json findings = json::parse(R"([
      {"kind": "switch", "switch": "s1", "firm": true},
      {"kind": "node", "host": "h5", "firm": true},
      {"kind": "unreachable", "host": "h9", "firm": true},
      {"kind": "uplink", "groups": ["g1", "g2"], "firm": false},
      {"kind": "link", "hosts": ["h2", "h1"], "firm": true}])");
  json adaptive = score_findings(findings, faults, false);
  EXPECT_EQ(adaptive["injected"], 3);  // the two links are not scored where pairs were skipped
  EXPECT_EQ(adaptive["found"], 3);
  EXPECT_EQ(adaptive["named"], 5);
  EXPECT_EQ(adaptive["false"], 1);  // h5: behind its switch, or anything; named nothing injected
  EXPECT_EQ(adaptive["false_findings"][0]["host"], "h5");
  EXPECT_EQ(adaptive["firm"]["false"], 1);
  json all = score_findings(findings, faults, true);
  EXPECT_EQ(all["injected"], 5);
  EXPECT_EQ(all["found"], 4);
  EXPECT_DOUBLE_EQ(all["recall"].get<double>(), 0.8);
  EXPECT_EQ(all["missed"][0]["kind"], "flapping_link");
  EXPECT_EQ(all["by_kind"]["flapping_link"]["found"], 0);
  EXPECT_EQ(all["by_kind"]["slow_switch"]["found"], 1);
}

}  // namespace
}  // namespace fabperf::cluster
