// Tests of the simulated fabric's model (cluster/fabric_model.h): the file format of
// ../shared/reference/fabric-model.md read as written, every kind of bad file refused with its
// place, and the measurements each fault kind makes.
#include <gtest/gtest.h>

#include <cmath>

#include "cluster/fabric_model.h"
#include "fabric_test_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::fabric_model;
using fabperf::testing::small_dragonfly_topology;
using fabperf::testing::small_fat_tree_topology;
using nlohmann::json;

FabricModel parsed(const json& doc) {
  auto m = FabricModel::parse(doc.dump(), "m.json");
  EXPECT_TRUE(m.ok()) << m.status().message();
  return std::move(*m);
}

double lat(const FabricModel& m, int a, int b, uint64_t draw = 1) {
  return m.measure(FigureKind::kLatencyP50, a, b, draw, 0);
}
double bw(const FabricModel& m, int a, int b, uint64_t draw = 1) {
  return m.measure(FigureKind::kRecvBandwidth, a, b, draw, 0);
}

TEST(ClusterFabricModel, ReadsTheReferenceExample) {
  json doc = fabric_model(
      4096,
      {{"kind", "dragonfly"}, {"groups", 16}, {"switches_per_group", 16}, {"hosts_per_switch", 16}},
      json::parse(R"([
    {"kind": "slow_link",     "hosts": ["n00012", "n03311"], "factor": 3},
    {"kind": "flapping_link", "hosts": ["n00400", "n00877"], "factor": 4, "fraction": 0.3},
    {"kind": "slow_node",     "host": "n00100", "factor": 2.5},
    {"kind": "dead_node",     "host": "n00200"},
    {"kind": "slow_switch",   "switch": "g03s07", "factor": 2},
    {"kind": "slow_local_link", "switches": ["g05s01", "g05s09"], "factor": 3},
    {"kind": "slow_uplink",   "groups": ["g03", "g11"], "factor": 3}])"));
  doc["seed"] = 7;
  doc["noise"] = {{"jitter", 0.03}, {"outlier_rate", 0.001}, {"outlier_factor", 5}};
  FabricModel m = parsed(doc);
  EXPECT_EQ(m.seed(), 7u);
  EXPECT_EQ(m.hosts(), 4096);
  EXPECT_EQ(m.host_names()[0], "n00000");
  EXPECT_EQ(m.host_names()[4095], "n04095");
  EXPECT_EQ(m.topology().switches()[3 * 16 + 7].name, "g03s07");
  EXPECT_EQ(m.topology().switch_of(17), 1);  // hosts fill switches in order
  ASSERT_EQ(m.faults().size(), 7u);
  EXPECT_TRUE(m.dead(200));
  EXPECT_FALSE(m.dead(201));
  for (const Fault& f : m.faults()) {
    json back = m.fault_json(f);
    EXPECT_TRUE(back.contains("kind"));
  }
  EXPECT_EQ(m.fault_json(m.faults()[6]),
            (json{{"kind", "slow_uplink"}, {"groups", {"g03", "g11"}}, {"factor", 3.0}}));
}

TEST(ClusterFabricModel, EachFaultSlowsWhatItTouches) {
  json faults = json::parse(R"([
    {"kind": "slow_node", "host": "n00005", "factor": 2},
    {"kind": "slow_switch", "switch": "g01s00", "factor": 3},
    {"kind": "slow_local_link", "switches": ["g02s00", "g02s01"], "factor": 5},
    {"kind": "slow_uplink", "groups": ["g00", "g03"], "factor": 7},
    {"kind": "slow_link", "hosts": ["n00001", "n00002"], "factor": 11}])");
  FabricModel m = parsed(fabric_model(64, small_dragonfly_topology(), faults, 0.0));
  const double same = 1800, group = 2300, other = 2900;
  EXPECT_NEAR(lat(m, 0, 3), same, 1e-6);
  EXPECT_NEAR(lat(m, 0, 4), group, 1e-6);
  EXPECT_NEAR(lat(m, 0, 20), other, 1e-6);
  EXPECT_NEAR(lat(m, 5, 4), 2 * same, 1e-6);  // the slow node, on every pair
  EXPECT_NEAR(lat(m, 5, 40), 2 * other, 1e-6);
  EXPECT_NEAR(lat(m, 16, 17), 3 * same, 1e-6);   // inside the slow switch: once
  EXPECT_NEAR(lat(m, 16, 40), 3 * other, 1e-6);  // and every pair leaving it
  EXPECT_NEAR(lat(m, 32, 36), 5 * group, 1e-6);  // g02s00 - g02s01
  EXPECT_NEAR(lat(m, 32, 40), group, 1e-6);      // g02s00 - g02s02: another local link
  EXPECT_NEAR(lat(m, 0, 48), 7 * other, 1e-6);   // g00 - g03
  EXPECT_NEAR(lat(m, 0, 32), other, 1e-6);       // g00 - g02
  EXPECT_NEAR(lat(m, 2, 1), 11 * same, 1e-6);    // the pair's own, either way round
  EXPECT_NEAR(bw(m, 0, 3), 190e9 / 8, 1);
  EXPECT_NEAR(bw(m, 16, 17), 190e9 / 8 / 3, 1);                                 // bandwidth divided
  EXPECT_NEAR(m.measure(FigureKind::kRecvBandwidth, 0, 3, 1, 1e9), 1e9, 1e-3);  // a shared link
}

TEST(ClusterFabricModel, NoiseFlappingAndOutliersFollowTheSeed) {
  json faults = json::parse(R"([{"kind": "flapping_link", "hosts": ["n00000", "n00001"],
                                 "factor": 4, "fraction": 0.3}])");
  json doc = fabric_model(64, small_fat_tree_topology(), faults, 0.03);
  doc["noise"]["outlier_rate"] = 0.01;
  doc["noise"]["outlier_factor"] = 5;
  FabricModel m = parsed(doc);
  int flaps = 0, outliers = 0;
  double log_sum = 0, log_sq = 0;
  const int n = 20000;
  for (int d = 0; d < n; ++d) {
    flaps += lat(m, 0, 1, static_cast<uint64_t>(d)) > 3 * 1800;
    double v = lat(m, 4, 5, static_cast<uint64_t>(d));
    outliers += v > 3 * 1800;
    if (v < 3 * 1800) {
      log_sum += std::log(v / 1800);
      log_sq += std::log(v / 1800) * std::log(v / 1800);
    }
    EXPECT_EQ(v, lat(m, 4, 5, static_cast<uint64_t>(d)));  // the same draw, the same value
  }
  EXPECT_NEAR(flaps / static_cast<double>(n), 0.3, 0.02);
  EXPECT_NEAR(outliers / static_cast<double>(n), 0.01, 0.003);
  double mean = log_sum / (n - outliers);
  EXPECT_NEAR(std::sqrt(log_sq / (n - outliers) - mean * mean), 0.03, 0.003);
  // Another model seed, other draws.
  doc["seed"] = 12;
  FabricModel other = parsed(doc);
  EXPECT_NE(lat(m, 4, 5, 9), lat(other, 4, 5, 9));
}

TEST(ClusterFabricModel, FatTreeUplinkSparesTheLeafInside) {
  json faults = json::parse(R"([{"kind": "slow_uplink", "leaf": "leaf002", "factor": 3}])");
  FabricModel m = parsed(fabric_model(64, small_fat_tree_topology(), faults, 0.0));
  EXPECT_EQ(m.topology().switches()[2].name, "leaf002");
  EXPECT_NEAR(lat(m, 8, 9), 1800, 1e-6);      // inside leaf002
  EXPECT_NEAR(lat(m, 8, 0), 3 * 2900, 1e-6);  // leaving it
  EXPECT_NEAR(lat(m, 0, 20), 2900, 1e-6);     // elsewhere
}

TEST(ClusterFabricModel, BadFilesAreRefusedWithTheirPlace) {
  struct Case {
    std::string text;
    std::string want;
  };
  json base = fabric_model(64, small_dragonfly_topology());
  auto with = [&](const std::string& pointer, const json& v) {
    json d = base;
    d[json::json_pointer(pointer)] = v;
    return d.dump();
  };
  auto fault = [&](const json& f) {
    json d = base;
    d["faults"] = json::array({f});
    return d.dump();
  };
  std::vector<Case> cases = {
      {"{\"hosts\": 4,\n \"topology\": }", "m.json: not valid JSON at line 2 column 14"},
      {"{\"seed\": 1e999999}",
       "m.json: not valid JSON: field seed: the number 1e999999 is out of range"},
      {"[1,2]", "m.json: not a JSON object"},
      {with("/topology/kind", "torus"), "topology.kind: unknown kind \"torus\""},
      {with("/hosts", 65), "hosts: 65 hosts do not fit the topology (16 switches of 4 hosts)"},
      {with("/hosts", 1), "hosts: 1 is out of range"},
      {with("/hosts", "many"), "hosts: not a whole number"},
      {with("/links/same_group/latency_us", -1), "links.same_group.latency_us: -1 is out of range"},
      {with("/extra", 1), "extra: unknown field"},
      {with("/noise/jitter", "x"), "noise.jitter: not a number"},
      {fault({{"kind", "slow_nod"}, {"host", "n00001"}, {"factor", 2}}),
       "faults[0].kind: unknown kind \"slow_nod\""},
      {fault({{"kind", "slow_node"}, {"host", "n00064"}, {"factor", 2}}),
       "faults[0].host: host n00064 does not exist"},
      {fault({{"kind", "slow_node"}, {"host", "n00001"}, {"factor", 0.5}}),
       "faults[0].factor: 0.5 is below 1"},
      {fault({{"kind", "slow_node"}, {"host", "n00001"}}), "faults[0].factor: missing"},
      {fault({{"kind", "slow_switch"}, {"switch", "g09s00"}, {"factor", 2}}),
       "faults[0].switch: switch g09s00 does not exist"},
      {fault({{"kind", "slow_local_link"}, {"switches", {"g00s00", "g01s00"}}, {"factor", 2}}),
       "are not joined by a local link"},
      {fault({{"kind", "slow_uplink"}, {"groups", {"g00", "g07"}}, {"factor", 2}}),
       "faults[0].groups: group g07 does not exist"},
      {fault({{"kind", "slow_link"}, {"hosts", {"n00001", "n00001"}}, {"factor", 2}}),
       "faults[0].hosts: names n00001 twice"},
      {fault({{"kind", "flapping_link"},
              {"hosts", {"n00001", "n00002"}},
              {"factor", 2},
              {"fraction", 1.5}}),
       "faults[0].fraction: 1.5 is out of range"},
      {fault({{"kind", "dead_node"}, {"host", "n00001"}, {"factor", 2}}),
       "faults[0].factor: not a field of a dead_node fault"},
  };
  for (const Case& c : cases) {
    auto m = FabricModel::parse(c.text, "m.json");
    ASSERT_FALSE(m.ok()) << c.text;
    EXPECT_EQ(m.status().code(), Code::kUsage);
    EXPECT_NE(m.status().message().find(c.want), std::string::npos)
        << c.want << " <- " << m.status().message();
    EXPECT_EQ(m.status().message().rfind("m.json: ", 0), 0u) << m.status().message();
  }
  json fat = fabric_model(
      64, small_fat_tree_topology(),
      json::array(
          {{{"kind", "slow_local_link"}, {"switches", {"leaf000", "leaf001"}}, {"factor", 2}}}));
  EXPECT_FALSE(FabricModel::parse(fat.dump(), "m.json").ok());
  auto missing = FabricModel::load("/nonexistent/fabric.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("--simulate /nonexistent/fabric.json: cannot read"),
            std::string::npos);
}

}  // namespace
}  // namespace fabperf::cluster
