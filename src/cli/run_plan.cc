// Resolving each test run's options for both sides.
#include "cli/run_plan.h"

#include <algorithm>

namespace fabperf {

Result<RunParams> resolve_run(const TestSpec& test, const std::vector<Assignment>& assignments,
                              const std::vector<Assignment>& loop_values, Dialect dialect,
                              std::vector<std::string>* warnings) {
  RunParams out{default_run_options(dialect), default_run_options(dialect)};
  auto uses = [&](const char* name) {
    return std::any_of(test.options.begin(), test.options.end(),
                       [&](const char* o) { return std::string(o) == name; });
  };
  std::vector<std::string> warned;
  auto apply = [&](const Assignment& a) {
    const OptionSpec& spec = *a.spec;
    if (!spec.is_run_option()) return;
    // conf and quit use none: qperf's "-n set but not used in test conf" (README).
    if (spec.per_test && !uses(spec.name) && warnings != nullptr &&
        std::find(warned.begin(), warned.end(), a.spelling) == warned.end()) {
      warned.push_back(a.spelling);
      warnings->push_back("warning: " + a.spelling + " set but not used in test " + test.name);
    }
    if (a.side != Side::kRemote) store(out.local, spec, a.value, true);
    if (a.side != Side::kLocal) store(out.remote, spec, a.value, true);
  };
  for (const Assignment& a : assignments) apply(a);
  for (const Assignment& a : loop_values) apply(a);
  for (RunOptions* side : {&out.local, &out.remote}) {
    if (given(*side, &RunOptions::msg_size) && side->msg_size == 0) {
      return Status::usage(std::string(test.name) +
                           ": -m 0: a message has at least 1 byte (leave -m out for the "
                           "test's default, " +
                           std::to_string(test.default_msg_size) + ")");
    }
    // msg_size 0 means "the test's own default", as in qperf.
    side->msg_size = message_size_of(test, *side);
  }
  if (test.check != nullptr) {
    for (const RunOptions* side : {&out.local, &out.remote}) FP_RETURN_IF_ERROR(test.check(*side));
  }
  // -t and -n together: a run is limited by one, the count (as before), and says so rather
  // than showing the unused -t as its time.
  std::string time_spelling;
  for (const auto* list : {&assignments, &loop_values}) {
    for (const Assignment& a : *list) {
      if (a.spec->field == FieldRef(&RunOptions::time)) time_spelling = a.spelling;
    }
  }
  if (!time_spelling.empty() && out.local.no_msgs > 0 && test.kind != TestKind::kMisc &&
      warnings != nullptr) {
    warnings->push_back("warning: " + time_spelling + " set but not used in test " +
                        std::string(test.name) + ": -n " + std::to_string(out.local.no_msgs) +
                        " governs (a run is limited by a count or a time, not both)");
  }
  if (out.local.omit > 0 && out.local.no_msgs > 0) {
    return Status::usage(std::string(test.name) +
                         ": --omit leaves the first seconds of a timed run out; a run counted "
                         "by -n has none to leave out (give -t, or no --omit)");
  }
  if (out.local.time == 0 && out.local.no_msgs == 0 && test.kind != TestKind::kMisc) {
    return Status::usage(std::string(test.name) +
                         ": -t 0 would run forever; give a positive time or -n");
  }
  return out;
}

std::vector<std::vector<Assignment>> expand_loops(const std::vector<LoopSpec>& loops) {
  std::vector<std::vector<Assignment>> runs{{}};
  for (const LoopSpec& loop : loops) {
    std::vector<std::vector<Assignment>> next;
    for (const auto& prefix : runs) {
      for (const OptionValue& v : loop.values) {
        auto run = prefix;
        run.push_back({loop.var, Side::kBoth, v, std::string("-oo ") + loop.var->name});
        next.push_back(std::move(run));
      }
    }
    runs = std::move(next);
    if (runs.size() > kMaxLoopValues) runs.resize(kMaxLoopValues);
  }
  return runs;
}

Result<std::vector<PlannedRun>> plan_runs(const CommandLine& cl, const TestRegistry& tests) {
  std::vector<PlannedRun> plan;
  for (const TestRequest& request : cl.tests) {
    const TestSpec* spec = tests.find(request.name);
    if (spec == nullptr) return Status::usage(request.name + ": bad test");
    for (const std::vector<Assignment>& loop_values : expand_loops(request.loops)) {
      if (plan.size() >= kMaxLoopValues) {
        return Status::usage("more than " + std::to_string(kMaxLoopValues) +
                             " test runs on one command line");
      }
      PlannedRun run;
      run.spec = spec;
      auto params = resolve_run(*spec, request.assignments, loop_values, cl.dialect, &run.warnings);
      if (!params.ok()) return params.status();
      run.params = std::move(*params);
      // Display options are positional, as in qperf: those given before the test (and after
      // the last test) apply to it; a -v between two tests changes the second only.
      run.display = display_of(resolve_program(request.assignments, cl.dialect));
      for (const Assignment& a : loop_values) run.loop_values.emplace_back(a.spec, a.value);
      plan.push_back(std::move(run));
    }
  }
  return plan;
}

Result<std::vector<PlannedRun>> repeat_plan(const std::vector<PlannedRun>& plan, uint64_t rounds) {
  if (rounds <= 1) return plan;
  std::vector<PlannedRun> out;
  for (uint64_t round = 1; round <= rounds; ++round) {
    for (const PlannedRun& run : plan) {
      const bool measures = run.spec->kind != TestKind::kMisc;
      if (!measures && round != rounds) continue;
      if (out.size() >= kMaxLoopValues) {
        return Status::usage("--repeat " + std::to_string(rounds) + ": more than " +
                             std::to_string(kMaxLoopValues) + " test runs on one command line");
      }
      out.push_back(run);
      if (measures) {
        out.back().repetition = round;
        out.back().repetitions = rounds;
      }
      // A warning ("-n set but not used") is said once, not once a round.
      if (round > 1) out.back().warnings.clear();
    }
  }
  return out;
}

}  // namespace fabperf
