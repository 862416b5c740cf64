// Tests of --pattern adaptive (cluster/adaptive_plan.h), its three steps driven by hand over a
// fabric model: the screen's rounds (disjoint, every switch inside and every link between
// crossed, one pair a round on a dragonfly link), localising around what looks slow, retests
// alone, and the findings at the end.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "cluster/adaptive_plan.h"
#include "cluster/fabric_model.h"
#include "cluster/matrix_run.h"
#include "cluster/scoring.h"
#include "fabric_test_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using nlohmann::json;

struct Driven {
  MatrixRun run;
  std::vector<PlannedRound> rounds;
  std::vector<AdaptivePlan::Phase> phases;  // the plan's phase after each round was taken
};

// Runs the plan to its end, each pair's figure drawn from the model; a rank is "dead" from the
// start (the coordinator would find it so in the first round).
Driven drive(const FabricModel& m, uint64_t seed = 5) {
  Driven d;
  MatrixRun& run = d.run;
  run.pattern = "adaptive";
  for (int r = 0; r < m.hosts(); ++r) {
    run.ranks.push_back({r, m.host_names()[static_cast<size_t>(r)], !m.dead(r), ""});
  }
  auto topo = std::make_shared<const Topology>(m.topology());
  run.topology = topo;
  run.tests.emplace_back(
      "tcp_lat", FigureDef{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true},
      m.hosts(), MatrixLayout::kSparse);
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false},
      m.hosts(), MatrixLayout::kSparse);
  AdaptivePlan plan(topo, seed, false);
  uint64_t draw = 1;
  for (int guard = 0; guard < 1000; ++guard) {
    auto round = plan.next(run);
    if (!round) break;
    d.phases.push_back(plan.phase());
    std::vector<size_t> tests = round->tests;
    if (tests.empty()) tests = {0, 1};
    for (size_t t : tests) {
      for (const Pair& p : round->pairs) {
        if (m.dead(p.client) || m.dead(p.server)) continue;
        double v = m.measure(run.tests[t].figure.kind, p.client, p.server, draw++, 0);
        run.measurements++;
        if (round->alone) {
          run.tests[t].matrix.set_retest(p.client, p.server, v);
        } else {
          run.tests[t].matrix.record(p.client, p.server, v, run.tests[t].figure.better);
        }
      }
    }
    d.rounds.push_back(std::move(*round));
  }
  EXPECT_EQ(plan.phase(), AdaptivePlan::Phase::kDone);
  EXPECT_EQ(plan.next(run), std::nullopt);
  run.rounds_done = d.rounds.size();
  run.judge();
  return d;
}

json dragonfly(int groups, int switches, int hosts) {
  return {{"kind", "dragonfly"},
          {"groups", groups},
          {"switches_per_group", switches},
          {"hosts_per_switch", hosts}};
}

FabricModel model(int hosts, const json& topology, const json& faults) {
  auto m = FabricModel::parse(fabric_model(hosts, topology, faults).dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

TEST(ClusterAdaptive, ScreenRoundsAreDisjointAndCrossEverything) {
  FabricModel m = model(384, dragonfly(6, 4, 16), json::array());
  Driven d = drive(m);
  const Topology& t = m.topology();
  std::map<ElementId, size_t> through;  // screen pairs through each element
  std::set<std::pair<int, int>> intra;
  ElementId path[kMaxPathElements];
  for (size_t r = 0; r < d.rounds.size(); ++r) {
    const PlannedRound& round = d.rounds[r];
    std::set<int> ranks;
    std::map<ElementId, int> links_this_round;
    for (const Pair& p : round.pairs) {
      EXPECT_TRUE(ranks.insert(p.client).second) << "round " << r;
      EXPECT_TRUE(ranks.insert(p.server).second) << "round " << r;
      size_t k = t.path(p.client, p.server, path);
      for (size_t i = 0; i < k; ++i) {
        ElementKind kind = t.element_kind(path[i]);
        if (kind == ElementKind::kLocalLink || kind == ElementKind::kUplink) {
          EXPECT_EQ(++links_this_round[path[i]], 1) << "two pairs on one link in round " << r;
        }
        if (d.phases[r] == AdaptivePlan::Phase::kScreen) ++through[path[i]];
      }
      if (t.switch_of(p.client) == t.switch_of(p.server)) {
        intra.insert({std::min(p.client, p.server), std::max(p.client, p.server)});
      }
    }
  }
  // 16 ranks a switch: 15 rounds meet every switch mate.
  EXPECT_EQ(intra.size(), 24u * 16 * 15 / 2);
  for (size_t id = t.first_id(ElementKind::kLocalLink); id < t.element_count(); ++id) {
    EXPECT_GE(through[static_cast<ElementId>(id)], AdaptivePlan::kPairsPerLink)
        << t.element_name(static_cast<ElementId>(id), {});
  }
  // O(N) pairs, far from all of them.
  double all_pairs = 2.0 * 384 * 383 / 2;
  EXPECT_LT(static_cast<double>(d.run.measurements) / all_pairs, 0.25);
  EXPECT_TRUE(d.run.findings.empty()) << findings_json(d.run).dump(1);
}

TEST(ClusterAdaptive, LocalisesRetestsAloneAndNamesEveryLevel) {
  json faults = json::parse(R"([
      {"kind": "slow_node", "host": "n00021", "factor": 2.5},
      {"kind": "dead_node", "host": "n00200"},
      {"kind": "slow_switch", "switch": "g03s02", "factor": 2},
      {"kind": "slow_local_link", "switches": ["g01s00", "g01s03"], "factor": 3},
      {"kind": "slow_uplink", "groups": ["g02", "g05"], "factor": 3}])");
  FabricModel m = model(384, dragonfly(6, 4, 16), faults);
  Driven d = drive(m);
  // The steps in order, each at least once (drive() checks that the plan ends done).
  std::vector<AdaptivePlan::Phase> order;
  for (AdaptivePlan::Phase p : d.phases) {
    if (order.empty() || order.back() != p) order.push_back(p);
  }
  EXPECT_EQ(order, (std::vector<AdaptivePlan::Phase>{AdaptivePlan::Phase::kScreen,
                                                     AdaptivePlan::Phase::kLocalise,
                                                     AdaptivePlan::Phase::kRetest}));
  // Retest rounds: pairs that share no switch, link or rank.
  const Topology& t = m.topology();
  ElementId path[kMaxPathElements];
  size_t alone = 0;
  for (const PlannedRound& r : d.rounds) {
    if (!r.alone) continue;
    ++alone;
    EXPECT_EQ(r.tests.size(), 1u);
    std::set<ElementId> used;
    for (const Pair& p : r.pairs) {
      size_t k = t.path(p.client, p.server, path);
      for (size_t i = 0; i < k; ++i) EXPECT_TRUE(used.insert(path[i]).second);
    }
  }
  EXPECT_GT(alone, 0u);
  json fault_list = json::array();
  for (const Fault& f : m.faults()) fault_list.push_back(m.fault_json(f));
  json score = score_findings(findings_json(d.run), fault_list, false);
  EXPECT_EQ(score["found"], 5) << findings_json(d.run).dump(1);
  EXPECT_EQ(score["false"], 0) << findings_json(d.run).dump(1);
  for (const json& f : findings_json(d.run)) {
    if (f["kind"] != "unreachable") {
      EXPECT_GT(f["confirmed"].get<int>(), 0) << f.dump();
    }
  }
}

TEST(ClusterAdaptive, FatTreeAndTreesToo) {
  json faults = json::parse(R"([
      {"kind": "slow_uplink", "leaf": "leaf003", "factor": 3},
      {"kind": "slow_switch", "switch": "leaf010", "factor": 3},
      {"kind": "slow_node", "host": "n00100", "factor": 3}])");
  FabricModel m = model(
      256, {{"kind", "fat_tree"}, {"leaves", 16}, {"hosts_per_leaf", 16}, {"spines", 4}}, faults);
  Driven d = drive(m, 9);
  json fault_list = json::array();
  for (const Fault& f : m.faults()) fault_list.push_back(m.fault_json(f));
  json score = score_findings(findings_json(d.run), fault_list, false);
  EXPECT_EQ(score["found"], 3) << findings_json(d.run).dump(1);
  EXPECT_EQ(score["false"], 0) << findings_json(d.run).dump(1);
}

}  // namespace
}  // namespace fabperf::cluster
