// End-to-end: a rank that shares its CPU with busy loops (pinned to the same CPU, the loops
// taking about 8 in 9 of it: alive, answering, every one of its links slower) is named a bad
// node in a small job, by the leave-one-out node rule (docs/cluster.md, "Verdicts"), while the
// ranks that have their CPUs stay ok. Bandwidth: a ping-pong's wake-ups preempt the loop, so
// latency barely moves (measured: 1.1x), while the stream's throughput follows its CPU share
// (4.7x to 19x slower in 8 runs on a loaded 2-core machine).
//
// The contrast depends on what else the machine runs: the healthy ranks share the other CPU
// with the rest of make test, and a heavy neighbour test slowed them until rank 2 was only
// 1.8x off (CI, 5 December). So the job is run again when rank 2 was not named, at most three
// times; it must be named once, and a healthy rank named bad in any attempt fails the test.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "e2e_cluster_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

constexpr int kBusyRank = 2;
constexpr int kAttempts = 3;

TEST(ClusterCpuShare, RankSharingItsCpuIsABadNode) {
  if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
  if (run({"-c", "command -v taskset"}, 10, "/bin/sh").exit_code != 0)
    GTEST_SKIP() << "taskset (util-linux) is not installed";
  JobShape shape;
  shape.ranks = 5;
  std::string misses;
  bool named = false;
  for (int attempt = 1; attempt <= kAttempts && !named; ++attempt) {
    setenv("FP_BUSY_RANK", std::to_string(kBusyRank).c_str(), 1);
    MatrixJob job(shape, {"-t", "0.3", "--start_timeout", "30", "tcp_bw"});
    unsetenv("FP_BUSY_RANK");
    ASSERT_EQ(job.wait(180), 0) << job.err();
    EXPECT_EQ(job.exit_code(0), 0) << job.err();
    json j = job.json();
    ASSERT_FALSE(j.is_discarded()) << job.err();
    const json& nodes = j["matrix"]["nodes"];
    ASSERT_EQ(nodes.size(), 5u);
    for (const json& node : nodes) {
      std::printf("[ measured ] attempt %d, rank %d: %s, slowdown %s\n", attempt,
                  node["rank"].get<int>(), node["verdict"].get<std::string>().c_str(),
                  node["slowdown"].dump().c_str());
    }
    for (int r : {0, 1, 3, 4}) {
      ASSERT_EQ(nodes[r]["verdict"], "ok")
          << "attempt " << attempt << ": " << nodes.dump() << job.out() << job.err();
    }
    named = nodes[kBusyRank]["verdict"] == "bad" && nodes[kBusyRank]["slowdown"].is_number() &&
            contains(job.out(), "rank 2 (");
    if (!named) {
      misses += "attempt " + std::to_string(attempt) + ": " + nodes[kBusyRank].dump() + "\n" +
                job.out() + job.err();
    }
  }
  EXPECT_TRUE(named) << "rank 2 was never named a bad node:\n" << misses;
}

}  // namespace
}  // namespace fabperf::testing
