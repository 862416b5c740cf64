// A private one-host Slurm for the --matrix tests (tests/support/slurm_cluster.sh starts it):
// munged, slurmctld and emulated nodes, all under a scratch directory, ended at destruction.
#pragma once

#include <string>
#include <vector>

#include "e2e_robust_util.h"

namespace fabperf::testing {

class SlurmCluster {
 public:
  // Starts `nodes` emulated nodes; ready() says whether it came up, why_not() why not, and
  // skipped() whether that is a reason to skip (not root) rather than a failure.
  explicit SlurmCluster(int nodes);
  ~SlurmCluster();  // ends every daemon (and job step) it started
  bool ready() const { return ready_; }
  bool skipped() const { return skipped_; }
  const std::string& why_not() const { return why_not_; }
  // srun's path (SLURM_CONF is set in this process's environment for it).
  static std::string srun() { return "/usr/bin/srun"; }
  std::string dir() const { return dir_.path(); }
  std::string log(const std::string& name) const { return read_file(dir_.file("log/" + name)); }

 private:
  TempDir dir_;
  bool ready_ = false, skipped_ = false;
  std::string why_not_;
};

}  // namespace fabperf::testing
