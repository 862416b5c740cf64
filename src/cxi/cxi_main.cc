// The fab_* tools' top level: parse with the tool's grammar, then serve, run a client, or run
// a single-process tool (loopback, heatsink, stat), all through the one engine.
#include "cxi/cxi_main.h"

#include <cstdio>

#include "cli/tool_grammar.h"
#include "cxi/cxi_plan.h"
#include "cxi/cxi_reporter.h"
#include "stats/latency.h"

namespace fabperf::cxi {

namespace {

int fail(const std::string& message, int code = 1) {
  std::fprintf(stderr, "%s\n", message.c_str());
  return code;
}

std::string usage(const Tool& tool) {
  std::string out = "Usage:\n" + tool_synopsis(tool);
  out += std::string("\n") + tool.name + ": " + tool.summary + " (" + tool.original +
         " on any libfabric provider).\n\nOptions:\n";
  return out + tool_usage_options(tool.bit);
}

int run_pair_or_loopback(const Tool& tool, CommandLine& cl, RunInfo& info, const SessionEnv& env,
                         bool loopback) {
  auto plan = plan_tool(tool, cl, *env.tests);
  if (!plan.ok()) return fail(plan.status().message());  // the originals exit 1 for any error
  const ProgramOptions& p = cl.program;
  info.percentiles = default_percentiles();
  if (!p.percentiles.empty()) info.percentiles = *parse_percentiles(p.percentiles);
  std::vector<std::unique_ptr<Reporter>> reporters;
  Endpoints ep{plan->device, plan->provider, false, "", loopback ? "127.0.0.1" : cl.host};
  {
    reporters.push_back(make_tool_reporter(tool, p, plan->runs.at(0).params.local,
                                           plan->sizes.front(), plan->sizes.back(), ep,
                                           loopback));
  }
  // fabperf's JSON document and its HTML report, beside the tool's own tables.
  // The tool's table holds standard output: fabperf's documents go there only one at a time.
  if ((p.json == "-") + (p.html == "-") + (p.json_stream == "-") > 1) {
    return fail("only one of --json, --html and --json-stream can be - (standard output)", 2);
  }
  for (const auto& [path, make] : {std::pair{&p.json, &make_json_reporter},
                                   std::pair{&p.html, &make_html_reporter}}) {
    if (path->empty()) continue;
    auto r = make(*path);
    if (!r.ok()) return fail(r.status().message(), 2);
    reporters.push_back(std::move(*r));
  }
  if (!p.json_stream.empty()) {
    auto r = make_json_stream_reporter(
        p.json_stream, given(p, &ProgramOptions::interval) ? p.interval : 0);
    if (!r.ok()) return fail(r.status().message(), 2);
    reporters.push_back(std::move(*r));
  }
  return run_client_mode(cl, plan->runs, info, reporters, loopback, tool.name, env);
}

}  // namespace

bool is_cxi_program(const std::string& program) { return find_tool(program) != nullptr; }

int cxi_main(const std::string& program, const std::vector<std::string>& args, RunInfo& info,
             const SessionEnv& env) {
  const Tool* tool = find_tool(program);
  if (tool == nullptr) return fail(program + ": not a fab_* tool");
  const bool pair = tool->kind == ToolKind::kLatency || tool->kind == ToolKind::kBandwidth;
  auto parsed = parse_tool_command_line(args, tool->bit, tool->name, pair);
  if (!parsed.ok()) return fail(parsed.status().message());
  CommandLine& cl = *parsed;
  if (cl.program.help) {
    std::fputs(usage(*tool).c_str(), stdout);
    return 0;
  }
  if (cl.program.version) {
    std::printf("%s version: %s (fabperf)\n", tool->name, FABPERF_VERSION);
    return 0;
  }
  switch (tool->kind) {
    case ToolKind::kLatency:
    case ToolKind::kBandwidth: {
      if (!cl.host.empty()) return run_pair_or_loopback(*tool, cl, info, env, false);
      auto observer = make_tool_server_observer(*tool, cl.program, stdout);
      return run_server_mode(cl, env, observer.get(),
                             "Listening on port " + std::to_string(cl.program.listen_port) +
                                 " for client to connect...\n",
                             tool->name);
    }
    case ToolKind::kLoopback:
      return run_pair_or_loopback(*tool, cl, info, env, true);
    case ToolKind::kHeatsink:
      return run_heatsink_check(*tool, cl, *env.tests);
    case ToolKind::kStat:
      return run_stat(*tool, cl);
  }
  return 1;
}

}  // namespace fabperf::cxi
