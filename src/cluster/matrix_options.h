// The --matrix options, from the one option table (options/option_rows.cc, group "matrix"),
// and the plan of the tests every pair runs, checked once on every rank.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "cli/invocation.h"
#include "cli/run_plan.h"
#include "cluster/schedule.h"
#include "cluster/verdicts.h"
#include "core/status.h"
#include "engine/registry.h"

namespace fabperf::cluster {

// -t each test runs per pair when the command line gives neither -t nor -n: short enough that
// a job of a few dozen ranks ends within a minute, long enough for a steady figure.
inline constexpr double kDefaultPairTime = 1.0;
// Above this many ranks, with a topology, --pattern defaults to adaptive: all-pairs would take
// more than 511 rounds a test, adaptive about 30 to 60.
inline constexpr int kAdaptiveAbove = 512;

struct MatrixOptions {
  PatternSpec pattern;
  bool pattern_given = false;  // else adaptive above kAdaptiveAbove ranks with a topology
  bool randomize = false;
  uint64_t seed = 0;     // --seed, or drawn at start when 0 (recorded in the report)
  uint64_t retest = 10;  // suspects re-measured alone
  double budget_s = 0;   // 0: no budget
  Tolerances tol;
  double start_timeout_s = 60;
  double time_s = kDefaultPairTime;  // per test per pair (every test of the job alike)
  bool time_given = false;
  uint64_t count = 0;           // -n, when given
  double timeout_s = 5;         // -to: the control deadline of every pair's run, and the servers'
  std::string bind;             // --bind: where this rank's server and agent listen
  std::string json, csv, html;  // rank 0's reports ("-": standard output)
  std::string simulate;         // --simulate FABRIC.json: a simulated fabric, no launcher
  std::string topology;         // --topology FILE
  std::string baseline;         // --baseline EARLIER.json
  uint64_t passes = 1;
  // One run per test of the command line, in order, both sides' options resolved: what a
  // pair runs (its -t replaced by the job's per-pair time).
  std::vector<PlannedRun> runs;
};

// The first --matrix option on a command line without --matrix ("--pattern"), or "".
std::string matrix_option_without_matrix(const CommandLine& cl);

// Usage errors name the option: unknown pattern, options that make no sense with --matrix (a
// host, --loopback, -oo, conf/quit, --auth_key_file, -lp), and whatever planning the tests
// finds. (The tolerances' ranges are the option table's.)
Result<MatrixOptions> matrix_options_from(const Invocation& cl, const TestRegistry& tests);

// Fingerprint of what each rank would measure (tests and both sides' resolved options, not
// where it listens), so ranks started with different command lines are found out.
std::string tests_fingerprint(const std::vector<PlannedRun>& runs);

}  // namespace fabperf::cluster
