// core/environment.h: the table of variables fabperf reads, its snapshot and the tests'
// override.
#include "core/environment.h"

#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

namespace fabperf {
namespace {

Environment from(const std::map<std::string, std::string>& vars) {
  return Environment::read([&](const char* name) -> const char* {
    auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  });
}

TEST(Environment, UnsetLeavesEveryDefault) {
  Environment env = from({});
  EXPECT_EQ(env.libfabric, "");
  EXPECT_EQ(env.sysfs_root, "");
  EXPECT_FALSE(env.pmix_rank.has_value());
  EXPECT_FALSE(env.slurm_step_id.has_value());
  EXPECT_EQ(env.test_stall_ms, 0u);
  EXPECT_EQ(env.test_stall_at, 1000u);
  EXPECT_EQ(env.test_stuck_call_after, 0u);
}

TEST(Environment, EachVariableFillsItsField) {
  Environment env = from({{"FABPERF_LIBFABRIC", "/opt/lf.so"},
                          {"FABPERF_LIBPMIX", "/opt/pmix.so"},
                          {"FABPERF_GPU_RUNTIME", "/opt/cudart.so"},
                          {"FABPERF_SYSFS_ROOT", "/tmp/sys"},
                          {"FABPERF_HWMON_ROOT", "/tmp/hwmon"},
                          {"SLINGSHOT_VNIS", "7,8"},
                          {"PMIX_RANK", "3"},
                          {"PMIX_NAMESPACE", "ns"},
                          {"PMI_RANK", "1"},
                          {"PMI_FD", "5"},
                          {"SLURM_PROCID", "2"},
                          {"SLURM_STEP_ID", "0"},
                          {"OMPI_COMM_WORLD_RANK", "4"},
                          {"FABPERF_TEST_STALL_MS", "200"},
                          {"FABPERF_TEST_STALL_AT", "50"},
                          {"FABPERF_TEST_STUCK_CALL_AFTER", "9"}});
  EXPECT_EQ(env.libfabric, "/opt/lf.so");
  EXPECT_EQ(env.libpmix, "/opt/pmix.so");
  EXPECT_EQ(env.gpu_runtime, "/opt/cudart.so");
  EXPECT_EQ(env.sysfs_root, "/tmp/sys");
  EXPECT_EQ(env.hwmon_root, "/tmp/hwmon");
  EXPECT_EQ(env.slingshot_vnis, "7,8");
  EXPECT_EQ(env.pmix_rank, "3");
  EXPECT_EQ(env.pmix_namespace, "ns");
  EXPECT_EQ(env.pmi_rank, "1");
  EXPECT_EQ(env.pmi_fd, "5");
  EXPECT_EQ(env.slurm_procid, "2");
  EXPECT_EQ(env.slurm_step_id, "0");
  EXPECT_EQ(env.ompi_rank, "4");
  EXPECT_EQ(env.test_stall_ms, 200u);
  EXPECT_EQ(env.test_stall_at, 50u);
  EXPECT_EQ(env.test_stuck_call_after, 9u);
}

// A launcher's variable set to nothing still says which launcher it was; an empty path is
// the default's.
TEST(Environment, EmptyLauncherVariableIsPresentEmptyPathIsUnset) {
  Environment env = from({{"PMIX_RANK", ""}, {"FABPERF_LIBFABRIC", ""}});
  EXPECT_EQ(env.pmix_rank, "");
  EXPECT_EQ(env.libfabric, "");
}

TEST(Environment, NamesAreDistinctAndEachIsRead) {
  const auto& names = Environment::names();
  EXPECT_EQ(names.size(), std::set<std::string>(names.begin(), names.end()).size());
  std::set<std::string> asked;
  Environment::read([&](const char* name) -> const char* {
    asked.insert(name);
    return nullptr;
  });
  EXPECT_EQ(asked, std::set<std::string>(names.begin(), names.end()));
}

TEST(Environment, OverrideAnswersWhileItLivesAndNests) {
  const std::string before = environment().sysfs_root;
  {
    Environment a;
    a.sysfs_root = "/a";
    EnvironmentOverride outer(a);
    EXPECT_EQ(environment().sysfs_root, "/a");
    {
      Environment b;
      b.sysfs_root = "/b";
      EnvironmentOverride inner(b);
      EXPECT_EQ(environment().sysfs_root, "/b");
    }
    EXPECT_EQ(environment().sysfs_root, "/a");
  }
  EXPECT_EQ(environment().sysfs_root, before);
}

}  // namespace
}  // namespace fabperf
