// ServerOptions and the client's key from the command line's option values (the option table).
#pragma once

#include <string>

#include "cli/command_line.h"
#include "core/status.h"
#include "session/server.h"

namespace fabperf {

// Every server option (--max_*, --allow, --auth_key_file, -to, -lp, --bind) with its checks;
// failures are Status::Usage naming the option.
Result<ServerOptions> server_options_from(const CommandLine& cl);

// The key from --auth_key_file, "" when none is given.
Result<std::string> auth_key_from(const CommandLine& cl);

// A client talking to a remote server has no use for server options: say so, not ignore them.
Status check_no_server_options(const CommandLine& cl);

}  // namespace fabperf
