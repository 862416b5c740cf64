// Rank 0's job once it knows its ranks, for a real job and a simulated one alike: the run's
// header, the rounds over a fleet, the verdicts and the reports. A simulated job (--simulate)
// is this with the model's hosts as ranks and a SimFleet; nothing else differs.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cluster/baseline.h"
#include "cluster/fleet.h"
#include "cluster/matrix_options.h"
#include "cluster/round_source.h"
#include "cluster/topology.h"
#include "core/status.h"

namespace fabperf::cluster {

struct JobSetup {
  const std::vector<std::string>* argv = nullptr;
  const MatrixOptions* opts = nullptr;  // its seed already drawn
  std::string job;                      // the launcher's name for the job
  std::vector<std::string> hosts;       // per rank
  const std::atomic<bool>* stop = nullptr;
  int64_t started_ns = 0;  // on the fleet's clock
  std::shared_ptr<const Topology> topology;
  std::string topology_source;
  std::string simulated;                        // the model file, on a simulated run
  nlohmann::json simulation;                    // the model's faults, on a simulated run
  std::shared_ptr<const BaselineRun> baseline;  // --baseline, read and checked
};

// --baseline EARLIER.json read and checked against the job's tests (null without the option).
Result<std::shared_ptr<const BaselineRun>> load_job_baseline(const MatrixOptions& opts);

// --topology FILE read (not yet placed); nullopt without the option.
Result<std::optional<Topology>> load_job_topology(const MatrixOptions& opts);

// The topology with the job's ranks placed by host name; the one warning about hosts in only
// one of the two goes to `warn`.
std::shared_ptr<const Topology> place_topology(Topology topo, const std::vector<std::string>& hosts,
                                               const std::string& origin, std::FILE* warn);

// The pattern the job runs: --pattern, or adaptive above kAdaptiveAbove ranks when the topology
// has switch levels.
PatternSpec job_pattern(const MatrixOptions& opts, int ranks, const Topology* topology);

// The rounds of the job's pattern (--passes of a fixed one, or the adaptive plan); usage errors
// name the option.
Result<std::unique_ptr<RoundSource>> make_rounds(const MatrixOptions& opts, int ranks,
                                                 std::shared_ptr<const Topology> topology);

// Drives the job over `fleet` and writes the reports. `on_finished` runs once every rank was
// told the job is over (rank 0 ends its own agent there). `all_ended` (may be null): false
// when a rank may still be running. Returns the job's outcome (rank 0's exit status).
Status run_job(const JobSetup& setup, RoundSource& rounds, Fleet& fleet,
               const std::function<void()>& on_finished, bool* all_ended);

// fabperf --matrix --simulate FABRIC.json: the whole job in this process.
Status run_simulated_job(const std::vector<std::string>& argv, const MatrixOptions& opts,
                         const std::atomic<bool>* stop);

}  // namespace fabperf::cluster
