// Tests of --baseline (cluster/baseline.h): an earlier run's JSON read back in each of its
// value forms, refused when it measured other tests or figures, hosts matched by name (and
// listed when in one run only), and each switch, node and link compared against both runs'
// spread.
#include <gtest/gtest.h>

#include <memory>

#include "cluster/baseline.h"
#include "cluster/fabric_model.h"
#include "cluster/matrix_run.h"
#include "e2e_robust_util.h"
#include "fabric_test_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using fabperf::testing::small_dragonfly_topology;
using fabperf::testing::TempDir;
using nlohmann::json;

const FigureDef kLat{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true};
const FigureDef kBw{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher,
                    false};

// Every pair of the model measured once; `rename` renames host 0 (a host in one run only);
// `sparse` keeps every fifth pair only (the JSON then has "pairs", not "values").
MatrixRun run_of(const json& faults, uint64_t seed, const std::string& rename = "",
                 bool sparse = false) {
  json doc = fabric_model(64, small_dragonfly_topology(), faults, 0.02);
  doc["seed"] = seed;
  auto m = FabricModel::parse(doc.dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  MatrixRun run;
  run.started = "2026-01-0" + std::to_string(seed % 9 + 1) + "T00:00:00Z";
  run.pattern = "all";
  std::vector<std::string> hosts = m->host_names();
  if (!rename.empty()) hosts[0] = rename;
  for (int r = 0; r < 64; ++r) run.ranks.push_back({r, hosts[static_cast<size_t>(r)], true, ""});
  Topology topo = m->topology();
  if (!rename.empty()) {
    // The same shape under the renamed host.
    Topology t(TopologyKind::kDragonfly);
    for (const std::string& g : topo.groups()) t.add_group(g);
    for (const auto& s : topo.switches()) t.add_switch(s.name, s.group, -1);
    for (int r = 0; r < 64; ++r) t.add_host(hosts[static_cast<size_t>(r)], r / 4);
    t.place_ranks(hosts, nullptr);
    topo = std::move(t);
  }
  run.topology = std::make_shared<const Topology>(std::move(topo));
  run.tests.emplace_back("tcp_lat", kLat, 64, MatrixLayout::kSparse);
  run.tests.emplace_back("tcp_bw", kBw, 64, MatrixLayout::kSparse);
  uint64_t draw = 1, k = 0;
  for (int a = 0; a < 64; ++a) {
    for (int b = a + 1; b < 64; ++b) {
      if (sparse && k++ % 5 != 0) continue;
      for (TestColumn& t : run.tests)
        t.matrix.set(a, b, m->measure(t.figure.kind, a, b, draw++, 0));
    }
  }
  run.judge();
  return run;
}

std::string written(const MatrixRun& run, const TempDir& dir, const std::string& name) {
  Status s = write_matrix_json(run, dir.file(name));
  EXPECT_TRUE(s.ok()) << s.message();
  return dir.file(name);
}

std::vector<BaselineTest> both() {
  return {{"tcp_lat", "latency_ns.p50"}, {"tcp_bw", "bandwidth.recv_Bps"}};
}

TEST(ClusterBaseline, RefusesOtherTestsFiguresAndFiles) {
  TempDir dir;
  std::string path = written(run_of(json::array(), 1), dir, "a.json");
  EXPECT_TRUE(load_baseline(path, both()).ok());
  auto other = load_baseline(path, {{"udp_lat", "latency_ns.p50"}});
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), Code::kUsage);
  EXPECT_EQ(other.status().message(),
            "--baseline " + path +
                ": it measured tcp_lat (latency_ns.p50), tcp_bw (bandwidth.recv_Bps), not udp_lat "
                "(latency_ns.p50): a baseline must be a run of the same tests and figures");
  auto figure = load_baseline(path, {{"tcp_bw", "msg_rate"}});
  ASSERT_FALSE(figure.ok());
  EXPECT_NE(figure.status().message().find("not tcp_bw (msg_rate)"), std::string::npos);
  fabperf::testing::write_file(dir.file("pair.json"), "{\"tool\":\"fabperf\",\"results\":[]}",
                               0644);
  auto pair = load_baseline(dir.file("pair.json"), both());
  ASSERT_FALSE(pair.ok());
  EXPECT_NE(pair.status().message().find("not the --json report of a --matrix run"),
            std::string::npos);
  fabperf::testing::write_file(dir.file("junk.json"), "{", 0644);
  EXPECT_FALSE(load_baseline(dir.file("junk.json"), both()).ok());
  // Review N6: a number no double holds is named by its field, never an abort.
  auto huge = parse_baseline(
      R"({"mode":"matrix","matrix":{"tests":[{"test":"tcp_lat","figure":1e999999}]}})", "huge.json",
      both());
  ASSERT_FALSE(huge.ok());
  EXPECT_EQ(huge.status().code(), Code::kUsage);
  EXPECT_NE(huge.status().message().find("field matrix.tests[0].figure: the number 1e999999 is "
                                         "out of range"),
            std::string::npos)
      << huge.status().message();
  // A field of the wrong type is refused, naming the file, never thrown.
  auto typed = parse_baseline(R"({"mode":"matrix","matrix":{"tests":[{"test":5,"figure":[]}]}})",
                              "typed.json", both());
  ASSERT_FALSE(typed.ok());
  EXPECT_EQ(typed.status().message(),
            "--baseline typed.json: field matrix.tests[0].test: not a string");
  EXPECT_FALSE(load_baseline(dir.file("none.json"), both()).ok());
}

TEST(ClusterBaseline, NamesRegressionsAndImprovementsWithTheirSize) {
  TempDir dir;
  // Before: node n00005 slow. Now: it is mended, and switch g02s01 has gone slow.
  MatrixRun before =
      run_of(json::parse(R"([{"kind": "slow_node", "host": "n00005", "factor": 3}])"), 1);
  MatrixRun now =
      run_of(json::parse(R"([{"kind": "slow_switch", "switch": "g02s01", "factor": 2}])"), 2);
  auto base = load_baseline(written(before, dir, "before.json"), both());
  ASSERT_TRUE(base.ok()) << base.status().message();
  json c = compare_with_baseline(now, **base);
  EXPECT_EQ(c["hosts_matched"], 64);
  EXPECT_TRUE(c["hosts_only_now"].empty());
  EXPECT_EQ(c["tests"][0]["pairs_compared"], 64 * 63 / 2);
  bool regression = false, improvement = false;
  for (const json& ch : c["changes"]) {
    if (ch["kind"] == "switch" && ch["switch"] == "g02s01") {
      EXPECT_EQ(ch["direction"], "regression");
      EXPECT_NEAR(ch["change"].get<double>(), 2.0, 0.15);
      EXPECT_GT(ch["z"].get<double>(), 5);
      regression = true;
    } else if (ch["kind"] == "node" && ch["host"] == "n00005") {
      EXPECT_EQ(ch["direction"], "improvement");
      EXPECT_NEAR(ch["change"].get<double>(), 1.0 / 3, 0.05);
      improvement = true;
    } else {
      ADD_FAILURE() << "a change that is not: " << ch.dump();
    }
  }
  EXPECT_TRUE(regression && improvement) << c.dump(1);
  EXPECT_EQ(c["regressions"], 2);  // in both tests
  std::string text = baseline_text(c);
  EXPECT_NE(text.find("regression switch g02s01 in tcp_lat: 2."), std::string::npos) << text;
}

TEST(ClusterBaseline, SameFabricTwiceChangesNothing) {
  TempDir dir;
  json faults = json::parse(R"([{"kind": "slow_switch", "switch": "g01s01", "factor": 2}])");
  auto base = load_baseline(written(run_of(faults, 3), dir, "b.json"), both());
  ASSERT_TRUE(base.ok());
  json c = compare_with_baseline(run_of(faults, 4), **base);
  EXPECT_TRUE(c["changes"].empty()) << c["changes"].dump(1);
}

TEST(ClusterBaseline, HostsInOneRunOnlyAreListedAndSparseValuesRead) {
  TempDir dir;
  MatrixRun before = run_of(json::array(), 5, "", true);
  auto base = load_baseline(written(before, dir, "s.json"), both());
  ASSERT_TRUE(base.ok());
  EXPECT_TRUE((*base)->doc["matrix"]["tests"][0].contains("pairs"));  // the sparse form
  MatrixRun now = run_of(json::array(), 6, "newhost");
  json c = compare_with_baseline(now, **base);
  EXPECT_EQ(c["hosts_matched"], 63);
  EXPECT_EQ(c["hosts_only_now"], (json{"newhost"}));
  EXPECT_EQ(c["hosts_only_before"], (json{"n00000"}));
  uint64_t compared = c["tests"][0]["pairs_compared"];
  EXPECT_GT(compared, 300u);
  EXPECT_LT(compared, 64u * 63 / 2 / 5 + 1);
  EXPECT_NE(baseline_text(c).find(
                "1 host only in this run: newhost; 1 host only in the baseline: n00000"),
            std::string::npos)
      << baseline_text(c);
}

}  // namespace
}  // namespace fabperf::cluster
