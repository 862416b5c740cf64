// The child side of a session child: what `fabperf --fabperf-session-child` does. It confines
// itself (limits, privilege drop), then runs the measurement through the entry the app
// registered, which knows the tests; this module knows none.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf {

// The child's channel back to its parent for what the parent should log and account for.
class ResultSink {
 public:
  explicit ResultSink(int link_fd) : fd_(link_fd) {}
  // The child's side stats, sent at once (a child killed later has still delivered them).
  Status send(const nlohmann::json& result);
  // The child's own account of its failure.
  Status fail(const Status& status);
  // Its client owes heartbeats from now on: the parent ends this process at the client's
  // silence (SessionChild, ChildOptions::peer_silence_s).
  Status watch_peer();

 private:
  friend Status session_child_main(const std::vector<std::string>& args);
  Status write(const nlohmann::json& message);
  int fd_;
};

// Runs one measurement on the inherited control connection. `request` is ChildRequest's JSON
// (test, params, timeout_s, limits). Returns the child's exit code, 0 when the run succeeded:
// a child process's own exit status, read by its parent (SessionChild), not a mode's Status.
using SessionChildEntry =
    std::function<int(int control_fd, const nlohmann::json& request, ResultSink& sink)>;

// The app registers its entry before dispatching to session_child_main.
void set_session_child_entry(SessionChildEntry entry);

// True when args (argv without argv[0]) ask for the hidden child mode.
bool is_session_child_args(const std::vector<std::string>& args);

// The child mode: reads the request from its link, applies the limits, drops privileges, runs
// the entry, and ends the process with the entry's exit code. Returns only when this process is
// not a session child at all (started from a shell): a usage error.
Status session_child_main(const std::vector<std::string>& args);

}  // namespace fabperf
