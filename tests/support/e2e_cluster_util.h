// Helpers for the --matrix end-to-end tests: a job of N fabperf ranks under Open MPI's mpirun,
// each started by a wrapper that records its pid and exit status (and can misplace a rank),
// killed at the end whatever happened.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_robust_util.h"

namespace fabperf::testing {

// mpirun's path, or "" when Open MPI is not installed.
std::string mpirun_path();
std::string ip_command();

// How the wrapper starts one rank.
struct JobShape {
  int ranks = 2;
  std::string netns;       // run mpirun inside this network namespace ("" = here)
  int bind_base = 0;       // > 0: rank r listens on 127.0.0.(bind_base + r); else 127.0.0.1
  int bad_bind_rank = -1;  // this rank gets --bind 192.0.2.1: its server cannot start
  int absent_rank = -1;    // this rank sleeps instead of running fabperf
  std::vector<std::string> mpirun_args = {"--enable-recovery"};
  bool reports = true;  // rank 0 writes --json m.json and --csv m.csv in the job's dir
};

class MatrixJob {
 public:
  MatrixJob(const JobShape& shape, const std::vector<std::string>& fabperf_args);
  ~MatrixJob();  // SIGKILLs mpirun and every rank still running
  // mpirun's exit code, or -1 when it is still running after timeout_s.
  int wait(double timeout_s) { return proc_->wait(timeout_s); }
  Proc& proc() { return *proc_; }
  std::string out() const { return proc_->out(); }
  std::string err() const { return proc_->err(); }
  // Rank r's pid and exit status as the wrapper recorded them (-1 when not recorded).
  int pid(int rank) const;
  int exit_code(int rank) const;
  std::string file(const std::string& name) const { return dir_.file(name); }
  // The --json document rank 0 wrote (discarded value when none), and the --csv text.
  nlohmann::json json() const;
  std::string csv() const { return read_file(dir_.file("m.csv")); }
  // Waits until mpirun's stderr contains `text`; false on timeout.
  bool wait_for_err(const std::string& text, double timeout_s) const;

 private:
  TempDir dir_;
  JobShape shape_;
  std::unique_ptr<Proc> proc_;
};

}  // namespace fabperf::testing
