// Resolving a parsed command line once into the Invocation every mode reads.
#include "cli/invocation.h"

#include <utility>

namespace fabperf {

namespace {

// This process's own run options: defaults, then every assignment not for the remote side.
RunOptions own_run_options(const std::vector<Assignment>& assignments, Dialect dialect) {
  RunOptions out = default_run_options(dialect);
  for (const Assignment& a : assignments) {
    if (a.spec->is_run_option() && a.side != Side::kRemote) store(out, *a.spec, a.value, true);
  }
  return out;
}

}  // namespace

Result<Invocation> resolve_invocation(CommandLine parsed, const ToolDefaultsRule& rule) {
  Invocation inv;
  static_cast<CommandLine&>(inv) = std::move(parsed);
  if (rule) {
    auto defaults = rule(inv.program, inv, own_run_options(inv.assignments, inv.dialect));
    if (!defaults.ok()) return defaults.status();
    if (defaults->iters) inv.program.iters = *defaults->iters;
    const std::vector<Assignment>& a = defaults->assignments;
    // The user's own options come after, and win.
    inv.assignments.insert(inv.assignments.begin(), a.begin(), a.end());
    for (TestRequest& request : inv.tests) {
      request.assignments.insert(request.assignments.begin(), a.begin(), a.end());
      if (!defaults->test.empty()) request.name = defaults->test;
    }
  }
  inv.own = own_run_options(inv.assignments, inv.dialect);
  return inv;
}

Status plan_invocation(Invocation& inv, const TestRegistry& tests) {
  auto planned = plan_runs(inv, tests);
  if (!planned.ok()) return Status::usage(planned.status().message());
  auto plan = repeat_plan(*planned, inv.program.repeat);
  if (!plan.ok()) return Status::usage(plan.status().message());
  inv.runs = std::move(*plan);
  return Status::success();
}

}  // namespace fabperf
