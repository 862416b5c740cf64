// The private Slurm: slurm_cluster.sh (beside this file) started and stopped.
#include "e2e_slurm_util.h"

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>

#include "e2e_util.h"

namespace fabperf::testing {

namespace {

std::string script() {
  return (std::filesystem::path(__FILE__).parent_path() / "slurm_cluster.sh").string();
}

// The script's outcome: its exit code, and what it said. A Proc (output to files, not pipes):
// the daemons it starts inherit the descriptors this process had open, and a pipe held by a
// daemon would never end.
RunOutput script_run(const std::vector<std::string>& args, double timeout_s) {
  Proc p(args, "/bin/sh");
  RunOutput r;
  r.exit_code = p.wait(timeout_s);
  r.out = p.out();
  r.err = p.err();
  return r;
}

}  // namespace

SlurmCluster::SlurmCluster(int nodes) {
  // The script stops the cluster by itself should this process die without the destructor.
  RunOutput r = script_run(
      {script(), "start", dir_.path(), std::to_string(nodes), std::to_string(getpid())}, 90);
  ready_ = r.exit_code == 0;
  if (!ready_) {
    skipped_ = r.exit_code == 77;
    why_not_ = (r.exit_code == 77 ? ""
                                  : "slurm_cluster.sh start failed (exit " +
                                        std::to_string(r.exit_code) + "): ") +
               r.err;
    script_run({script(), "stop", dir_.path()}, 60);
    return;
  }
  setenv("SLURM_CONF", dir_.file("slurm.conf").c_str(), 1);
}

SlurmCluster::~SlurmCluster() {
  if (ready_) script_run({script(), "stop", dir_.path()}, 60);
  unsetenv("SLURM_CONF");
}

}  // namespace fabperf::testing
