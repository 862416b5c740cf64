// End-to-end: fabperf --matrix --simulate FABRIC.json as a user runs it -- the text, the JSON
// (findings, coverage, the score), the CSV grouped by switch, the same run from the same
// seeds, the budget's partial matrix, and bad model and topology files refused with their
// place; and --topology under a real mpirun job.
#include <gtest/gtest.h>
#include <unistd.h>

#include <set>
#include <sstream>

#include "browser_util.h"
#include "e2e_cluster_util.h"
#include "e2e_util.h"
#include "fabric_test_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

json faults_for_dragonfly() {
  return json::parse(R"([
    {"kind": "slow_node", "host": "n00021", "factor": 2.5},
    {"kind": "dead_node", "host": "n00200"},
    {"kind": "slow_switch", "switch": "g03s02", "factor": 2},
    {"kind": "slow_local_link", "switches": ["g01s00", "g01s03"], "factor": 3},
    {"kind": "slow_uplink", "groups": ["g02", "g05"], "factor": 3},
    {"kind": "slow_link", "hosts": ["n00003", "n00300"], "factor": 3}])");
}

std::string write_model(const TempDir& dir, const json& model, const std::string& name = "f.json") {
  write_file(dir.file(name), model.dump(1), 0644);
  return dir.file(name);
}

json model_384() {
  return fabric_model(
      384,
      {{"kind", "dragonfly"}, {"groups", 6}, {"switches_per_group", 4}, {"hosts_per_switch", 16}},
      faults_for_dragonfly());
}

json read_json(const std::string& path) { return json::parse(read_file(path), nullptr, false); }

TEST(SimulateE2E, AdaptiveNamesEveryLevelInTextAndJson) {
  TempDir dir;
  std::string model = write_model(dir, model_384());
  RunOutput r = run({"--matrix", "--simulate", model, "--pattern", "adaptive", "--seed", "3",
                     "tcp_lat", "tcp_bw", "--json", dir.file("m.json"), "--csv", dir.file("m.csv")},
                    120);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a rank was unreachable
  EXPECT_TRUE(contains(r.err, "matrix: 384 ranks on 384 hosts (simulated), pattern adaptive"))
      << r.err;
  EXPECT_TRUE(contains(r.out, "switch g03s02: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "local link g01s00 - g01s03: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "global link g02 - g05: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "node n00021 (rank 21): ")) << r.out;
  EXPECT_TRUE(contains(r.out, "unreachable n00200 (rank 200)")) << r.out;
  EXPECT_TRUE(contains(r.out, "simulation: 5 of 5 injected faults found (recall 1.000), 0 of 5"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "verdict: 0 bad links, 1 bad node, 1 unreachable, 1 bad switch, "
                       "1 bad local link, 1 bad global link"))
      << r.out;
  json j = read_json(dir.file("m.json"));
  ASSERT_FALSE(j.is_discarded());
  const json& m = j["matrix"];
  EXPECT_TRUE(m["simulated"].get<bool>());
  EXPECT_EQ(m["model"], model);
  EXPECT_EQ(m["pattern"], "adaptive");
  EXPECT_EQ(m["topology"]["kind"], "dragonfly");
  EXPECT_EQ(m["topology"]["switches"].size(), 24u);
  // Coverage: which pairs, a small share of all-pairs', and the findings' firmness.
  const json& c = m["coverage"];
  EXPECT_EQ(c["pairs_total"], 384 * 383 / 2);
  EXPECT_LT(c["fraction"].get<double>(), 0.2);
  EXPECT_EQ(c["rounds"], m["rounds"]["done"]);
  EXPECT_EQ(c["elements"]["local_links"]["covered"], c["elements"]["local_links"]["total"]);
  EXPECT_EQ(m["tests"][0]["values_form"], "pairs");
  std::set<std::pair<int, int>> measured;
  for (const json& p : m["tests"][0]["pairs"]) {
    measured.insert(std::make_pair(p[0].get<int>(), p[1].get<int>()));
  }
  EXPECT_EQ(measured.size(), m["tests"][0]["pairs_measured"].get<size_t>());
  // Findings as fabric-model.md spells them; the score of the run against its model.
  std::set<std::string> kinds;
  for (const json& f : m["findings"]) kinds.insert(f["kind"]);
  EXPECT_EQ(kinds,
            (std::set<std::string>{"node", "unreachable", "switch", "local_link", "uplink"}));
  EXPECT_EQ(m["simulation"]["score"]["recall"], 1.0);
  EXPECT_EQ(m["simulation"]["score"]["injected"], 5);  // the slow link: adaptive does not score it
  EXPECT_EQ(m["simulation"]["faults"].size(), 6u);
  // Ranks and CSV rows by switch: the ranks list is in topology order with its switch.
  EXPECT_EQ(m["ranks"][0]["switch"], "g00s00");
  EXPECT_EQ(m["ranks"][383]["switch"], "g05s03");
  std::string csv = read_file(dir.file("m.csv"));
  EXPECT_TRUE(contains(csv, "client_switch,server_switch\n")) << csv.substr(0, 200);
  EXPECT_TRUE(contains(csv, ",g00s00,g00s00\n"));
}

TEST(SimulateE2E, SameSeedsSameRun) {
  TempDir dir;
  std::string model = write_model(dir, model_384());
  json runs[2];
  for (int i = 0; i < 2; ++i) {
    std::string out = dir.file("r" + std::to_string(i) + ".json");
    RunOutput r = run({"--matrix", "--simulate", model, "--seed", "9", "--pattern", "adaptive",
                       "--randomize", "tcp_lat", "--json", out},
                      120);
    ASSERT_EQ(r.exit_code, 1) << r.err;
    runs[i] = read_json(out);
  }
  EXPECT_EQ(runs[0]["matrix"]["findings"], runs[1]["matrix"]["findings"]);
  EXPECT_EQ(runs[0]["matrix"]["tests"][0]["pairs"], runs[1]["matrix"]["tests"][0]["pairs"]);
  EXPECT_EQ(runs[0]["matrix"]["elapsed_s"], runs[1]["matrix"]["elapsed_s"]);  // simulated time
}

TEST(SimulateE2E, AllPairsFindsALinkAndTheBudgetEndsWithAPartialMatrix) {
  TempDir dir;
  json small = fabric_model(64, small_dragonfly_topology(),
                            json::parse(R"([{"kind": "slow_link", "hosts": ["n00003", "n00040"],
                                             "factor": 3}])"));
  std::string model = write_model(dir, small);
  RunOutput r = run({"--matrix", "--simulate", model, "--pattern", "all", "--passes", "2",
                     "tcp_lat", "--json", dir.file("a.json")},
                    120);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "link n00003 - n00040: ")) << r.out;
  json a = read_json(dir.file("a.json"));
  EXPECT_EQ(a["matrix"]["simulation"]["score"]["found"], 1);
  EXPECT_EQ(a["matrix"]["passes"], 2);
  EXPECT_EQ(a["matrix"]["coverage"]["tests"][0]["repeats"], 64 * 63 / 2);
  // 63 rounds of 1 s do not fit 10 s of simulated time: -t shrinks, then the rounds stop.
  RunOutput b = run({"--matrix", "--simulate", model, "--pattern", "all", "--budget", "10",
                     "tcp_lat", "tcp_bw", "--json", dir.file("b.json")},
                    120);
  EXPECT_EQ(b.exit_code, 1) << b.err;
  json j = read_json(dir.file("b.json"));
  ASSERT_FALSE(j.is_discarded());
  EXPECT_FALSE(j["matrix"]["complete"].get<bool>());
  EXPECT_TRUE(contains(j["matrix"]["stopped"].get<std::string>(), "the budget of 10 s ran out"))
      << j["matrix"]["stopped"];
  EXPECT_LE(j["matrix"]["elapsed_s"].get<double>(), 10.0);
  EXPECT_LT(j["matrix"]["coverage"]["pairs_measured"].get<int>(), 64 * 63 / 2);
  EXPECT_GT(j["matrix"]["coverage"]["pairs_measured"].get<int>(), 0);
}

TEST(SimulateE2E, AdaptiveIsTheDefaultAboveItsSize) {
  TempDir dir;
  json big = fabric_model(
      576, {{"kind", "fat_tree"}, {"leaves", 36}, {"hosts_per_leaf", 16}, {"spines", 4}});
  RunOutput r = run({"--matrix", "--simulate", write_model(dir, big), "tcp_lat"}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "pattern adaptive")) << r.err;
  json flat = fabric_model(8, {{"kind", "flat"}});
  RunOutput f = run({"--matrix", "--simulate", write_model(dir, flat, "flat.json"), "--pattern",
                     "adaptive", "tcp_lat"},
                    60);
  EXPECT_EQ(f.exit_code, 2) << f.err;
  EXPECT_TRUE(contains(f.err, "--pattern adaptive screens switch by switch")) << f.err;
}

TEST(SimulateE2E, BadModelAndTopologyFilesExit2WithTheirPlace) {
  TempDir dir;
  json bad = model_384();
  bad["faults"][2]["switch"] = "g09s02";
  RunOutput r = run({"--matrix", "--simulate", write_model(dir, bad), "tcp_lat"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--simulate " + dir.file("f.json") +
                                  ": faults[2].switch: switch g09s02 does not exist"))
      << r.err;
  write_file(dir.file("broken.json"), "{\"hosts\": 8,\n\"topology\": {\"kind\": \"flat\"},,}",
             0644);
  r = run({"--matrix", "--simulate", dir.file("broken.json"), "tcp_lat"}, 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "broken.json: not valid JSON at line 2 column")) << r.err;
  std::string model = write_model(dir, model_384(), "good.json");
  write_file(dir.file("topo.conf"), "SwitchName=s1 Nodes=n00[000-010]\nSwitchName=s2 Nodes\n",
             0644);
  r = run({"--matrix", "--simulate", model, "--topology", dir.file("topo.conf"), "tcp_lat"}, 60);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--topology " + dir.file("topo.conf") + ": line 2: ")) << r.err;
  // A topology of the file's own: hosts it lacks and has too many are one warning.
  write_file(dir.file("map"), "n00[000-191] left\nn00[192-382] right\nghost1 right\n", 0644);
  r = run({"--matrix", "--simulate", model, "--topology", dir.file("map"), "--pattern", "adaptive",
           "tcp_lat"},
          120);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: --topology " + dir.file("map") +
                                  ": 1 host of the job not in the file (judged as nodes only): "
                                  "n00383; 1 host of the file not in the job: ghost1"))
      << r.err;
}

// The page of a fleet: a heatmap by leaf and the drill-down of the leaf the findings name, drawn
// by the browser without an error, and the difference from a baseline run.
TEST(SimulateE2E, ReportDrawsAFleetBySwitchAndTheBaseline) {
  std::string why;
  std::string chromium = find_chromium(&why);
  if (chromium.empty()) GTEST_SKIP() << why;
  TempDir dir;
  json tree = {{"kind", "fat_tree"}, {"leaves", 20}, {"hosts_per_leaf", 16}, {"spines", 2}};
  std::string before = write_model(dir, fabric_model(320, tree), "before.json");
  std::string after = write_model(
      dir,
      fabric_model(320, tree,
                   json::parse(R"([{"kind": "slow_switch", "switch": "leaf007", "factor": 3}])")),
      "after.json");
  ASSERT_EQ(run({"--matrix", "--simulate", before, "tcp_lat", "--json", dir.file("b.json")}, 120)
                .exit_code,
            0);
  RunOutput r = run({"--matrix", "--simulate", after, "tcp_lat", "--baseline", dir.file("b.json"),
                     "--json", dir.file("a.json")},
                    120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "regression switch leaf007 in tcp_lat: ")) << r.out;
  RunOutput page = run({"report", dir.file("a.json"), "-o", dir.file("r.html")}, 60);
  ASSERT_EQ(page.exit_code, 0) << page.err;
  PageView view = open_page(chromium, dir.file("r.html"), dir.file("r.png"), 1200, 2000);
  ASSERT_TRUE(view.ok) << view.error;
  for (const std::string& line : view.console) ADD_FAILURE() << "console: " << line;
  auto figures = elements(view.dom, "figure");
  std::set<std::string> ids;
  for (auto& f : figures) {
    EXPECT_EQ(f["data-rendered"], "yes") << f["id"];
    EXPECT_GT(std::atoi(f["data-elements"].c_str()), 0) << f["id"];
    ids.insert(f["id"]);
  }
  bool by_switch = false, drill = false, change = false;
  for (const std::string& id : ids) {
    by_switch |= id.find("-m0-heatmap") != std::string::npos;
    drill |= id.find("-m0-d0-heatmap") != std::string::npos;
    change |= id.find("-baseline-t1") != std::string::npos;
  }
  EXPECT_TRUE(by_switch && drill && change) << view.dom.substr(0, 3000);
  EXPECT_TRUE(contains(view.dom, "switch leaf007"));
}

class TopologyUnderMpirun : public ::testing::Test {
 protected:
  void SetUp() override {
    if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
  }
};

TEST_F(TopologyUnderMpirun, MapOfThisHostGroupsTheRanksAndWarnsOfTheRest) {
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  TempDir dir;
  write_file(dir.file("map"), std::string(host) + " rack1\nabsent7 rack2\n", 0644);
  JobShape shape;
  shape.ranks = 3;
  MatrixJob job(shape,
                {"-t", "0.1", "--start_timeout", "30", "--topology", dir.file("map"), "tcp_lat"});
  ASSERT_EQ(job.wait(120), 0) << job.err();
  EXPECT_TRUE(contains(job.err(), "1 host of the file not in the job: absent7")) << job.err();
  json j = job.json();
  ASSERT_FALSE(j.is_discarded());
  EXPECT_EQ(j["matrix"]["topology"]["kind"], "map");
  EXPECT_EQ(j["matrix"]["ranks"][0]["switch"], "rack1");
  EXPECT_TRUE(j["matrix"].contains("findings"));
  EXPECT_EQ(j["matrix"]["coverage"]["pairs_measured"], 3);
  write_file(dir.file("bad"), "SwitchName=x Nodes=a[1-\n", 0644);
  MatrixJob bad(shape,
                {"-t", "0.1", "--start_timeout", "30", "--topology", dir.file("bad"), "tcp_lat"});
  bad.wait(120);
  EXPECT_TRUE(contains(bad.err(), "--topology " + dir.file("bad") + ": line 1: ")) << bad.err();
}

}  // namespace
}  // namespace fabperf::testing
