// RunOptions on the wire and in reports: every run option by its canonical name.
#pragma once

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

// {"msg_size": 65536, "time": 2.0, ...}: every RunOptions field, typed as the table says.
nlohmann::json to_json(const RunOptions& options);

// Server side: a client's options, each name, type, range and choice checked against the
// option table; names the client did not send take their defaults (older clients keep
// working). An unknown name is refused, naming it.
Result<RunOptions> run_options_from_json(const nlohmann::json& j);

// Both sides of one run.
struct RunParams {
  RunOptions local;   // this process's side
  RunOptions remote;  // the server's side, as the client asks for it
};

}  // namespace fabperf
