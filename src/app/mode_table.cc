// The mode table and the modes' entries: which mode a command line asks for, and each mode's
// run, whichever dialect parsed it.
#include "app/mode_table.h"

#include <cstdio>

#include "app/all_tests.h"
#include "app/session_process.h"
#include "cli/help.h"
#include "cli/run_plan.h"
#include "cli/tool_grammar.h"
#include "cluster/matrix_main.h"
#include "core/signals.h"
#include "core/text.h"
#include "cxi/cxi_main.h"
#include "cxi/cxi_plan.h"
#include "engine/misc_tests.h"
#include "fabric/fabric_list.h"
#include "qperf_wire/hooks.h"
#include "report/compare_command.h"
#include "report/outputs.h"
#include "report/report_command.h"
#include "session/child_main.h"
#include "stats/latency.h"

namespace fabperf {

namespace {

// fabperf's client (and --loopback): its plan, the qperf text and the --json, --csv, --html
// and --json-stream reporters beside it.
Status run_qperf_client(ModeCall& call) {
  const Invocation& cl = call.cl;
  const ProgramOptions& p = cl.program;
  call.info.percentiles = *parse_percentiles(p.percentiles);

  // Text goes to standard output unless a machine format has taken it.
  OutputSpec outputs = outputs_of(p);
  outputs.own = make_qperf_text_reporter(display_of(p));
  auto reporters = make_reporters(std::move(outputs));
  if (!reporters.ok()) return reporters.status();
  return run_client_mode(cl, cl.runs, call.info, *reporters, p.loopback, "fabperf", call.env);
}

Status run_serve(ModeCall& call) {
  if (call.tool != nullptr) return cxi::run_tool_server(*call.tool, call.cl, call.env);
  return run_server_mode(call.cl, call.env, nullptr, "");
}

Status run_client(ModeCall& call) {
  if (call.tool == nullptr) return run_qperf_client(call);
  return cxi::run_tool_client(*call.tool, call.cl, call.info, call.env,
                              call.mode == Mode::kLoopback);
}

// The words after the subcommand's own.
std::vector<std::string> after_word(const ModeCall& call) {
  return std::vector<std::string>(call.args.begin() + 1, call.args.end());
}

Status run_report(ModeCall& call) { return report_main(after_word(call)); }
Status run_compare(ModeCall& call) { return compare_main(after_word(call)); }

Status run_matrix(ModeCall& call) { return cluster::run_matrix(call.info.argv, call.cl, call.env); }

Status run_list_fabrics(ModeCall&) { return list_fabrics(stdout); }

Status run_help(ModeCall& call) {
  if (call.tool != nullptr) {
    std::fputs(cxi::tool_help(*call.tool).c_str(), stdout);
    return Status::success();
  }
  auto text = help_text(call.cl.help_topic, all_tests(), mode_synopsis());
  if (!text.ok()) return text.status();
  std::fputs(text->c_str(), stdout);
  return Status::success();
}

Status run_version(ModeCall& call) {
  if (call.tool != nullptr) {
    std::printf("%s version: %s (fabperf)\n", call.tool->name, FABPERF_VERSION);
  } else {
    std::printf("fabperf %s\n", FABPERF_VERSION);
  }
  return Status::success();
}

Status run_heatsink(ModeCall& call) {
  return cxi::run_heatsink_check(*call.tool, call.cl, *call.env.tests);
}

Status run_stat(ModeCall& call) { return cxi::run_stat(*call.tool, call.cl); }

// A server's session process: the same program, in a mode no person types.
Status run_session_child(ModeCall& call) {
  register_session_entry();
  return session_child_main(call.args);
}

// "did you mean" for a word near a subcommand's, added to the usage error it led to: taken for
// a server's name, it parsed but ran nothing.
Status with_subcommand_hint(const Status& error, const std::string& word) {
  if (word.empty() || word[0] == '-') return error;
  std::vector<std::string> words;
  for (const ModeRow& row : mode_table()) {
    if (row.subcommand) words.push_back(row.name);
  }
  std::string guess = nearest(word, words);
  if (guess.empty()) return error;
  return Status(error.code(), error.message() + "\n(" + word + " is taken for a server name: " +
                                  "did you mean fabperf " + guess + "?)");
}

// fabperf's grammar: a subcommand's word first, else options, host and tests.
Status resolve_qperf(ModeCall& call) {
  for (const ModeRow& row : mode_table()) {
    if (row.subcommand && !call.args.empty() && call.args[0] == row.name) {
      call.mode = row.mode;
      return Status::success();
    }
  }
  auto parsed = parse_command_line(call.args, all_tests().names());
  if (!parsed.ok()) {
    return with_subcommand_hint(Status::usage(parsed.status().message()),
                                call.args.empty() ? "" : call.args[0]);
  }
  auto resolved = resolve_invocation(std::move(*parsed));
  if (!resolved.ok()) return resolved.status();
  call.cl = std::move(*resolved);
  const ProgramOptions& p = call.cl.program;
  if (p.help) {
    call.mode = Mode::kHelp;
  } else if (p.version) {
    call.mode = Mode::kVersion;
  } else if (p.list_fabrics) {
    call.mode = Mode::kListFabrics;
  } else if (cluster::is_matrix_command(call.cl)) {
    call.mode = Mode::kMatrix;  // every rank of an mpirun/srun job
  } else if (call.cl.host.empty() && !p.loopback) {
    call.mode = Mode::kServe;
  } else if (call.cl.tests.empty()) {
    return with_subcommand_hint(Status::usage("must specify a test type; try: fabperf --help"),
                                call.cl.host);
  } else {
    call.mode = p.loopback ? Mode::kLoopback : Mode::kClient;
    return plan_invocation(call.cl, all_tests());
  }
  return Status::success();
}

// A fab_* tool's grammar: the tool's kind decides the mode, a server named or not.
Status resolve_tool(ModeCall& call) {
  const cxi::Tool& tool = *call.tool;
  const bool pair = tool.kind == cxi::ToolKind::kLatency || tool.kind == cxi::ToolKind::kBandwidth;
  auto parsed = parse_tool_command_line(call.args, tool.bit, tool.name, pair);
  if (!parsed.ok()) return Status::usage(parsed.status().message());
  const ProgramOptions& p = parsed->program;
  if (p.help) {
    call.mode = Mode::kHelp;
  } else if (p.version) {
    call.mode = Mode::kVersion;
  } else if (pair) {
    call.mode = parsed->host.empty() ? Mode::kServe : Mode::kClient;
  } else {
    call.mode = tool.kind == cxi::ToolKind::kLoopback   ? Mode::kLoopback
                : tool.kind == cxi::ToolKind::kHeatsink ? Mode::kHeatsink
                                                        : Mode::kStat;
  }
  // The tool's defaults are in force for the modes that run its test (a server takes its
  // client's); a measuring mode settles the GPU type its buffers' indexes name.
  const bool runs =
      call.mode == Mode::kClient || call.mode == Mode::kLoopback || call.mode == Mode::kHeatsink;
  auto resolved =
      cxi::resolve_tool_invocation(tool, std::move(*parsed), mode_row(call.mode).measures, runs);
  if (!resolved.ok()) return resolved.status();
  call.cl = std::move(*resolved);
  return Status::success();
}

}  // namespace

const std::vector<ModeRow>& mode_table() {
  static const std::vector<ModeRow> rows = {
      {Mode::kServe, "serve", false, true, "fabperf", run_serve},
      {Mode::kClient, "client", false, true, "fabperf SERVERNODE [OPTIONS] TESTS", run_client},
      {Mode::kLoopback, "loopback", false, true, "fabperf --loopback [OPTIONS] TESTS", run_client},
      {Mode::kReport, "report", true, false, "fabperf report RUN.json [MORE.json ...] -o FILE.html",
       run_report},
      {Mode::kCompare, "compare", true, false,
       "fabperf compare A.json B.json [MORE.json ...] [--threshold PCT]", run_compare},
      {Mode::kMatrix, "matrix", false, true, "mpirun -np N fabperf --matrix [OPTIONS] TESTS",
       run_matrix},
      {Mode::kListFabrics, "list-fabrics", false, true, "fabperf --list-fabrics", run_list_fabrics},
      {Mode::kHelp, "help", false, false, "fabperf --help [TOPIC]", run_help},
      {Mode::kVersion, "version", false, false, "fabperf --version", run_version},
      // The fab_* tools' own: their synopsis is each tool's --help.
      {Mode::kHeatsink, "heatsink", false, true, nullptr, run_heatsink},
      {Mode::kStat, "stat", false, true, nullptr, run_stat},
      // Hidden: the server starts it (session/child_main.h); no person types it.
      {Mode::kSessionChild, "session-child", false, false, nullptr, run_session_child},
  };
  return rows;
}

const ModeRow& mode_row(Mode mode) {
  for (const ModeRow& row : mode_table()) {
    if (row.mode == mode) return row;
  }
  return mode_table().front();  // unreachable: every Mode has a row (mode_table_test.cc)
}

std::vector<std::string> mode_synopsis() {
  std::vector<std::string> lines;
  for (const ModeRow& row : mode_table()) {
    if (row.synopsis != nullptr) lines.push_back(row.synopsis);
  }
  return lines;
}

Status resolve_mode(ModeCall& call) {
  if (is_session_child_args(call.args)) {
    call.mode = Mode::kSessionChild;
    return Status::success();
  }
  // fab_write_lat and its siblings are this program under other names: their own dialect.
  call.tool = cxi::find_tool(call.program);
  if (call.tool == nullptr) return resolve_qperf(call);
  call.dialect = Dialect::kCxi;
  return resolve_tool(call);
}

void begin_measuring(ModeCall& call) {
  start_signal_thread();
  call.info.started = iso8601_now();
  call.info.argv.push_back(call.program);
  call.info.argv.insert(call.info.argv.end(), call.args.begin(), call.args.end());
  call.info.client = node_info();
  call.env = SessionEnv{&all_tests(), session_process_runner()};
  call.env.qperf = qperf_wire::hooks();  // stock qperf peers on the same port and behind the client
  if (call.tool != nullptr) cxi::note_tool_options(*call.tool, call.cl);
}

}  // namespace fabperf
