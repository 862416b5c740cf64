// The one adapter between --matrix and the measurement engine: run one test of the job's plan
// from this rank (the client) against a peer rank's server, and get its figure back.
// Everything the cluster code knows of the engine's client API is in pair_runner.cc.
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/run_plan.h"
#include "cluster/figure_matrix.h"

namespace fabperf::cluster {

struct PairRun {
  const PlannedRun* run = nullptr;  // the test and both sides' options, from the job's plan
  double time_s = 0;                // -t for this run (0: the plan's -n counts it)
  std::string peer_addr;            // the peer's server, from the job's table
  uint16_t peer_port = 0;
  std::string peer_key;                     // the peer's per-job key: client and server prove it
  std::string bind;                         // --bind: this rank's source address
  double wait_server_s = 2;                 // a server that is not listening yet gets this long
  const std::atomic<bool>* stop = nullptr;  // ends the run early (deadline, shutdown)
};

struct PairOutcome {
  std::optional<double> value;  // the figure; none when the run failed
  std::string error;
  bool noisy = false;  // measured under host noise past its thresholds (stats/host_noise.h)
};

PairOutcome run_pair(const PairRun& run, const FigureDef& figure);

// The warnings a pair run of each test would give ("-P set but not used in test tcp_lat"),
// once each: rank 0 prints them at start, the pair runs keep quiet.
std::vector<std::string> matrix_warnings(const std::vector<PlannedRun>& runs);

}  // namespace fabperf::cluster
