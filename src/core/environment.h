// Environment: every variable fabperf reads from its environment, in one table, read once per
// process into one snapshot (environment()). Where an override, a launcher's variable or a
// test hook comes from is written here and nowhere else, and no measuring loop calls getenv.
// libfabric's own FI_* variables are libfabric's: fabperf sets the cxi ones before the provider
// starts and looks at them only then, to see what is set already (fabric/cxi_controls.cc).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace fabperf {

struct Environment {
  // Where fabperf finds its libraries and device trees (empty: unset, the default applies).
  std::string libfabric;       // FABPERF_LIBFABRIC (libfabric.so.1)
  std::string libpmix;         // FABPERF_LIBPMIX (libpmix.so.2)
  std::string gpu_runtime;     // FABPERF_GPU_RUNTIME (the GPU kind's runtime library)
  std::string sysfs_root;      // FABPERF_SYSFS_ROOT (/sys; the tests' fake trees)
  std::string hwmon_root;      // FABPERF_HWMON_ROOT (SYSFS_ROOT/class/hwmon)
  std::string slingshot_vnis;  // SLINGSHOT_VNIS: the first is the cxi auth key's VNI
  // The launcher's (cluster/): which launcher started this process, and the rank it gave it.
  // Set, even to nothing, where the launcher set it.
  std::optional<std::string> pmix_rank;       // PMIX_RANK
  std::optional<std::string> pmix_namespace;  // PMIX_NAMESPACE
  std::optional<std::string> pmi_rank;        // PMI_RANK (PMI-1/PMI-2 launchers)
  std::optional<std::string> pmi_fd;          // PMI_FD
  std::optional<std::string> slurm_procid;    // SLURM_PROCID
  std::optional<std::string> slurm_step_id;   // SLURM_STEP_ID
  std::optional<std::string> ompi_rank;       // OMPI_COMM_WORLD_RANK
  // Test hooks (tests/e2e; unset in normal use, 0 = off).
  uint64_t test_stall_ms = 0;          // FABPERF_TEST_STALL_MS: a latency server stalls once
  uint64_t test_stall_at = 1000;       // FABPERF_TEST_STALL_AT: after this many messages
  uint64_t test_stuck_call_after = 0;  // FABPERF_TEST_STUCK_CALL_AFTER: a provider call spins

  // Every variable of the table, each looked up through `get` (std::getenv for this process).
  static Environment read(const std::function<const char*(const char*)>& get);
  // The names of the table, in its order.
  static const std::vector<std::string>& names();
};

// This process's environment, read at the first call.
const Environment& environment();

// For tests: environment() answers `replacement` while the guard lives.
class EnvironmentOverride {
 public:
  explicit EnvironmentOverride(Environment replacement);
  ~EnvironmentOverride();
  EnvironmentOverride(const EnvironmentOverride&) = delete;
  EnvironmentOverride& operator=(const EnvironmentOverride&) = delete;

 private:
  const Environment* previous_;
  Environment replacement_;
};

}  // namespace fabperf
