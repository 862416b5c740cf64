// A --matrix rank's life: check the command line, join the job through PMIx, start a server
// and an agent, publish where they listen, then serve rank 0 -- or, on rank 0, drive the job
// and write the reports.
#include "cluster/matrix_main.h"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <optional>
#include <thread>
#include <utility>

#include "cluster/agent.h"
#include "cluster/agent_fleet.h"
#include "cluster/launcher_watch.h"
#include "cluster/matrix_job.h"
#include "cluster/matrix_options.h"
#include "cluster/pair_runner.h"
#include "cluster/rank_services.h"
#include "core/clock.h"
#include "core/environment.h"
#include "core/output_file.h"
#include "core/signals.h"
#include "core/text.h"

namespace fabperf::cluster {

namespace {

constexpr const char* kHowToLaunch =
    "--matrix runs under a launcher that starts one fabperf per node and gives it PMIx:\n"
    "    mpirun --enable-recovery -np N --map-by node fabperf --matrix [OPTIONS] TESTS\n"
    "    srun -N N --ntasks-per-node=1 --mpi=pmix --kill-on-bad-exit=0 fabperf --matrix "
    "[OPTIONS] TESTS\n"
    "(docs/cluster.md says why --enable-recovery and --kill-on-bad-exit=0: a rank that dies must\n"
    "not take rank 0 and its report with it)";

// Only one rank prints what every rank would say alike: the launcher's rank 0, by whichever
// variable the launcher sets (PMIx, Slurm's srun with or without PMIx, PMI-1/2, Open MPI).
bool speaks_for_job() {
  const Environment& env = environment();
  for (const auto* rank : {&env.pmix_rank, &env.slurm_procid, &env.pmi_rank, &env.ompi_rank}) {
    if (rank->has_value()) return **rank == "0";
  }
  return true;
}

// Rank 0 holds a connection to every rank's agent: raise the soft descriptor limit as far as
// the hard one allows, and say so when even that is too low.
Status ensure_descriptors(int ranks) {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return Status::success();
  rlim_t need = static_cast<rlim_t>(ranks) + 256;
  if (limit.rlim_cur >= need) return Status::success();
  limit.rlim_cur = limit.rlim_max == RLIM_INFINITY ? need : std::min(need, limit.rlim_max);
  setrlimit(RLIMIT_NOFILE, &limit);
  if (limit.rlim_cur >= need) return Status::success();
  return Status::failed(
      fmt::format("rank 0 needs {} file descriptors for {} ranks; the hard "
                  "limit is {} (raise it: ulimit -Hn, or limits.conf)",
                  need, ranks, limit.rlim_max));
}

Status serve_rank(const CommandLine& cl, const MatrixOptions& o, const SessionEnv& env,
                  Bootstrap& boot, const std::atomic<bool>* stop) {
  RankServices services;
  start_services(cl, o, env, boot, stop, services);
  std::string me = fmt::format("fabperf --matrix rank {} ({})", boot.rank(), services.card.host);
  Status s = boot.publish(services.card);
  // A rank missing from the exchange is rank 0's to report, not this rank's. After a complete
  // exchange this rank needs the launcher no more: it lets go, so that its own death later
  // cannot take the job step (and rank 0's report) down under Slurm.
  const bool exchanged = s.ok() && boot.exchange(o.start_timeout_s).ok();
  if (exchanged) boot.let_go(o.timeout_s);
  if (!s.ok() || !services.card.error.empty()) {
    std::fprintf(stderr, "%s: %s; rank 0 reports it unreachable\n", me.c_str(),
                 (!s.ok() ? s : Status::failed(services.card.error)).message().c_str());
    // Rank 0's exit status is the job's verdict; a failed one here could end the job.
    return Status::success();
  }
  auto rank0 = boot.lookup(0, o.start_timeout_s);
  if (!rank0.ok()) return Status::failed(me + ": rank 0 " + rank0.status().message());
  if (!rank0->error.empty()) return Status::success();  // rank 0 says why, and ends the job
  std::vector<RankCard> peers;
  for (int r = 0; exchanged && r < boot.size(); ++r) {
    auto card = boot.lookup(r, o.timeout_s);
    if (card.ok() && card->error.empty()) peers.push_back(*card);
  }
  open_to_peers(services, peers, &*rank0);
  s = services.agent->serve(o.start_timeout_s + 30);
  if (s.code() == Code::kInterrupted) return Status::reported(Code::kInterrupted);
  if (!s.ok()) return Status::failed(me + ": " + s.message());
  return Status::success();
}

// The topology file's error, or else the schedule's.
Status schedule_usage(const MatrixOptions& opts, int n,
                      const Result<std::optional<Topology>>& topology) {
  Status usage;
  if (!topology.ok()) usage = topology.status();
  if (usage.ok()) {
    // The schedule's own errors (a pattern file's) now; the rounds are made once the hosts
    // are known (adaptive needs them placed on the topology).
    PatternSpec pattern = job_pattern(opts, n, topology->has_value() ? &**topology : nullptr);
    if (pattern.kind != PatternKind::kAdaptive) {
      auto made = Schedule::make(pattern, n, opts.randomize, opts.seed);
      if (!made.ok()) usage = made.status();
    } else if (!topology->has_value()) {
      usage = make_rounds(opts, n, nullptr).status();
    }
  }
  return usage;
}

// Every rank's card, rank 0's own first; a rank that did not publish is its lookup's error.
std::vector<Result<RankCard>> rank_cards(Bootstrap& boot, const MatrixOptions& opts,
                                         const RankCard& own, const Status& exchanged,
                                         const Deadline& start_up) {
  std::vector<Result<RankCard>> cards;
  for (int r = 0; r < boot.size(); ++r) {
    if (r == 0) {
      cards.emplace_back(own);
      continue;
    }
    // After a failed exchange each missing rank costs a wait: all of them share what is left
    // of --start_timeout (PMIx waits whole seconds, at least one).
    double wait = std::max(1.0, std::min(5.0, start_up.remaining_ms() / 1000.0));
    cards.push_back(boot.lookup(r, exchanged.ok() ? opts.start_timeout_s : wait));
  }
  return cards;
}

// What the job's run reads: the command line, the options, the hosts by rank, the baseline
// and the topology placed on the hosts.
JobSetup job_setup(const std::vector<std::string>& argv, const MatrixOptions& opts, Bootstrap& boot,
                   const std::vector<Result<RankCard>>& cards, const std::atomic<bool>* stop,
                   int64_t started_ns, std::shared_ptr<const BaselineRun> baseline,
                   std::optional<Topology>& topology, std::FILE* progress) {
  JobSetup setup;
  setup.argv = &argv;
  setup.opts = &opts;
  setup.job = boot.job();
  for (const Result<RankCard>& card : cards) setup.hosts.push_back(card.ok() ? card->host : "?");
  setup.stop = stop;
  setup.started_ns = started_ns;
  setup.baseline = std::move(baseline);
  if (topology.has_value()) {
    setup.topology =
        place_topology(std::move(*topology), setup.hosts, "--topology " + opts.topology, progress);
    setup.topology_source = "--topology " + opts.topology;
  }
  return setup;
}

Status run_rank0(const std::vector<std::string>& argv, const CommandLine& cl,
                 const MatrixOptions& o, const SessionEnv& env, Bootstrap& boot,
                 const std::atomic<bool>* stop, int64_t started_ns) {
  const int n = boot.size();
  MatrixOptions opts = o;
  if (opts.seed == 0) opts.seed = static_cast<uint64_t>(now_ns()) % 1000000007 + 1;
  // Usage errors found here still go through the exchange, so the other ranks learn of them
  // at once instead of waiting for a rank 0 that will never call.
  auto topology = load_job_topology(opts);
  Status usage = schedule_usage(opts, n, topology);
  auto baseline = load_job_baseline(opts);
  if (usage.ok() && !baseline.ok()) usage = baseline.status();
  if (usage.ok()) usage = ensure_descriptors(n);
  if (usage.ok() && !opts.json.empty()) usage = check_writable(opts.json, "--json");
  if (usage.ok() && !opts.csv.empty()) usage = check_writable(opts.csv, "--csv");
  if (usage.ok() && !opts.html.empty()) usage = check_writable(opts.html, "--html");
  RankServices services;
  if (usage.ok()) {
    start_services(cl, opts, env, boot, stop, services);
  } else {
    services.card.rank = 0;
    services.card.host = host_name();
    services.card.tests = tests_fingerprint(opts.runs);
    services.card.pid = getpid();
    services.card.error = "rank 0: " + usage.message();
  }
  Deadline start_up = Deadline::after(opts.start_timeout_s);
  Status s = boot.publish(services.card);
  Status exchanged = s.ok() ? boot.exchange(opts.start_timeout_s) : s;
  if (!usage.ok()) return usage;
  std::FILE* progress = stderr;
  for (const std::string& w : matrix_warnings(opts.runs)) std::fprintf(progress, "%s\n", w.c_str());
  if (!exchanged.ok()) {
    std::fprintf(progress,
                 "matrix: start-up exchange: %s; going on with the ranks that "
                 "published\n",
                 exchanged.message().c_str());
  }
  std::vector<Result<RankCard>> cards = rank_cards(boot, opts, services.card, exchanged, start_up);
  std::vector<RankCard> peers;
  for (const Result<RankCard>& card : cards) {
    if (exchanged.ok() && card.ok() && card->error.empty()) peers.push_back(*card);
  }
  open_to_peers(services, peers, &services.card);
  std::thread agent_thread;
  if (services.agent) {
    Agent* agent = services.agent.get();
    // Rank 0's own agent: its failure is the coordinator's link to rank 0 failing, reported.
    agent_thread =
        std::thread([agent, &opts] { agent->serve(opts.start_timeout_s + 30).ignore_error(); });
  }
  JobSetup setup =
      job_setup(argv, opts, boot, cards, stop, started_ns, *baseline, *topology, progress);
  auto end_agent = [&] {
    if (services.agent) services.agent->stop();
    if (agent_thread.joinable()) agent_thread.join();
  };
  auto rounds = make_rounds(opts, n, setup.topology);
  if (!rounds.ok()) {  // checked before the exchange: not expected here
    AgentFleet(opts, boot.job(), std::move(cards)).finish();
    end_agent();
    return rounds.status();
  }
  AgentFleet fleet(opts, boot.job(), std::move(cards));
  bool all_ended = true;
  Status outcome = run_job(setup, **rounds, fleet, end_agent, &all_ended);
  if (!all_ended) {
    // Ranks that hang (or never reached rank 0) would keep the launcher waiting forever.
    std::fprintf(stderr, "matrix: asking the launcher to end ranks that did not stop\n");
    std::fflush(stderr);
    boot.abort_job("fabperf --matrix: rank 0 has reported; ending the ranks that hang");
  }
  return outcome;
}

}  // namespace

bool is_matrix_command(const CommandLine& cl) {
  return cl.program.matrix || !matrix_option_without_matrix(cl).empty();
}

Status run_matrix(const std::vector<std::string>& argv, const Invocation& cl,
                  const SessionEnv& env) {
  if (!cl.program.matrix) {
    return Status::usage(matrix_option_without_matrix(cl) +
                         " applies only with --matrix; try: fabperf --help options");
  }
  int64_t started_ns = now_ns();
  auto options = matrix_options_from(cl, *env.tests);
  if (!options.ok()) {
    // One rank says it for the job; the others fail as quietly.
    return speaks_for_job() ? Status::usage(options.status().message())
                            : Status::reported(Code::kUsage);
  }
  if (!options->simulate.empty()) return run_simulated_job(argv, *options, &stop_flag());
  if (!pmix_launched()) {
    if (!speaks_for_job()) return Status::reported(Code::kUsage);
    std::string hint = non_pmix_launcher_hint();
    return Status::usage("fabperf --matrix: no PMIx launcher started this process" +
                         (hint.empty() ? "" : ": " + hint) + ".\n" + kHowToLaunch);
  }
  auto boot = make_pmix_bootstrap();
  if (!boot.ok()) return Status::failed("fabperf --matrix: " + boot.status().message());
  const std::atomic<bool>* stop = &stop_flag();
  // A rank other than 0 ends with its launcher, stopped or not (review N11).
  if ((*boot)->rank() != 0) {
    if (Status tied = end_with_launcher(); !tied.ok()) {
      (*boot)->finalize();
      return Status::failed("fabperf --matrix: " + tied.message());
    }
  }
  Status outcome = (*boot)->rank() == 0
                       ? run_rank0(argv, cl, *options, env, **boot, stop, started_ns)
                       : serve_rank(cl, *options, env, **boot, stop);
  (*boot)->finalize();
  return outcome;
}

}  // namespace fabperf::cluster
