// Rank 0's side of a --matrix job: it drives the rounds its round source plans over a fleet
// (the agents of a real job, or a simulated fabric) with a deadline on every wait, finds the
// ranks that die or hang and skips their pairs, re-measures the worst suspects alone, and
// fills the MatrixRun the reports render.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "cluster/fleet.h"
#include "cluster/matrix_options.h"
#include "cluster/matrix_run.h"
#include "cluster/progress.h"
#include "cluster/round_source.h"
#include "stats/histogram.h"

namespace fabperf::cluster {

struct CoordinatorConfig {
  const MatrixOptions* opts = nullptr;
  const std::atomic<bool>* stop = nullptr;  // SIGINT/SIGTERM: stop and report what there is
  int64_t started_ns = 0;                   // on the fleet's clock: the budget counts from it
  std::FILE* progress = stderr;
  bool progress_terminal = false;
};

class Coordinator : private FleetEvents {
 public:
  Coordinator(CoordinatorConfig config, MatrixRun& run, RoundSource& rounds, Fleet& fleet);
  ~Coordinator() override;

  // Reaches every rank (the fleet says which are out of reach).
  void connect();
  // The rounds, then the retests; returns when done, at the deadline, or on *stop.
  void measure();
  // Tells every rank the job is over. False when a rank may still be running.
  bool finish() { return fleet_.finish(); }

 private:
  // FleetEvents
  bool alive(int rank) const override { return run_.ranks[static_cast<size_t>(rank)].alive; }
  void lost(int rank, const std::string& reason, bool linger) override;
  bool stopping() const override { return config_.stop != nullptr && config_.stop->load(); }
  double seconds_left() const override { return left(); }

  int dead_count() const;
  // Seconds from now to the end of the job (budget, or the planned worst case).
  double left() const;
  bool should_stop(std::string* why) const;
  double step_wait(double time_s) const;
  void run_step(size_t test, const std::vector<Pair>& pairs, double time_s, bool retest);
  void record(size_t test, const std::vector<StepRun>& runs, bool retest);
  void retests();
  void note(size_t test, const std::optional<double>& value);
  double pair_time(size_t rounds_left) const;

  CoordinatorConfig config_;
  MatrixRun& run_;
  RoundSource& rounds_;
  Fleet& fleet_;
  Progress progress_;
  int64_t end_ns_ = 0;       // the job's hard end
  double overhead_s_ = 0.3;  // measured per step beyond -t, to fit -t into a budget
  uint64_t suspects_so_far_ = 0;
  std::vector<Histogram> running_;      // per test, values so far (progress only)
  std::vector<double> running_median_;  // per test, the median of running_, refreshed now and then
  std::vector<uint64_t> busy_;          // per rank: the last step it was a client in
  uint64_t step_stamp_ = 0;
};

}  // namespace fabperf::cluster
