// Where a pair's figure comes from: the agents of a real job (agent_fleet.h) or a fabric model
// (sim_fleet.h). The coordinator drives either the same way: the same rounds, deadlines,
// liveness checks, retests and verdicts; only the measurement behind a step differs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cluster/figure_matrix.h"
#include "cluster/schedule.h"

namespace fabperf::cluster {

// One test run by many pairs at once.
struct StepRequest {
  size_t test = 0;   // index into the job's tests
  std::string name;  // the test's name
  FigureKind figure = FigureKind::kLatencyP50;
  double time_s = 0;        // -t of each run (0: the plan's -n counts it)
  int64_t deadline_ns = 0;  // on the fleet's clock: later answers are late
  double timeout_s = 5;     // -to
  bool alone = false;       // re-measuring suspects: nothing else shares the fabric
};

// One pair's run in a step, and its answer.
struct StepRun {
  Pair pair{0, 0};
  bool answered = false;        // the client's agent answered in time (not cancelled)
  std::optional<double> value;  // the figure
  std::string error;            // why there is none ("no result within 12 s" when late)
  bool noisy = false;           // its client said the run was measured under host noise
};

// What a fleet tells the coordinator, and asks it.
class FleetEvents {
 public:
  virtual ~FleetEvents() = default;
  virtual bool alive(int rank) const = 0;
  // The rank died, hung or cannot be reached: it is unreachable, with the reason. `linger`:
  // it may still be running when rank 0 ends.
  virtual void lost(int rank, const std::string& reason, bool linger) = 0;
  virtual bool stopping() const = 0;        // SIGINT/SIGTERM: waits end early
  virtual double seconds_left() const = 0;  // until the job's end
};

class Fleet {
 public:
  virtual ~Fleet() = default;
  // The job's clock: the real one, or the simulated fabric's.
  virtual int64_t now_ns() const = 0;
  // Reaches every rank; those out of reach are lost.
  virtual void connect(FleetEvents& events) = 0;
  // Runs the step on every pair at once (clients distinct, both ranks alive) and fills each
  // run's answer. Late runs are cancelled; a client that cannot end its run is lost.
  virtual void run_step(const StepRequest& step, std::vector<StepRun>& runs,
                        FleetEvents& events) = 0;
  // The ranks among `ranks` that do not answer within -to are lost.
  virtual void check_alive(const std::vector<int>& ranks, FleetEvents& events) = 0;
  // The job is over. False when a rank may still be running (it hung, or never connected):
  // the caller then asks the launcher to end the job.
  virtual bool finish() = 0;
};

}  // namespace fabperf::cluster
