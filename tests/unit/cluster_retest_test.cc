// Tests of the retests alone with switch levels (cluster/retest.h) and of how the findings
// judge them (fabric_findings.cc, locate.h's alone_residual): rounds drawn from a model whose
// faults include what contention made of the fabric, retests alone from the true fabric, in the
// coordinator's waves. A single run's spread (figure_matrix.h) and the best-of-n offset too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "cluster/fabric_findings.h"
#include "cluster/fabric_model.h"
#include "cluster/findings.h"
#include "cluster/locate.h"
#include "cluster/matrix_run.h"
#include "cluster/retest.h"
#include "cluster/worse_log.h"
#include "fabric_test_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using fabperf::testing::small_dragonfly_topology;
using nlohmann::json;

FabricModel model_of(const json& faults, double jitter) {
  auto m = FabricModel::parse(fabric_model(64, small_dragonfly_topology(), faults, jitter).dump(),
                              "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// Every pair measured `passes` times from `rounds` (the fabric as the contended rounds saw
// it), then the coordinator's waves of retests alone drawn from `alone` (the fabric itself).
MatrixRun run_with_retests(const FabricModel& rounds, const FabricModel& alone, int passes,
                           size_t waves = kRetestWaves) {
  MatrixRun run;
  run.pattern = "all";
  run.passes = static_cast<uint64_t>(passes);
  const int n = rounds.hosts();
  for (int r = 0; r < n; ++r)
    run.ranks.push_back({r, rounds.host_names()[static_cast<size_t>(r)], true, ""});
  run.topology = std::make_shared<const Topology>(rounds.topology());
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false}, n,
      MatrixLayout::kTriangle);
  TestColumn& t = run.tests[0];
  uint64_t draw = 1;
  for (int p = 0; p < passes; ++p) {
    for (int a = 0; a < n; ++a) {
      for (int b = a + 1; b < n; ++b) {
        t.matrix.record(a, b, rounds.measure(t.figure.kind, a, b, draw++, 0), t.figure.better);
      }
    }
  }
  for (size_t wave = 0; wave < waves; ++wave) {
    run.judge();
    std::vector<RetestPair> pairs = retest_candidates(run, &run.fit, 100);
    if (pairs.empty()) break;
    for (const RetestPair& p : pairs) {
      t.matrix.set_retest(p.pair.client, p.pair.server,
                          alone.measure(t.figure.kind, p.pair.client, p.pair.server, draw++, 0));
    }
  }
  run.judge();
  return run;
}

bool names(const MatrixRun& run, const std::string& kind, const std::string& field,
           const json& value) {
  for (const json& f : findings_json(run)) {
    if (f["kind"] == kind && f[field] == value) return true;
  }
  return false;
}

size_t links_named(const MatrixRun& run) {
  size_t n = 0;
  for (const json& f : findings_json(run)) n += f["kind"] == "link";
  return n;
}

// A model with the fleet bench's noise: 3% jitter and one run in `per` five times off.
FabricModel noisy_model_of(const json& faults, int per) {
  json j = fabric_model(64, small_dragonfly_topology(), faults, 0.03);
  j["noise"]["outlier_rate"] = 1.0 / per;
  j["noise"]["outlier_factor"] = 5;
  auto m = FabricModel::parse(j.dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

// A link slow in 30% of its runs, measured in 2 passes: one slow run of two is what the
// outliers (one run in 200 here) give some healthy pair of the job, so the rounds alone do not
// name it. Re-measured alone until its runs decide it, it is named, and no other link is.
TEST(ClusterRetest, AFlappingLinkIsReMeasuredUntilItsRunsDecideIt) {
  const json flap = json::parse(
      R"({"kind": "flapping_link", "hosts": ["n00003", "n00041"], "factor": 4, "fraction": 0.3})");
  FabricModel m = noisy_model_of(json::array({flap}), 200);
  MatrixRun run = run_with_retests(m, m, 2);
  const std::vector<float>* alone = run.tests[0].matrix.retests(3, 41);
  ASSERT_NE(alone, nullptr);
  EXPECT_GE(alone->size(), 4u);
  EXPECT_TRUE(names(run, "link", "hosts", json::array({"n00003", "n00041"})))
      << findings_json(run).dump(1);
  EXPECT_EQ(links_named(run), 1u) << findings_json(run).dump(1);
}

// A wave's limit keeps the most severe of all its candidates, in the order all of them would
// take (retest.cc keeps at most that many of each kind while it looks, not every candidate):
// with many candidates (one run in 5 five times off, 3 passes), the pairs under a small limit
// are the start of those under a limit above them all.
TEST(ClusterRetest, AWavesLimitTakesTheMostSevereOfAllItsCandidates) {
  const json slow = json::parse(R"({"kind": "slow_node", "host": "n00007", "factor": 3})");
  FabricModel m = noisy_model_of(json::array({slow}), 5);
  MatrixRun run = run_with_retests(m, m, 3, 0);
  const std::vector<RetestPair> all = retest_candidates(run, &run.fit, 1000000);
  ASSERT_GT(all.size(), 300u);
  for (size_t limit : {size_t{1}, size_t{7}, size_t{100}}) {
    SCOPED_TRACE(limit);
    const std::vector<RetestPair> some = retest_candidates(run, &run.fit, limit);
    ASSERT_LT(some.size(), all.size());
    ASSERT_GT(some.size(), limit);  // the slow node's own pairs come on top of the limit
    for (size_t i = 0; i < some.size(); ++i) {
      EXPECT_EQ(some[i].test, all[i].test) << i;
      EXPECT_EQ(some[i].pair.client, all[i].pair.client) << i;
      EXPECT_EQ(some[i].pair.server, all[i].pair.server) << i;
      EXPECT_EQ(some[i].severity, all[i].severity) << i;
    }
  }
}

// Healthy pairs with jitter and outliers (one run in 50 five times off) over 4 passes: many
// are off in one run, are re-measured alone, and none is named; nor without --passes, where a
// pair off in its one run and fine alone is cleared as before.
TEST(ClusterRetest, HealthyPairsOffInSomeRunAreClearedAlone) {
  FabricModel m = noisy_model_of(json::array(), 50);
  MatrixRun run = run_with_retests(m, m, 4);
  EXPECT_GT(run.tests[0].matrix.retest_count(), 20u);
  EXPECT_EQ(links_named(run), 0u) << findings_json(run).dump(1);
  MatrixRun once = run_with_retests(m, m, 1);
  EXPECT_EQ(links_named(once), 0u) << findings_json(once).dump(1);
}

// The rule's two sides: named below the level; cleared when a link flapping in kFlapLeast of
// its runs would have shown more.
TEST(ClusterRetest, FlapBinomials) {
  EXPECT_NEAR(binomial_tail(1, {10}, {0.1}), 1 - std::pow(0.9, 10), 1e-12);
  EXPECT_NEAR(binomial_tail(2, {1, 1}, {0.5, 0.5}), 0.25, 1e-12);
  EXPECT_NEAR(binomial_at_most(0, 10, 0.3), std::pow(0.7, 10), 1e-12);
  EXPECT_NEAR(binomial_at_most(1, 20, 0.3), std::pow(0.7, 20) + 20 * 0.3 * std::pow(0.7, 19),
              1e-12);
  EXPECT_EQ(binomial_at_most(5, 5, 0.3), 1.0);
}

// A local link whose every pair crosses a switch the fit finds bad was never re-measured
// alone (its pairs through no other bad element were none) and stayed named. Its pairs that
// cross the switch are re-measured now, the switch's factor taken out of them: the link
// slow only in the rounds is cleared, a link slow alone is confirmed, the switch named.
TEST(ClusterRetest, AnElementWhosePairsAllCrossAnotherSuspectIsRetestedAlone) {
  const json sw = json::parse(R"({"kind": "slow_switch", "switch": "g02s01", "factor": 3})");
  const json link = json::parse(
      R"({"kind": "slow_local_link", "switches": ["g02s01", "g02s03"], "factor": 1.6})");
  FabricModel contended = model_of(json::array({sw, link}), 0.02);
  FabricModel fine_alone = model_of(json::array({sw}), 0.02);
  MatrixRun cleared = run_with_retests(contended, fine_alone, 1);
  EXPECT_TRUE(names(cleared, "switch", "switch", "g02s01")) << findings_json(cleared).dump(1);
  EXPECT_FALSE(names(cleared, "local_link", "switches", (json{"g02s01", "g02s03"})))
      << findings_json(cleared).dump(1);
  EXPECT_EQ(findings_json(cleared).size(), 1u) << findings_json(cleared).dump(1);

  MatrixRun confirmed = run_with_retests(contended, contended, 1);
  EXPECT_TRUE(names(confirmed, "switch", "switch", "g02s01")) << findings_json(confirmed).dump(1);
  EXPECT_TRUE(names(confirmed, "local_link", "switches", (json{"g02s01", "g02s03"})))
      << findings_json(confirmed).dump(1);
}

// Nodes about 1.1x off in every round (the company they kept) and fine alone: a run alone is
// one draw, the rounds' figures the best of 10 passes, so alone they look worse than the
// baseline by the best-of-10 gap (1.5 single-run spreads) whatever they are. Judged as the
// best of 10 would be, and beyond a single run's noise, none is confirmed; a node truly 2x
// off alone still is.
TEST(ClusterRetest, ANodeSlightlyOffShownByJitterAloneIsNotConfirmed) {
  json slight = json::array();
  for (const char* host : {"n00005", "n00021", "n00038", "n00050"}) {
    slight.push_back({{"kind", "slow_node"}, {"host", host}, {"factor", 1.1}});
  }
  const json slow = json::parse(R"({"kind": "slow_node", "host": "n00060", "factor": 2})");
  json in_rounds = slight;
  in_rounds.push_back(slow);
  FabricModel rounds = model_of(in_rounds, 0.03);
  FabricModel alone = model_of(json::array({slow}), 0.03);
  MatrixRun run = run_with_retests(rounds, alone, 10);
  for (const json& f : slight) {
    EXPECT_FALSE(names(run, "node", "host", f["host"])) << findings_json(run).dump(1);
  }
  EXPECT_TRUE(names(run, "node", "host", "n00060")) << findings_json(run).dump(1);
  EXPECT_NEAR(run.fit.tests[0].run_spread, 0.03, 0.005);
  EXPECT_NEAR(run.fit.tests[0].alone_offset, 0.03 * 1.5388, 0.01);
}

// Adaptive's localising measures mostly around its suspects: here every pair through g00's
// three global links (all slow) and an eighth of the others between groups. Weighed by pairs,
// the baseline between groups sat on the slow links and only the slowest was named; weighed
// by link, all three are.
TEST(ClusterRetest, ClassBaselineWeighsEachLinkOnceNotEachPair) {
  FabricModel m = model_of(json::parse(R"([
      {"kind": "slow_uplink", "groups": ["g00", "g01"], "factor": 2.2},
      {"kind": "slow_uplink", "groups": ["g00", "g02"], "factor": 2.25},
      {"kind": "slow_uplink", "groups": ["g00", "g03"], "factor": 3.4}])"),
                           0.02);
  MatrixRun run;
  run.pattern = "adaptive";
  const int n = m.hosts();
  for (int r = 0; r < n; ++r) {
    run.ranks.push_back({r, m.host_names()[static_cast<size_t>(r)], true, ""});
  }
  run.topology = std::make_shared<const Topology>(m.topology());
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false}, n,
      MatrixLayout::kTriangle);
  TestColumn& t = run.tests[0];
  uint64_t draw = 1;
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      const bool between = a / 16 != b / 16, around = a / 16 == 0;
      if (between && !around && (a + b) % 8 != 0) continue;
      t.matrix.record(a, b, m.measure(t.figure.kind, a, b, draw++, 0), t.figure.better);
    }
  }
  run.judge();
  for (const char* g : {"g01", "g02", "g03"}) {
    EXPECT_TRUE(names(run, "uplink", "groups", (json{"g00", g}))) << findings_json(run).dump(1);
  }
  EXPECT_EQ(findings_json(run).size(), 3u) << findings_json(run).dump(1);
}

TEST(ClusterRetest, ExpectedBestOfNDraws) {
  EXPECT_EQ(expected_best_of(1), 0.0);
  EXPECT_NEAR(expected_best_of(2), 1 / std::sqrt(M_PI), 1e-4);
  EXPECT_NEAR(expected_best_of(10), 1.5388, 1e-3);
  EXPECT_NEAR(expected_best_of(16), 1.7660, 1e-3);
}

// A single run's spread comes from each pair's first two runs, whatever the pair's level.
TEST(ClusterRetest, RunSpreadFromEachPairsFirstTwoRuns) {
  FigureMatrix m(64, MatrixLayout::kTriangle);
  EXPECT_EQ(m.run_spread(), 0.0);
  // Two runs each, levels far apart, each pair's second run e^{+-0.0674} off its first: a
  // difference of 0.0674 is the median |difference| of two runs of spread 0.05.
  for (int a = 0; a < 32; ++a) {
    const double level = 1e9 * (1 + a);
    m.record(a, a + 32, level, Better::kHigher);
    m.record(a, a + 32, level * std::exp(a % 2 == 0 ? 0.0674 : -0.0674), Better::kHigher);
    m.record(a, a + 32, level * 0.5, Better::kHigher);  // a third run: not a first repeat
  }
  EXPECT_NEAR(m.run_spread(), 0.0674 / (0.6745 * std::sqrt(2.0)), 0.002);
}

// The log of worse runs, once full of runs a little off (a job's jitter puts one in a third of
// its pairs), still takes a new pair's run as far off as a flap, up to as many again: at 10,000
// ranks the jitter filled it early in the second pass, and 16 of 25 flapping links lost the
// slow runs that name them. A pair already in the log keeps taking its runs.
TEST(ClusterRetest, TheWorseRunsLogKeepsRoomForFlaps) {
  FigureMatrix m(16, MatrixLayout::kTriangle);
  m.set_worse_log_limit(2);
  auto runs = [&](int a, int b, double first, double then) {
    m.record(a, b, first, Better::kLower);
    m.record(a, b, then, Better::kLower);
  };
  runs(0, 1, 100, 120);  // 1.2x: a little worse, logged while there is room
  runs(0, 2, 100, 115);
  ASSERT_FALSE(m.worse_values(0, 1).empty());
  ASSERT_FALSE(m.worse_values(0, 2).empty());
  runs(0, 3, 100, 125);  // the log is full for runs a little off
  EXPECT_TRUE(m.worse_values(0, 3).empty());
  runs(0, 4, 100, 400);  // as far off as a flap: logged
  ASSERT_FALSE(m.worse_values(0, 4).empty());
  EXPECT_EQ(m.worse_values(0, 4), std::vector<float>{400});
  runs(0, 5, 300, 100);  // the slow run first: the same
  ASSERT_FALSE(m.worse_values(0, 5).empty());
  EXPECT_EQ(m.worse_values(0, 5), std::vector<float>{300});
  runs(0, 6, 100, 200);  // past twice the limit: no more pairs
  EXPECT_TRUE(m.worse_values(0, 6).empty());
  m.record(0, 1, 130, Better::kLower);  // a pair in the log keeps its runs
  EXPECT_EQ(m.worse_values(0, 1), (std::vector<float>{120, 130}));
  // Bandwidth, the other way: a flap is a fraction of the best.
  FigureMatrix bw(8, MatrixLayout::kTriangle);
  bw.set_worse_log_limit(1);
  bw.record(0, 1, 100, Better::kHigher);
  bw.record(0, 1, 80, Better::kHigher);  // 1.25x below: logged while there is room
  bw.record(0, 2, 100, Better::kHigher);
  bw.record(0, 2, 85, Better::kHigher);  // 1.18x below: the log is full
  bw.record(0, 3, 100, Better::kHigher);
  bw.record(0, 3, 25, Better::kHigher);  // 4x below: logged
  EXPECT_FALSE(bw.worse_values(0, 1).empty());
  EXPECT_TRUE(bw.worse_values(0, 2).empty());
  ASSERT_FALSE(bw.worse_values(0, 3).empty());
  EXPECT_EQ(bw.worse_values(0, 3), std::vector<float>{25});
}

// The log's compact form (cluster/worse_log.h): a key's runs, however many, come back as they
// were added (up to kMaxRuns), keys that collide in the table stay apart through its growth,
// and the bytes stay near 16 per pair and 16 per 3 more runs.
TEST(ClusterWorseLog, RunsComeBackWhateverTheirCount) {
  WorseLog log;
  auto runs_of = [&](uint64_t key) {
    std::vector<float> out;
    log.for_each(key, [&](float v) { out.push_back(v); });
    std::sort(out.begin(), out.end());
    return out;
  };
  EXPECT_EQ(log.count(7), 0u);
  EXPECT_TRUE(runs_of(7).empty());
  for (uint32_t n = 1; n <= 8; ++n) {
    for (uint32_t i = 0; i < n; ++i) log.add(1000 + n, static_cast<float>(n * 100 + i));
  }
  for (uint32_t n = 1; n <= 8; ++n) {
    std::vector<float> want;
    for (uint32_t i = 0; i < n; ++i) want.push_back(static_cast<float>(n * 100 + i));
    EXPECT_EQ(log.count(1000 + n), n);
    EXPECT_EQ(runs_of(1000 + n), want) << n << " runs";
  }
  for (uint32_t i = 0; i < 300; ++i) log.add(5, 1.0f);
  EXPECT_EQ(log.count(5), WorseLog::kMaxRuns);
  EXPECT_EQ(log.pairs(), 9u);
  EXPECT_FALSE(log.contains(6));
}

TEST(ClusterWorseLog, ManyKeysThroughGrowthAndItsSize) {
  WorseLog log;
  constexpr uint64_t kKeys = 98000;
  for (uint64_t k = 0; k < kKeys; ++k) log.add(k * 10007, static_cast<float>(k));
  for (uint64_t k = 0; k < kKeys; k += 3) log.add(k * 10007, static_cast<float>(k) + 0.5f);
  EXPECT_EQ(log.pairs(), kKeys);
  for (uint64_t k = 0; k < kKeys; k += 997) {
    std::vector<float> got;
    log.for_each(k * 10007, [&](float v) { got.push_back(v); });
    std::sort(got.begin(), got.end());
    std::vector<float> want = {static_cast<float>(k)};
    if (k % 3 == 0) want.push_back(static_cast<float>(k) + 0.5f);
    EXPECT_EQ(got, want) << k;
  }
  EXPECT_FALSE(log.contains(kKeys * 10007 + 1));
  log.add(WorseLog::kMaxKey - 1, 2.0f);
  EXPECT_EQ(log.count(WorseLog::kMaxKey - 1), 1u);
  // 98,001 keys in 131,072 slots of 16 bytes (three quarters full), and a block of 16 for
  // each third key's second run (32,667, in 8 chunks of 4,096): 2.5 MiB, where a hash node and
  // a vector each took about 9.
  EXPECT_LE(log.bytes(), size_t{131072} * 16 + size_t{8} * 4096 * 16 + 1024);
}

}  // namespace
}  // namespace fabperf::cluster
