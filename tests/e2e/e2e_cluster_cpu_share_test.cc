// End-to-end: a rank that shares its CPU with a busy loop (pinned to the same CPU, the loop
// taking the larger share: alive, answering, every one of its links slower) is named a bad
// node in a small job, by the leave-one-out node rule (docs/cluster.md, "Verdicts"), while the
// ranks that have their CPUs stay ok. Bandwidth: a ping-pong's wake-ups preempt the loop, so
// latency barely moves (measured: 1.1x), while the stream's throughput follows its CPU share
// (4.7x to 19x slower in 8 runs on a loaded 2-core machine).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "e2e_cluster_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

TEST(ClusterCpuShare, RankSharingItsCpuIsABadNode) {
  if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
  if (run({"-c", "command -v taskset"}, 10, "/bin/sh").exit_code != 0)
    GTEST_SKIP() << "taskset (util-linux) is not installed";
  JobShape shape;
  shape.ranks = 5;
  setenv("FP_BUSY_RANK", "2", 1);
  MatrixJob job(shape, {"-t", "0.3", "--start_timeout", "30", "tcp_bw"});
  unsetenv("FP_BUSY_RANK");
  ASSERT_EQ(job.wait(180), 0) << job.err();
  EXPECT_EQ(job.exit_code(0), 0) << job.err();
  json j = job.json();
  ASSERT_FALSE(j.is_discarded()) << job.err();
  const json& nodes = j["matrix"]["nodes"];
  ASSERT_EQ(nodes.size(), 5u);
  for (const json& node : nodes) {
    std::printf("[ measured ] rank %d: %s, slowdown %s\n", node["rank"].get<int>(),
                node["verdict"].get<std::string>().c_str(), node["slowdown"].dump().c_str());
  }
  EXPECT_EQ(nodes[2]["verdict"], "bad") << nodes.dump() << job.out();
  EXPECT_TRUE(nodes[2]["slowdown"].is_number()) << nodes[2].dump();
  for (int r : {0, 1, 3, 4}) EXPECT_EQ(nodes[r]["verdict"], "ok") << nodes.dump() << job.out();
  EXPECT_TRUE(contains(job.out(), "rank 2 (")) << job.out();
}

}  // namespace
}  // namespace fabperf::testing
