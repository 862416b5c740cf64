// Bootstrap: what a --matrix rank learns from its launcher (its rank, the job's size) and the
// table of every rank's card, exchanged once at start-up. PMIx is one implementation; tests
// substitute an in-memory one.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf::cluster {

// What one rank publishes about itself: where its server and agent listen, the key that opens
// them, and what it was asked to measure. A rank that could not start says why in `error`.
struct RankCard {
  int rank = -1;
  std::string host;  // gethostname()
  std::string addr;  // numeric address its server and agent listen on
  uint16_t server_port = 0;
  uint16_t agent_port = 0;
  std::string key;    // per-rank secret (hex), known only inside the job
  std::string tests;  // fingerprint of its tests and their options (same on every rank)
  int64_t pid = 0;
  std::string error;  // non-empty: this rank cannot serve, and why
  // Every address its connections to peers may come from (its --bind, else its host's).
  std::vector<std::string> addrs;

  nlohmann::json to_json() const;
  // Checks every field a peer sent: types, port ranges, lengths.
  static Result<RankCard> from_json(const nlohmann::json& j);
};

class Bootstrap {
 public:
  virtual ~Bootstrap() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // Ranks of this job on this host (0 when the launcher does not say).
  virtual int local_size() const = 0;
  // A name for the job (the PMIx namespace), for messages and the report.
  virtual std::string job() const = 0;
  // Makes this rank's card visible to the others once Exchange runs.
  virtual Status publish(const RankCard& card) = 0;
  // Every rank's cards to every rank (PMIx: a fence collecting data), within timeout_s. A
  // Timeout means some rank did not arrive; Lookup still finds the ranks that published.
  virtual Status exchange(double timeout_s) = 0;
  // One rank's card, waiting at most timeout_s for a rank that has not published yet.
  virtual Result<RankCard> lookup(int rank, double timeout_s) = 0;
  // After a successful exchange: copies every rank's card, then lets go of the launcher's PMIx
  // connection. Slurm's mpi/pmix plugin ends the whole job step when a connected PMIx client
  // dies (a lost connection), rank 0 and its report included; a rank that has let go dies
  // alone. Lookup then answers from the copy. A no-op where nothing needs letting go.
  virtual void let_go(double timeout_s) { (void)timeout_s; }
  // Asks the launcher to end every process of the job (ranks that hang do not end otherwise).
  virtual void abort_job(const std::string& why) = 0;
  virtual void finalize() = 0;
};

// The PMIx bootstrap of a process started by mpirun, srun --mpi=pmix or prterun.
Result<std::unique_ptr<Bootstrap>> make_pmix_bootstrap();

// True when this process was started by a PMIx launcher: the PMIx variables those put in
// every process's environment are present.
bool pmix_launched();

// A hint when a launcher without PMIx started us (MPICH's mpiexec, srun --mpi=pmi2), or "".
std::string non_pmix_launcher_hint();

}  // namespace fabperf::cluster
