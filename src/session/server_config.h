// ServerOptions and the client's key from the program options, where usage errors are caught.
#pragma once

#include <string>

#include "cli/command_line.h"
#include "core/status.h"
#include "session/server.h"

namespace fabperf {

// The server options as the option table gives them, nothing checked or read from the system:
// -lp, --bind, `timeout_s` (the process's -to), --max_clients, --concurrent, --queue_timeout,
// --once, --trust_fabric_addrs, --no_qperf and the limits (limits_from).
ServerOptions server_options_of(const ProgramOptions& program, double timeout_s,
                                const TestRegistry& tests);

// A server built in code rather than from a command line (fab_heatsink_check's workers,
// tests): the option table's defaults (fabperf's dialect, its -to), for the caller to adjust.
ServerOptions default_server_options(const TestRegistry& tests);

// Every server option (--max_*, --allow, --auth_key_file, -to, -lp, --bind, --concurrent,
// --queue_timeout, --once) with its checks; failures are Status::usage naming the option.
Result<ServerOptions> server_options_from(const ProgramOptions& program, double timeout_s,
                                          const TestRegistry& tests);

// The key from --auth_key_file, "" when none is given.
Result<std::string> auth_key_from(const ProgramOptions& program);

// A client talking to a remote server has no use for server options: say so, not ignore them.
Status check_no_server_options(const CommandLine& cl);

}  // namespace fabperf
