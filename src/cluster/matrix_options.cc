// Checking the command line of a --matrix rank, and the options that steer the job.
#include "cluster/matrix_options.h"

#include <fmt/format.h>

#include <functional>

#include "options/run_options_json.h"

namespace fabperf::cluster {

std::string matrix_option_without_matrix(const CommandLine& cl) {
  if (cl.program.matrix) return "";
  for (const Assignment& a : cl.assignments) {
    if (std::string_view(a.spec->group) == "matrix") return a.spelling;
  }
  return "";
}

Result<MatrixOptions> matrix_options_from(const Invocation& cl, const TestRegistry& tests) {
  const ProgramOptions& p = cl.program;
  MatrixOptions o;
  if (!cl.host.empty() || p.loopback) {
    return Status::usage(
        "--matrix measures the ranks of its job: give it no host and no "
        "--loopback (mpirun -np N fabperf --matrix TESTS)");
  }
  if (cl.tests.empty()) {
    return Status::usage(
        "--matrix: must specify a test type (e.g. tcp_lat tcp_bw); try: "
        "fabperf --help tests");
  }
  for (const TestRequest& t : cl.tests) {
    const TestSpec* spec = tests.find(t.name);
    if (spec == nullptr || spec->kind == TestKind::kMisc) {
      return Status::usage("--matrix: " + t.name +
                           " measures nothing; give latency, bandwidth "
                           "or message rate tests");
    }
    if (!t.loops.empty()) {
      return Status::usage("--matrix: -oo loops are not supported (one figure a pair and test)");
    }
  }
  for (const FieldRef& refused :
       {FieldRef(&ProgramOptions::auth_key_file), FieldRef(&ProgramOptions::listen_port)}) {
    if (given(p, refused)) {
      return Status::usage(std::string("--") + option_of(refused).name +
                           " does not apply to --matrix: its ranks listen on ephemeral ports, "
                           "opened by per-job keys shared through PMIx");
    }
  }
  if (given(p, &ProgramOptions::repeat)) {
    return Status::usage(
        "--repeat does not apply to --matrix (--retest re-measures suspect "
        "pairs)");
  }
  auto pattern = parse_pattern(p.pattern);
  if (!pattern.ok()) return pattern.status();
  o.pattern = *pattern;
  o.pattern_given = given(p, &ProgramOptions::pattern);
  o.simulate = p.simulate;
  o.topology = p.topology;
  o.baseline = p.baseline;
  o.passes = std::max<uint64_t>(1, p.passes);
  if (o.passes > 1 && o.pattern.kind == PatternKind::kAdaptive) {
    return Status::usage(
        "--passes applies to the fixed patterns, not --pattern adaptive (it "
        "re-measures what it suspects by itself)");
  }
  o.randomize = p.randomize;
  o.seed = p.seed;
  o.retest = p.retest;
  o.budget_s = p.budget;
  o.start_timeout_s = p.start_timeout;
  o.tol = {p.lat_tolerance, p.bw_tolerance, p.outlier_mads, p.node_fraction};
  auto runs = plan_runs(cl, tests);
  if (!runs.ok()) return runs.status();
  o.runs = std::move(*runs);
  // One -t and -n for the job: the first test that was given one sets it.
  for (const PlannedRun& run : o.runs) {
    const RunOptions& local = run.params.local;
    if (!o.time_given && given(local, &RunOptions::time)) {
      o.time_given = true;
      o.time_s = local.time;
    }
    if (o.count == 0 && given(local, &RunOptions::no_msgs)) o.count = local.no_msgs;
  }
  o.timeout_s = cl.own.timeout;
  o.bind = p.bind;
  o.json = p.json;
  o.csv = p.csv;
  o.html = p.html;
  if ((o.json == "-") + (o.csv == "-") + (o.html == "-") > 1) {
    return Status::usage("only one of --json -, --csv - and --html - can have standard output");
  }
  return o;
}

std::string tests_fingerprint(const std::vector<PlannedRun>& runs) {
  std::string text;
  for (const PlannedRun& run : runs) {
    text += std::string(run.spec->name) + to_json(run.params.local).dump() +
            to_json(run.params.remote).dump() + ";";
  }
  return fmt::format("{:016x}", std::hash<std::string>{}(text));
}

}  // namespace fabperf::cluster
