// Tests of the fabric sections of the HTML report (report/matrix_fabric_charts.h) from real
// matrix JSON: the findings table, a large job's heatmap by switch with the drill-down of the
// switches the findings name, the rank heatmap placed by switch with separators, values read
// from each JSON form, and the difference from a baseline.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "cluster/baseline.h"
#include "cluster/fabric_model.h"
#include "cluster/matrix_run.h"
#include "e2e_robust_util.h"
#include "fabric_test_util.h"
#include "report/matrix_values.h"
#include "report/report_model.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using fabperf::testing::TempDir;
using nlohmann::json;

// A fat tree of `hosts` hosts (16 a leaf), every `stride`-th pair measured once.
MatrixRun tree_run(int hosts, const json& faults, int stride) {
  json doc = fabric_model(
      hosts, {{"kind", "fat_tree"}, {"leaves", hosts / 16}, {"hosts_per_leaf", 16}, {"spines", 2}},
      faults, 0.02);
  auto m = FabricModel::parse(doc.dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  MatrixRun run;
  run.started = "2026-01-01T00:00:00Z";
  run.pattern = "all";
  for (int r = 0; r < hosts; ++r)
    run.ranks.push_back({r, m->host_names()[static_cast<size_t>(r)], true, ""});
  run.topology = std::make_shared<const Topology>(m->topology());
  run.tests.emplace_back(
      "tcp_lat", FigureDef{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true},
      hosts, stride > 1 ? MatrixLayout::kSparse : MatrixLayout::kTriangle);
  uint64_t draw = 1, k = 0;
  for (int a = 0; a < hosts; ++a) {
    for (int b = a + 1; b < hosts; ++b) {
      if (k++ % static_cast<uint64_t>(stride) != 0) continue;
      run.tests[0].matrix.set(a, b, m->measure(FigureKind::kLatencyP50, a, b, draw++, 0));
    }
  }
  run.judge();
  return run;
}

json written(const MatrixRun& run, const TempDir& dir, const std::string& name) {
  EXPECT_TRUE(write_matrix_json(run, dir.file(name)).ok());
  std::ifstream in(dir.file(name));
  std::stringstream text;
  text << in.rdbuf();
  return json::parse(text.str());
}

const json* section_ending(const json& model, const std::string& suffix) {
  for (const json& s : model["sections"]) {
    std::string id = s["id"];
    if (id.size() >= suffix.size() &&
        id.compare(id.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return &s;
    }
  }
  return nullptr;
}

TEST(ClusterReportFabric, LargeJobByLeafWithDrillDownAndFindings) {
  TempDir dir;
  MatrixRun run = tree_run(
      320, json::parse(R"([{"kind": "slow_switch", "switch": "leaf007", "factor": 3}])"), 1);
  json doc = written(run, dir, "m.json");
  auto model = report::build_report_model({{"run", doc}});
  ASSERT_TRUE(model.ok()) << model.status().message();
  const json* findings = section_ending(*model, "-findings");
  ASSERT_NE(findings, nullptr) << model->dump(1).substr(0, 2000);
  EXPECT_EQ(findings->at("tables")[0]["rows"][0][0]["t"], "switch leaf007");
  const json* by_switch = section_ending(*model, "-m0");
  ASSERT_NE(by_switch, nullptr);
  const json& heat = by_switch->at("charts")[0];
  EXPECT_EQ(heat["type"], "heatmap");
  EXPECT_EQ(heat["labels"].size(), 20u);  // 20 leaves, not 320 ranks
  EXPECT_EQ(heat["labels"][7], "leaf007");
  const json* drill = section_ending(*model, "-m0-d0");
  ASSERT_NE(drill, nullptr);
  EXPECT_EQ(drill->at("charts")[0]["labels"].size(), 16u);  // leaf007's ranks
  EXPECT_EQ(drill->at("charts")[0]["labels"][0], "n00112 (112)");
  EXPECT_EQ(section_ending(*model, "-nodes"), nullptr);  // 320 nodes: the JSON lists them
}

TEST(ClusterReportFabric, SmallJobPlacedBySwitchWithSeparatorsFromSparsePairs) {
  TempDir dir;
  MatrixRun run = tree_run(64, json::array(), 7);
  json doc = written(run, dir, "s.json");
  ASSERT_TRUE(doc["matrix"]["tests"][0].contains("pairs"));
  auto model = report::build_report_model({{"run", doc}});
  ASSERT_TRUE(model.ok()) << model.status().message();
  const json* sec = section_ending(*model, "-m0");
  ASSERT_NE(sec, nullptr);
  const json& heat = sec->at("charts")[0];
  EXPECT_EQ(heat["labels"].size(), 64u);
  EXPECT_EQ(heat["separators"], (json{16, 32, 48}));
  EXPECT_EQ(heat["cells"].size(), doc["matrix"]["tests"][0]["pairs"].size());
}

TEST(ClusterReportFabric, Log16ValuesRoundTrip) {
  report::Log16 code(100, 1e6);
  for (double v : {100.0, 123.456, 5000.0, 999999.0}) {
    EXPECT_NEAR(code.decode(code.encode(v)) / v, 1.0, 1e-4) << v;
  }
  std::vector<uint8_t> bytes = {0, 1, 2, 250, 251, 252, 253};
  for (size_t len = 0; len <= bytes.size(); ++len) {
    auto back = report::base64_decode(report::base64_encode(bytes.data(), len));
    ASSERT_TRUE(back.has_value());
    EXPECT_EQ(*back, std::vector<uint8_t>(bytes.begin(), bytes.begin() + static_cast<long>(len)));
  }
  EXPECT_FALSE(report::base64_decode("ab$d").has_value());
  json test = {{"values_log16",
                {{"min", 100},
                 {"ratio", code.ratio()},
                 {"rows",
                  {report::base64_encode(std::vector<uint8_t>{0, 0, 1, 0}.data(), 4),
                   report::base64_encode(std::vector<uint8_t>{2, 0, 0, 0}.data(), 4)}}}}};
  std::vector<std::tuple<size_t, size_t, std::optional<double>>> got;
  ASSERT_TRUE(
      report::for_each_matrix_value(test, 2, [&](size_t a, size_t b, std::optional<double> v) {
        got.emplace_back(a, b, v);
      }).ok());
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(std::get<2>(got[0]), std::nullopt);  // code 1: failed
  EXPECT_NEAR(*std::get<2>(got[1]), 100, 1e-9);  // code 2: the minimum
}

TEST(ClusterReportFabric, BaselineDifferenceIsDrawn) {
  TempDir dir;
  MatrixRun before = tree_run(64, json::array(), 1);
  MatrixRun now =
      tree_run(64, json::parse(R"([{"kind": "slow_uplink", "leaf": "leaf001", "factor": 2}])"), 1);
  EXPECT_TRUE(write_matrix_json(before, dir.file("b.json")).ok());
  auto base = load_baseline(dir.file("b.json"), {{"tcp_lat", "latency_ns.p50"}});
  ASSERT_TRUE(base.ok()) << base.status().message();
  now.baseline = compare_with_baseline(now, **base);
  json doc = written(now, dir, "n.json");
  auto model = report::build_report_model({{"run", doc}});
  ASSERT_TRUE(model.ok());
  const json* sec = section_ending(*model, "-baseline");
  ASSERT_NE(sec, nullptr);
  EXPECT_EQ(sec->at("tables")[0]["rows"][0][0]["t"], "uplinks of leaf001");
  EXPECT_EQ(sec->at("tables")[0]["rows"][0][2]["t"], "regression");
  ASSERT_FALSE(sec->at("charts").empty());
  EXPECT_EQ(sec->at("charts")[0]["labels"].size(), 4u);  // by leaf
}

}  // namespace
}  // namespace fabperf::cluster
