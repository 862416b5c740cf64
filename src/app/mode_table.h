// The program's modes, one row each, after ninja's kTools[]: a row drives dispatch, the
// --help synopsis and "did you mean" for a mistyped subcommand.
#pragma once

#include <string>
#include <vector>

#include "cli/invocation.h"
#include "core/status.h"
#include "cxi/cxi_tools.h"
#include "report/reporter.h"
#include "session/modes.h"

namespace fabperf {

enum class Mode {
  kServe,
  kClient,
  kLoopback,
  kReport,
  kCompare,
  kMatrix,
  kListFabrics,
  kHelp,
  kVersion,
  kHeatsink,
  kStat,
  kSessionChild,
};

// One call of a mode: the command line as typed and as its dialect's grammar parsed and
// resolved it (once, here), and what the measuring modes run with.
struct ModeCall {
  std::string program;            // argv[0]'s basename
  std::vector<std::string> args;  // argv[1..]
  Dialect dialect = Dialect::kQperf;
  const cxi::Tool* tool = nullptr;  // the fab_* tool argv[0] names (kCxi), else null
  Mode mode = Mode::kServe;
  Invocation cl;   // resolved once; empty for the modes that read their own words
  RunInfo info;    // a measuring mode's run: started, argv, this node
  SessionEnv env;  // a measuring mode's tests, isolation and qperf hooks
};

struct ModeRow {
  Mode mode;
  const char* name;      // in messages; a subcommand's word ("report")
  bool subcommand;       // typed as fabperf's first word, before any option
  bool measures;         // runs under the signal thread, with ModeCall's info and env set up
  const char* synopsis;  // its usage line in --help and the man page (nullptr: not listed)
  Status (*run)(ModeCall& call);
};

const std::vector<ModeRow>& mode_table();
const ModeRow& mode_row(Mode mode);

// Every listed row's usage line, in table order.
std::vector<std::string> mode_synopsis();

// Parses call.args with the grammar argv[0] selects, settles the mode and resolves the
// Invocation every mode reads: call.dialect, call.tool, call.mode and call.cl (a fab_* tool's
// defaults in force). A usage error names what was wrong, with "did you mean" for a mistyped
// subcommand.
Status resolve_mode(ModeCall& call);

// What a measuring mode needs before it runs: the signal thread (before any other thread
// exists, so every thread inherits the blocked SIGINT/SIGTERM), call.info and call.env, and
// the fab_* tools' note on options that mean nothing here.
void begin_measuring(ModeCall& call);

}  // namespace fabperf
