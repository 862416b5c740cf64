// Rank 0's job over a fleet, real or simulated: rounds, verdicts, reports.
#include "cluster/matrix_job.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>
#include <utility>

#include "cluster/adaptive_plan.h"
#include "cluster/coordinator.h"
#include "cluster/fabric_model.h"
#include "cluster/matrix_run.h"
#include "cluster/scoring.h"
#include "cluster/sim_fleet.h"
#include "cluster/topology_file.h"
#include "core/clock.h"
#include "core/output_file.h"
#include "core/text.h"

namespace fabperf::cluster {

namespace {

// The job's outcome, said by its reports: no message of its own.
Status outcome_of(const MatrixRun& run, bool interrupted) {
  if (interrupted) return Status::reported(Code::kInterrupted);
  bool failed = !run.complete;
  for (const RankStatus& r : run.ranks) failed |= !r.alive;
  for (const TestColumn& t : run.tests) failed |= t.matrix.failed_count() > 0;
  return failed ? Status::reported(Code::kFailed) : Status::success();
}

// Rank 0's files (--json, --csv, --html); a file it cannot write makes a clean job a failed one.
Status write_reports(const MatrixRun& run, const MatrixOptions& opts, Status outcome) {
  using Writer = Status (*)(const MatrixRun&, const std::string&);
  const std::pair<const std::string*, Writer> files[] = {{&opts.json, write_matrix_json},
                                                         {&opts.csv, write_matrix_csv},
                                                         {&opts.html, write_matrix_html}};
  for (const auto& [path, write] : files) {
    if (path->empty()) continue;
    Status w = write(run, *path);
    if (!w.ok()) {
      std::fprintf(stderr, "%s\n", w.message().c_str());
      if (outcome.ok()) outcome = Status::reported(Code::kFailed);
    }
  }
  if (opts.json != "-" && opts.csv != "-" && opts.html != "-") write_matrix_text(run, stdout);
  std::fflush(stdout);
  std::fflush(stderr);
  return outcome;
}

}  // namespace

Result<std::optional<Topology>> load_job_topology(const MatrixOptions& opts) {
  if (opts.topology.empty()) return std::optional<Topology>();
  auto topo = load_topology(opts.topology);
  if (!topo.ok()) return topo.status();
  return std::optional<Topology>(std::move(*topo));
}

std::shared_ptr<const Topology> place_topology(Topology topo, const std::vector<std::string>& hosts,
                                               const std::string& origin, std::FILE* warn) {
  std::vector<int> missing;
  std::vector<std::string> unused = topo.place_ranks(hosts, &missing);
  std::string mismatch = topology_mismatch(origin, unused, missing, hosts);
  if (!mismatch.empty() && warn != nullptr) std::fprintf(warn, "warning: %s\n", mismatch.c_str());
  return std::make_shared<const Topology>(std::move(topo));
}

Result<std::shared_ptr<const BaselineRun>> load_job_baseline(const MatrixOptions& opts) {
  if (opts.baseline.empty()) return std::shared_ptr<const BaselineRun>();
  std::vector<BaselineTest> tests;
  for (const PlannedRun& run : opts.runs) {
    tests.push_back({run.spec->name, figure_for(*run.spec).path});
  }
  return load_baseline(opts.baseline, tests);
}

PatternSpec job_pattern(const MatrixOptions& opts, int ranks, const Topology* topology) {
  if (!opts.pattern_given && ranks > kAdaptiveAbove && topology != nullptr &&
      topology->has_levels()) {
    PatternSpec adaptive;
    adaptive.kind = PatternKind::kAdaptive;
    return adaptive;
  }
  return opts.pattern;
}

Result<std::unique_ptr<RoundSource>> make_rounds(const MatrixOptions& opts, int ranks,
                                                 std::shared_ptr<const Topology> topology) {
  PatternSpec pattern = job_pattern(opts, ranks, topology.get());
  if (pattern.kind == PatternKind::kAdaptive) {
    if (!topology || !topology->has_levels()) {
      return Status::usage(
          "--pattern adaptive screens switch by switch: give it the fabric's shape with "
          "--topology FILE (Slurm's topology.conf or a 'host group' map), or --simulate");
    }
    if (ranks < 4) return Status::usage("--pattern adaptive needs at least 4 ranks");
    return std::unique_ptr<RoundSource>(
        std::make_unique<AdaptivePlan>(std::move(topology), opts.seed, opts.randomize));
  }
  std::vector<Schedule> passes;
  for (uint64_t p = 0; p < opts.passes; ++p) {
    auto s = Schedule::make(pattern, ranks, opts.randomize, opts.seed + p);
    if (!s.ok()) return s.status();
    passes.push_back(std::move(*s));
  }
  return std::unique_ptr<RoundSource>(std::make_unique<ScheduleRounds>(std::move(passes)));
}

Status run_job(const JobSetup& setup, RoundSource& rounds, Fleet& fleet,
               const std::function<void()>& on_finished, bool* all_ended) {
  const MatrixOptions& opts = *setup.opts;
  const int n = static_cast<int>(setup.hosts.size());
  std::FILE* progress = stderr;
  bool terminal = isatty(fileno(stderr)) != 0;
  PatternSpec pattern = job_pattern(opts, n, setup.topology.get());
  MatrixRun run;
  run.argv = *setup.argv;
  run.job = setup.job;
  run.pattern = pattern.name();
  run.ordered = rounds.ordered();
  run.randomize = opts.randomize;
  run.seed = opts.seed;
  run.count_per_pair = opts.time_given ? 0 : opts.count;
  run.budget_s = opts.budget_s;
  run.pairs_planned = rounds.pairs_planned();
  run.passes = opts.passes;
  run.tol = opts.tol;
  run.topology = setup.topology;
  run.topology_source = setup.topology_source;
  run.simulated = setup.simulated;
  run.simulation = setup.simulation;
  for (int r = 0; r < n; ++r) {
    RankStatus status;
    status.rank = r;
    status.host = setup.hosts[static_cast<size_t>(r)];
    run.ranks.push_back(status);
  }
  MatrixLayout layout =
      FigureMatrix::layout_for(n, rounds.pairs_planned() * opts.passes, rounds.ordered());
  for (const PlannedRun& planned : opts.runs) {
    run.tests.emplace_back(planned.spec->name, figure_for(*planned.spec), n, layout);
  }
  run.started = iso8601_now();
  int64_t wall_started = now_ns();
  CoordinatorConfig config{&opts, setup.stop, setup.started_ns, progress, terminal};
  Coordinator coordinator(config, run, rounds, fleet);
  std::fprintf(progress, "matrix: %d ranks on %zu host%s%s, pattern %s: %zu rounds%s, %zu test%s\n",
               n, run.host_count(), run.host_count() == 1 ? "" : "s",
               run.simulated.empty() ? "" : " (simulated)", run.pattern.c_str(),
               rounds.rounds_left(),
               pattern.kind == PatternKind::kAdaptive
                   ? " planned to start"
                   : fmt::format(", {} pairs a test", rounds.pairs_planned()).c_str(),
               run.tests.size(), run.tests.size() == 1 ? "" : "s");
  coordinator.connect();
  coordinator.measure();
  bool ended = coordinator.finish();
  if (on_finished) on_finished();
  run.judge();
  run.complete = run.rounds_done == run.rounds_planned && run.stopped.empty();
  if (!run.simulated.empty()) {
    // A fault of one pair is found only where every pair was measured.
    bool every_pair = pattern.kind == PatternKind::kAll || pattern.kind == PatternKind::kShift ||
                      pattern.kind == PatternKind::kSerial;
    run.simulation["score"] =
        score_findings(findings_json(run), run.simulation["faults"], every_pair);
  }
  if (setup.baseline) run.baseline = compare_with_baseline(run, *setup.baseline);
  run.elapsed_s = static_cast<double>(fleet.now_ns() - setup.started_ns) / 1e9;
  if (!run.simulated.empty()) {
    run.simulation["wall_s"] = static_cast<double>(now_ns() - wall_started) / 1e9;
  }
  bool interrupted = setup.stop != nullptr && setup.stop->load();
  Status outcome = outcome_of(run, interrupted);
  run.exit_code = outcome.exit_code();  // the JSON's record of the status the process ends with
  if (all_ended != nullptr) *all_ended = ended;
  return write_reports(run, opts, outcome);
}

Status run_simulated_job(const std::vector<std::string>& argv, const MatrixOptions& o,
                         const std::atomic<bool>* stop) {
  MatrixOptions opts = o;
  if (opts.seed == 0) opts.seed = static_cast<uint64_t>(now_ns()) % 1000000007 + 1;
  auto model = FabricModel::load(opts.simulate);
  Status usage = model.ok() ? Status::success() : model.status();
  auto topo = load_job_topology(opts);
  if (usage.ok() && !topo.ok()) usage = topo.status();
  auto baseline = load_job_baseline(opts);
  if (usage.ok() && !baseline.ok()) usage = baseline.status();
  if (usage.ok() && !opts.json.empty()) usage = check_writable(opts.json, "--json");
  if (usage.ok() && !opts.csv.empty()) usage = check_writable(opts.csv, "--csv");
  if (usage.ok() && !opts.html.empty()) usage = check_writable(opts.html, "--html");
  if (!usage.ok()) return usage;
  JobSetup setup;
  setup.argv = &argv;
  setup.opts = &opts;
  setup.job = "simulated";
  setup.hosts = model->host_names();
  setup.stop = stop;
  setup.simulated = opts.simulate;
  setup.baseline = *baseline;
  if (topo->has_value()) {
    setup.topology =
        place_topology(std::move(**topo), setup.hosts, "--topology " + opts.topology, stderr);
    setup.topology_source = "--topology " + opts.topology;
  } else {
    setup.topology = std::make_shared<const Topology>(model->topology());
    setup.topology_source = "--simulate " + opts.simulate;
  }
  nlohmann::json faults = nlohmann::json::array();
  for (const Fault& f : model->faults()) faults.push_back(model->fault_json(f));
  setup.simulation = {{"model", opts.simulate}, {"model_seed", model->seed()}, {"faults", faults}};
  auto rounds = make_rounds(opts, model->hosts(), setup.topology);
  if (!rounds.ok()) return rounds.status();
  SimFleet fleet(*model, opts.timeout_s);
  setup.started_ns = fleet.now_ns();
  return run_job(setup, **rounds, fleet, nullptr, nullptr);
}

}  // namespace fabperf::cluster
