// Tests of the --matrix reports (cluster/matrix_run.h): the JSON schema other tools read, the
// CSV rows, and the text summary, from a run built by hand.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include "cluster/matrix_run.h"
#include "cluster/retest.h"
#include "e2e_robust_util.h"

namespace fabperf::cluster {
namespace {

using fabperf::testing::TempDir;

// Five ranks, each unordered pair measured once in either direction: rank 4 slow in latency
// (all its links), one failed bandwidth pair (1 -> 2).
MatrixRun sample_run() {
  MatrixRun run;
  run.started = "2024-01-01T00:00:00Z";
  run.argv = {"fabperf", "--matrix", "tcp_lat", "tcp_bw"};
  run.job = "job-1";
  run.pattern = "all";
  run.ordered = false;
  run.time_per_pair_s = 0.1;
  run.rounds_planned = run.rounds_done = 5;
  run.pairs_planned = 10;
  run.complete = true;
  for (int r = 0; r < 5; ++r) run.ranks.push_back({r, "n" + std::to_string(r), true, ""});
  run.tests.emplace_back(
      "tcp_lat", FigureDef{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true},
      5);
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false},
      5);
  FigureMatrix& lat = run.tests[0].matrix;
  FigureMatrix& bw = run.tests[1].matrix;
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) {
      int client = (a + b) % 2 == 1 ? a : b, server = client == a ? b : a;
      lat.set(client, server, b == 4 ? 400000 + 1000 * a : 20000 + 100 * a + 10 * b);
      if (a == 1 && b == 2) {
        bw.fail(1, 2, "server: no answer within 5 s");
      } else {
        bw.set(client, server, 1e9 + 1e6 * (a + b));
      }
    }
  }
  run.judge();
  run.exit_code = 1;
  return run;
}

nlohmann::json written_json(const MatrixRun& run) {
  TempDir dir;
  std::string path = dir.file("m.json");
  Status s = write_matrix_json(run, path);
  EXPECT_TRUE(s.ok()) << s.message();
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text.str();
  return j;
}

TEST(ClusterReport, JsonFollowsTheContract) {
  nlohmann::json j = written_json(sample_run());
  EXPECT_EQ(j["tool"], "fabperf");
  EXPECT_EQ(j["mode"], "matrix");
  EXPECT_TRUE(j.contains("version"));
  EXPECT_EQ(j["started"], "2024-01-01T00:00:00Z");
  EXPECT_EQ(j["exit_code"], 1);
  const nlohmann::json& m = j["matrix"];
  EXPECT_EQ(m["pattern"], "all");
  ASSERT_EQ(m["ranks"].size(), 5u);
  EXPECT_EQ(m["ranks"][2],
            (nlohmann::json{{"rank", 2}, {"host", "n2"}, {"status", "ok"}, {"reason", ""}}));
  ASSERT_EQ(m["tests"].size(), 2u);
  const nlohmann::json& lat = m["tests"][0];
  EXPECT_EQ(lat["test"], "tcp_lat");
  EXPECT_EQ(lat["figure"], "latency_ns.p50");
  EXPECT_EQ(lat["unit"], "ns");
  EXPECT_EQ(lat["better"], "lower");
  EXPECT_TRUE(lat["median"].is_number());
  EXPECT_TRUE(lat["threshold"].is_number());
  // N x N, row = client, null on the diagonal; a round trip is shown both ways (mirrored).
  const nlohmann::json& v = lat["values"];
  ASSERT_EQ(v.size(), 5u);
  for (int a = 0; a < 5; ++a) {
    ASSERT_EQ(v[a].size(), 5u);
    EXPECT_TRUE(v[a][a].is_null());
    for (int b = 0; b < 5; ++b) EXPECT_EQ(v[a][b], v[b][a]);
  }
  EXPECT_EQ(v[0][1], 20010);
  EXPECT_EQ(v[2][4], 402000);
  EXPECT_TRUE(lat["mirrored"].get<bool>());
  // Bandwidth has a direction: only the measured cell, the failed one null.
  const nlohmann::json& bw = m["tests"][1]["values"];
  EXPECT_EQ(bw[0][1], 1.001e9);
  EXPECT_TRUE(bw[1][0].is_null());
  EXPECT_TRUE(bw[1][2].is_null());
  EXPECT_TRUE(bw[2][1].is_null());
  EXPECT_EQ(m["tests"][1]["failed"], 1);
  bool failed_listed = false;
  for (const auto& s : m["tests"][1]["suspects"]) {
    if (s["a"] == 1 && s["b"] == 2) {
      failed_listed = true;
      EXPECT_TRUE(s["value"].is_null());
      EXPECT_EQ(s["error"], "server: no answer within 5 s");
      EXPECT_EQ(s["verdict"], "bad_link");
    }
  }
  EXPECT_TRUE(failed_listed);
  ASSERT_EQ(m["nodes"].size(), 5u);
  for (const auto& n : m["nodes"]) {
    for (const char* key : {"rank", "host", "verdict", "bad_links", "links"})
      EXPECT_TRUE(n.contains(key));
  }
}

TEST(ClusterReport, SlowRankIsABadNode) {
  MatrixRun run = sample_run();
  // Latency: the 4 links of rank 4 are 20x the others: it is the node.
  EXPECT_EQ(run.nodes[4].state, NodeState::kBad);
  ASSERT_EQ(run.nodes[4].bad_in.size(), 1u);
  EXPECT_EQ(run.nodes[4].bad_in[0], 0u);
  EXPECT_EQ(run.tests[0].judgement.suspect_count, 4u);
  for (const Suspect& s : run.tests[0].judgement.suspects) EXPECT_EQ(s.verdict, Verdict::kBadNode);
  for (int r = 0; r < 4; ++r) EXPECT_EQ(run.nodes[r].state, NodeState::kOk) << r;
}

TEST(ClusterReport, UnreachableRankInJson) {
  MatrixRun run = sample_run();
  run.ranks[1].alive = false;
  run.ranks[1].reason = "lost contact with its agent (connection closed by peer)";
  run.judge();
  nlohmann::json j = written_json(run);
  EXPECT_EQ(j["matrix"]["ranks"][1]["status"], "unreachable");
  EXPECT_EQ(j["matrix"]["ranks"][1]["reason"], run.ranks[1].reason);
  EXPECT_EQ(j["matrix"]["nodes"][1]["verdict"], "unreachable");
}

TEST(ClusterReport, CsvHasOneRowPerMeasuredOrFailedPair) {
  MatrixRun run = sample_run();
  TempDir dir;
  ASSERT_TRUE(write_matrix_csv(run, dir.file("m.csv")).ok());
  std::string text = fabperf::testing::read_file(dir.file("m.csv"));
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> lines;
  while (std::getline(in, line)) lines.push_back(line);
  ASSERT_EQ(lines.size(), 21u);  // header, 10 latency, 10 bandwidth (one failed)
  EXPECT_EQ(lines[0],
            "test,figure,unit,client,client_host,server,server_host,value,status,retest,"
            "verdict,error,client_switch,server_switch");
  EXPECT_NE(text.find("tcp_bw,bandwidth.recv_Bps,B/s,1,n1,2,n2,,failed,,bad_link,server: no "
                      "answer within 5 s,,"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tcp_lat,latency_ns.p50,ns,0,n0,1,n1,20010,ok,,,"), std::string::npos)
      << text;
  EXPECT_NE(text.find("tcp_lat,latency_ns.p50,ns,1,n1,4,n4,401000,ok,,bad_node,"),
            std::string::npos)
      << text;
}

TEST(ClusterReport, TextNamesTheWorstLinksAndNodes) {
  MatrixRun run = sample_run();
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  write_matrix_text(run, out);
  std::fclose(out);
  std::string text(buf, size);
  free(buf);
  EXPECT_NE(text.find("fabperf matrix: 5 ranks on 5 hosts, pattern all, 5 of 5 rounds"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("tcp_lat: latency_ns.p50, lower is better"), std::string::npos) << text;
  EXPECT_NE(text.find("rank 4 (n4): bad in tcp_lat: its median link 20.0x the other nodes', 4 "
                      "of 4 links bad"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("1 (n1) -> 2 (n2): failed"), std::string::npos) << text;
  EXPECT_NE(text.find("server: no answer within 5 s"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: 1 bad link, 1 bad node, 0 unreachable"), std::string::npos) << text;
}

// Pairs measured under host noise are marked in every report and retested first, before the
// suspects, suspect or not; a quiet retest clears the mark.
TEST(ClusterReport, NoisyPairsAreMarkedAndRetestedFirst) {
  MatrixRun run = sample_run();
  FigureMatrix& lat = run.tests[0].matrix;
  lat.set_noisy(0, 1, true);  // a quiet-looking pair measured under noise
  lat.set_noisy(3, 4, true);  // a suspect (rank 4 is slow) measured under noise
  run.judge();
  nlohmann::json j = written_json(run);
  EXPECT_EQ(j["matrix"]["tests"][0]["noisy_pairs"], nlohmann::json::parse("[[0,1],[3,4]]"));
  EXPECT_TRUE(j["matrix"]["tests"][1]["noisy_pairs"].empty());
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  write_matrix_text(run, out);
  std::fclose(out);
  std::string text(buf, size);
  free(buf);
  EXPECT_NE(text.find("host noise    =  2 pair(s) measured under host noise (retested first)"),
            std::string::npos)
      << text;
  std::vector<RetestPair> order = retest_candidates(run, nullptr, 100);
  ASSERT_GE(order.size(), 3u);
  // Among the noisy, the suspect (more severe) first; then the plain noisy pair; then the
  // other suspects, each once.
  EXPECT_EQ(order[0].pair.client, 3);
  EXPECT_EQ(order[0].pair.server, 4);
  EXPECT_EQ(order[1].pair.client, 0);
  EXPECT_EQ(order[1].pair.server, 1);
  EXPECT_FALSE(lat.noisy(order[2].pair.client, order[2].pair.server));
  for (size_t i = 2; i < order.size(); ++i) {
    EXPECT_FALSE(order[i].test == 0 && order[i].pair.client == 3 && order[i].pair.server == 4);
  }
  EXPECT_EQ(retest_candidates(run, nullptr, 1).size(), 1u);
  lat.set_noisy(0, 1, false);
  EXPECT_FALSE(lat.noisy(0, 1));
}

// The matrix in the text is in one unit, chosen from the baseline, in fixed notation: a link
// six times the baseline's unit shows as 2750, not 2.75e+03 (user-review item 6).
TEST(ClusterReport, TextMatrixInOneUnitWithoutExponents) {
  MatrixRun run = sample_run();
  FigureMatrix& bw = run.tests[1].matrix;
  for (int a = 0; a < 5; ++a) {
    for (int b = a + 1; b < 5; ++b) {
      if (bw.get(a, b)) bw.set(a, b, 4.5e8);
      if (bw.get(b, a)) bw.set(b, a, 4.5e8);
    }
  }
  bw.set(bw.get(0, 3) ? 0 : 3, bw.get(0, 3) ? 3 : 0, 2.75e9);
  run.judge();
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&buf, &size);
  write_matrix_text(run, out);
  std::fclose(out);
  std::string text(buf, size);
  free(buf);
  EXPECT_NE(text.find("matrix in MB/sec"), std::string::npos) << text;
  EXPECT_NE(text.find(" 2750"), std::string::npos) << text;
  EXPECT_NE(text.find(" 450 "), std::string::npos) << text;
  EXPECT_EQ(text.find("e+"), std::string::npos) << text;
}

}  // namespace
}  // namespace fabperf::cluster

namespace fabperf::cluster {
namespace {

long vm_kib(const char* field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) return std::stol(line.substr(std::strlen(field)));
  }
  return 0;
}

// Rank 0 of a 4096-rank job, two tests, every pair measured: the memory and time its matrices,
// verdicts and reports take (docs/cluster.md quotes it). Run by hand:
//   build/fabperf_tests --gtest_also_run_disabled_tests --gtest_filter='*Rank0At4096Ranks'
TEST(ClusterReport, DISABLED_Rank0At4096Ranks) {
  const int n = 4096;
  long before = vm_kib("VmRSS:");
  auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    start = std::chrono::steady_clock::now();
    return s;
  };
  MatrixRun run;
  run.pattern = "all";
  for (int r = 0; r < n; ++r) run.ranks.push_back({r, "node" + std::to_string(r), true, ""});
  run.tests.emplace_back(
      "tcp_lat", FigureDef{FigureKind::kLatencyP50, "latency_ns.p50", "ns", Better::kLower, true},
      n);
  run.tests.emplace_back(
      "tcp_bw",
      FigureDef{FigureKind::kRecvBandwidth, "bandwidth.recv_Bps", "B/s", Better::kHigher, false},
      n);
  for (int a = 0; a < n; ++a) {
    for (int b = a + 1; b < n; ++b) {
      run.tests[0].matrix.set(a, b, 2000 + (a * 31 + b * 17) % 400);
      run.tests[1].matrix.set(b, a, 1.2e10 + 1e7 * ((a * 7 + b) % 50));
    }
  }
  double fill = seconds();
  run.judge();
  double judge = seconds();
  TempDir dir;
  ASSERT_TRUE(write_matrix_json(run, dir.file("m.json")).ok());
  double json = seconds();
  ASSERT_TRUE(write_matrix_csv(run, dir.file("m.csv")).ok());
  double csv = seconds();
  long peak = vm_kib("VmHWM:");
  struct stat js {
  }, cs{};
  stat(dir.file("m.json").c_str(), &js);
  stat(dir.file("m.csv").c_str(), &cs);
  std::printf(
      "[ rank 0 ] N=%d, 2 tests: matrices %zu MiB; RSS %ld -> peak %ld MiB; fill %.1f s, "
      "judge %.1f s, JSON %.1f s (%lld MiB), CSV %.1f s (%lld MiB)\n",
      n, (run.tests[0].matrix.bytes() + run.tests[1].matrix.bytes()) >> 20, before >> 10,
      peak >> 10, fill, judge, json, static_cast<long long>(js.st_size >> 20), csv,
      static_cast<long long>(cs.st_size >> 20));
}

}  // namespace
}  // namespace fabperf::cluster
