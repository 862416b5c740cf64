// Rank 0's side of a --matrix job: it connects to every rank's agent, drives the rounds with a
// deadline on every wait, finds the ranks that die or hang and skips their pairs, re-measures
// the worst suspects alone, and fills the MatrixRun the reports render.
#pragma once

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cluster/bootstrap.h"
#include "cluster/matrix_options.h"
#include "cluster/matrix_run.h"
#include "cluster/progress.h"
#include "cluster/schedule.h"
#include "net/control.h"
#include "stats/histogram.h"

namespace fabperf::cluster {

struct CoordinatorConfig {
  const MatrixOptions* opts = nullptr;
  const std::atomic<bool>* stop = nullptr;  // SIGINT/SIGTERM: stop and report what there is
  int64_t started_ns = 0;                   // the budget counts from rank 0's start
  std::string job;
  std::FILE* progress = stderr;
  bool progress_terminal = false;
};

class Coordinator {
 public:
  Coordinator(CoordinatorConfig config, MatrixRun& run, const Schedule& schedule);
  ~Coordinator();

  // Connects to every rank's agent (in parallel). A rank without a card, with an error in its
  // card, started with other tests, or out of reach is unreachable, with the reason.
  void connect(const std::vector<Result<RankCard>>& cards);
  // The rounds, then the retests; returns when done, at the deadline, or on *stop.
  void measure();
  // Tells every agent the job is over. False when a rank may still be running (it hung, or
  // never connected): the caller then asks the launcher to end the job.
  bool finish();

 private:
  struct Link {
    std::unique_ptr<ControlChannel> ch;
    bool linger = true;  // may still be running when rank 0 ends (hung, never reached)
  };
  struct Pending {
    Pair pair;
    uint64_t step = 0;
    bool answered = false;
    std::optional<double> value;
    std::string error;
    bool noisy = false;  // its client said the run was measured under host noise
  };

  void mark_dead(int rank, const std::string& reason, bool linger);
  bool alive(int rank) const { return run_.ranks[static_cast<size_t>(rank)].alive; }
  int dead_count() const;
  // Seconds from now to the end of the job (budget, or the planned worst case).
  double left() const;
  bool should_stop(std::string* why) const;
  double step_wait(double time_s) const;
  void run_step(size_t test, const std::vector<Pair>& pairs, double time_s, bool retest);
  // Waits for frames from `ranks` until each is done (per `on_frame`) or the deadline passes;
  // a rank whose channel fails is dead. Returns the ranks still not done.
  template <typename OnFrame>
  std::vector<int> collect(std::vector<int> ranks, const Deadline& deadline, OnFrame on_frame);
  // Ranks among `ranks` that do not answer a ping within a few seconds (now marked dead).
  void check_alive(const std::vector<int>& ranks);
  void retests();
  void note(size_t test, const std::optional<double>& value);
  double pair_time(size_t rounds_left) const;

  CoordinatorConfig config_;
  MatrixRun& run_;
  const Schedule& schedule_;
  std::vector<Link> links_;
  Progress progress_;
  int64_t end_ns_ = 0;  // the job's hard end
  uint64_t next_step_ = 1;
  uint64_t next_ping_ = 1;
  double overhead_s_ = 0.3;  // measured per step beyond -t, to fit -t into a budget
  uint64_t suspects_so_far_ = 0;
  std::vector<Histogram> running_;  // per test, values so far (progress only)
};

}  // namespace fabperf::cluster
