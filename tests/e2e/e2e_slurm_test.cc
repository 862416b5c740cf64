// End-to-end: fabperf --matrix under a real Slurm (a private one on this host: munged,
// slurmctld and 4 emulated nodes, tests/support/slurm_cluster.sh): srun --mpi=pmix on one node
// and one task per node (the README's srun line among them), a rank SIGKILLed mid-job that must
// not take rank 0's report with it, and srun without PMIx, where one task (not every one) says
// how to launch.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "e2e_slurm_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// One rank of a job: records its pid (fabperf's own: the shell execs it) under DIR.
constexpr const char* kExecWrapper = R"SH(#!/bin/sh
D=$1; shift
echo $$ > "$D/pid.${PMIX_RANK:-${SLURM_PROCID:-x}}"
exec "$@"
)SH";

class SlurmE2E : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { cluster_ = new SlurmCluster(4); }
  static void TearDownTestSuite() {
    delete cluster_;
    cluster_ = nullptr;
  }
  void SetUp() override {
    if (cluster_->skipped()) GTEST_SKIP() << "no Slurm here: " << cluster_->why_not();
    ASSERT_TRUE(cluster_->ready()) << "Slurm did not start: " << cluster_->why_not();
    write_file(dir_.file("rank.sh"), kExecWrapper, 0700);
  }
  // srun's arguments: ARGS rank.sh DIR fabperf --matrix FABPERF_ARGS
  std::vector<std::string> job(const std::vector<std::string>& srun_args,
                               const std::vector<std::string>& fabperf_args) const {
    std::vector<std::string> a = srun_args;
    a.insert(a.end(), {"/bin/sh", dir_.file("rank.sh"), dir_.path(), fabperf_bin(), "--matrix"});
    a.insert(a.end(), fabperf_args.begin(), fabperf_args.end());
    return a;
  }
  int pid_of(int rank) const {
    std::string text = read_file(dir_.file("pid." + std::to_string(rank)));
    return text.empty() ? -1 : std::stoi(text);
  }
  std::string slurm_logs() const {
    return "\n--- slurmctld.log\n" + cluster_->log("slurmctld.log") + "\n--- slurmd-n1.log\n" +
           cluster_->log("slurmd-n1.log");
  }

  static SlurmCluster* cluster_;
  TempDir dir_;
};

SlurmCluster* SlurmE2E::cluster_ = nullptr;

// The README's form on one node: 4 tasks, every pair measured, the report written.
TEST_F(SlurmE2E, SrunPmixOneNodeFourTasks) {
  auto argv = job({"--mpi=pmix", "-N", "1", "-n", "4", "--overcommit", "--kill-on-bad-exit=0"},
                  {"-t", "0.2", "--start_timeout", "30", "tcp_lat", "--json", dir_.file("m.json")});
  RunOutput r = run(argv, 120, SlurmCluster::srun());
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out << slurm_logs();
  EXPECT_TRUE(contains(r.out, "fabperf matrix: 4 ranks on 1 host")) << r.out;
  json j = json::parse(read_file(dir_.file("m.json")), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["matrix"]["job"].get<std::string>().rfind("slurm.pmix.", 0), 0u)
      << j["matrix"]["job"];
  EXPECT_EQ(j["matrix"]["tests"][0]["measured"], 6);
  for (const json& rank : j["matrix"]["ranks"]) EXPECT_EQ(rank["status"], "ok") << rank.dump();
}

// The docs' form: one task per (emulated) node.
TEST_F(SlurmE2E, SrunOneTaskPerNode) {
  auto argv =
      job({"--mpi=pmix", "-N", "4", "--ntasks-per-node=1", "--kill-on-bad-exit=0"},
          {"-t", "0.2", "--start_timeout", "30", "--bind", "127.0.0.1", "tcp_lat", "--json", "-"});
  RunOutput r = run(argv, 120, SlurmCluster::srun());
  ASSERT_EQ(r.exit_code, 0) << r.err << slurm_logs();
  // --json - under srun: standard output is exactly rank 0's one document.
  json j = json::parse(r.out, nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  EXPECT_EQ(j["matrix"]["size"], 4);
  EXPECT_EQ(j["matrix"]["tests"][0]["measured"], 6);
}

// The README's srun line (its Usage), as a user types it: its srun options with N = 4 emulated
// nodes, its fabperf words, shortened (-t 0.2) and bound to 127.0.0.1 (the emulated nodes are
// this host); every pair of both tests measured, the verdict in its m.json.
TEST_F(SlurmE2E, TheReadmesSrunLine) {
  const std::string readme = readme_text();
  ASSERT_FALSE(readme.empty()) << "README.md not found above " << fabperf_bin();
  std::istringstream in(readme);
  std::string line;
  while (std::getline(in, line) && line.rfind("srun ", 0) != 0) {
  }
  ASSERT_EQ(line.rfind("srun ", 0), 0u) << "no srun line in README.md";
  std::istringstream words(line);
  std::vector<std::string> srun_args,
      fabperf_args = {"-t", "0.2", "--start_timeout", "30", "--bind", "127.0.0.1"};
  std::string w;
  words >> w;  // srun
  while (words >> w && w != "fabperf") srun_args.push_back(w == "N" ? "4" : w);
  ASSERT_EQ(w, "fabperf") << line;
  ASSERT_TRUE(words >> w && w == "--matrix") << line;
  while (words >> w) fabperf_args.push_back(w == "m.json" ? dir_.file("m.json") : w);
  ASSERT_EQ(fabperf_args.back(), dir_.file("m.json")) << "the README's line writes m.json";
  RunOutput r = run(job(srun_args, fabperf_args), 120, SlurmCluster::srun());
  ASSERT_EQ(r.exit_code, 0) << line << "\n" << r.err << slurm_logs();
  json j = json::parse(read_file(dir_.file("m.json")), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.err;
  EXPECT_EQ(j["exit_code"], 0);
  EXPECT_EQ(j["matrix"]["size"], 4);
  ASSERT_EQ(j["matrix"]["tests"].size(), 2u);
  for (const json& t : j["matrix"]["tests"]) EXPECT_EQ(t["measured"], 6) << t["test"];
}

// Slurm's mpi/pmix ends the whole step when a PMIx client dies connected; the ranks let go of
// PMIx after the start-up exchange, so a rank SIGKILLed mid-job dies alone: rank 0 reports it
// unreachable and writes its JSON. srun's status is the highest of the tasks' (137 for the
// killed one); the verdict is the JSON's exit_code.
TEST_F(SlurmE2E, KilledRankDoesNotTakeTheReportDown) {
  auto argv = job({"--mpi=pmix", "-N", "1", "-n", "4", "--overcommit", "--kill-on-bad-exit=0"},
                  {"-t", "0.3", "--start_timeout", "30", "--pattern", "serial", "tcp_lat", "tcp_bw",
                   "--json", dir_.file("m.json")});
  Proc srun(argv, SlurmCluster::srun());
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (!contains(srun.err(), "matrix: round 1 of 6") &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  ASSERT_TRUE(contains(srun.err(), "matrix: round 1 of 6")) << srun.err() << slurm_logs();
  ASSERT_GT(pid_of(3), 0);
  ASSERT_EQ(kill(pid_of(3), SIGKILL), 0);
  int code = srun.wait(90);
  ASSERT_GE(code, 0) << "srun did not end: " << srun.err();
  EXPECT_NE(code, 0) << "srun's status is the highest of its tasks'";
  json j = json::parse(read_file(dir_.file("m.json")), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << "rank 0 wrote no report: " << srun.err() << slurm_logs();
  EXPECT_EQ(j["exit_code"], 1);
  EXPECT_EQ(j["matrix"]["ranks"][3]["status"], "unreachable") << j["matrix"]["ranks"].dump();
  for (int r = 0; r < 3; ++r) EXPECT_EQ(j["matrix"]["ranks"][r]["status"], "ok") << r;
  EXPECT_TRUE(contains(srun.out(), "rank 3 (")) << srun.out();
}

// srun without PMIx (--mpi=none, the default here; --mpi=pmi2): every task exits 2, and one
// task says how to launch, not one copy per task.
TEST_F(SlurmE2E, WithoutPmixOneTaskExplains) {
  for (const char* mpi : {"--mpi=none", "--mpi=pmi2"}) {
    RunOutput r =
        run({mpi, "-N", "1", "-n", "3", "--overcommit", fabperf_bin(), "--matrix", "tcp_lat"}, 60,
            SlurmCluster::srun());
    EXPECT_NE(r.exit_code, 0) << mpi;
    size_t copies = 0;
    for (size_t at = 0;
         (at = r.err.find("no PMIx launcher started this process", at)) != std::string::npos;
         ++at) {
      ++copies;
    }
    EXPECT_EQ(copies, 1u) << mpi << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--mpi=pmix")) << r.err;
  }
}

}  // namespace
}  // namespace fabperf::testing
