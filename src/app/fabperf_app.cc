// Top level: the dialect argv[0] selects parses the command line, then the process serves,
// runs its plan against a server, or both in one process (--loopback).
#include "app/fabperf_app.h"

#include <cstdio>

#include "app/all_tests.h"
#include "app/session_process.h"
#include "session/child_main.h"
#include "session/modes.h"
#include "cli/help.h"
#include "cli/run_plan.h"
#include "cluster/matrix_main.h"
#include "core/signals.h"
#include "core/text.h"
#include "cxi/cxi_main.h"
#include "engine/misc_tests.h"
#include "fabric/fabric_list.h"
#include "qperf_wire/hooks.h"
#include "report/compare_command.h"
#include "report/report_command.h"
#include "stats/latency.h"

namespace fabperf {

namespace {

Status usage_error(const std::string& message) { return Status::usage(message); }

Status qperf_main(const std::vector<std::string>& args, RunInfo& info, const SessionEnv& env) {
  auto parsed = parse_command_line(args, all_tests().names());
  if (!parsed.ok()) return usage_error(parsed.status().message());
  const CommandLine& cl = *parsed;
  const ProgramOptions& p = cl.program;
  if (p.help) {
    auto text = help_text(cl.help_topic, all_tests());
    if (!text.ok()) return usage_error(text.status().message());
    std::fputs(text->c_str(), stdout);
    return Status::success();
  }
  if (p.version) {
    std::printf("fabperf %s\n", FABPERF_VERSION);
    return Status::success();
  }
  if (p.list_fabrics) return list_fabrics(stdout);
  // Every rank of an mpirun/srun job (or a --matrix option without --matrix: a usage error).
  if (auto matrix = cluster::maybe_run_matrix(info.argv, cl, env)) return *matrix;
  if (cl.host.empty() && !p.loopback) return run_server_mode(cl, env, nullptr, "");
  if (cl.tests.empty()) return usage_error("must specify a test type; try: fabperf --help");
  auto planned = plan_runs(cl, all_tests());
  if (!planned.ok()) return usage_error(planned.status().message());
  auto plan = repeat_plan(*planned, p.repeat);
  if (!plan.ok()) return usage_error(plan.status().message());
  info.percentiles = *parse_percentiles(p.percentiles);

  std::vector<std::unique_ptr<Reporter>> reporters;
  const int to_stdout =
      (p.json == "-") + (p.csv == "-") + (p.html == "-") + (p.json_stream == "-");
  if (to_stdout > 1) {
    return usage_error(
        "only one of --json, --csv, --html and --json-stream can be - (standard output)");
  }
  // Text goes to standard output unless a machine format has taken it.
  if (to_stdout == 0) reporters.push_back(make_qperf_text_reporter(display_of(p)));
  for (const auto& [path, make] : {std::pair{&p.json, &make_json_reporter},
                                   std::pair{&p.csv, &make_csv_reporter},
                                   std::pair{&p.html, &make_html_reporter}}) {
    if (path->empty()) continue;
    auto r = make(*path);
    if (!r.ok()) return usage_error(r.status().message());
    reporters.push_back(std::move(*r));
  }
  if (!p.json_stream.empty()) {
    auto r = make_json_stream_reporter(p.json_stream, given(p, &ProgramOptions::interval) ? p.interval : 0);
    if (!r.ok()) return usage_error(r.status().message());
    reporters.push_back(std::move(*r));
  }
  return run_client_mode(cl, *plan, info, reporters, p.loopback, "fabperf", env);
}

Status run_program(const std::string& program, const std::vector<std::string>& args) {
  // A server's session process: the same program, in a mode no person types.
  if (is_session_child_args(args)) {
    register_session_entry();
    return session_child_main(args);
  }
  // Subcommands, not server names (a host called "report" or "compare" is reached with -H).
  // They measure nothing, so they keep the default signal handling: Ctrl-C simply stops them.
  if (!cxi::is_cxi_program(program) && !args.empty() && args[0] == "report") {
    return report_main(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  if (!cxi::is_cxi_program(program) && !args.empty() && args[0] == "compare") {
    return compare_main(std::vector<std::string>(args.begin() + 1, args.end()));
  }
  // Before any thread exists, so every thread inherits the blocked SIGINT/SIGTERM.
  start_signal_thread();
  RunInfo info;
  info.started = iso8601_now();
  info.argv.push_back(program);
  info.argv.insert(info.argv.end(), args.begin(), args.end());
  info.client = node_info();
  SessionEnv env{&all_tests(), session_process_runner()};
  env.qperf = qperf_wire::hooks();  // stock qperf peers on the same port and behind the client
  // fab_write_lat and its siblings are this program under other names: their own dialect.
  if (cxi::is_cxi_program(program)) return cxi::cxi_main(program, args, info, env);
  return qperf_main(args, info, env);
}

}  // namespace

int fabperf_main(const std::string& program, const std::vector<std::string>& args) {
  Status outcome = run_program(program, args);
  // A failure not yet told (a mode that said it already leaves the message empty).
  if (!outcome.message().empty()) std::fprintf(stderr, "%s\n", outcome.message().c_str());
  // The one place a Status becomes the process's exit status (core/status.h).
  return outcome.exit_code();
}

}  // namespace fabperf
