// What passes between a session child and its parent: the command line that enters child
// mode, the descriptors it inherits, its exit codes, and the one-line JSON messages on its link.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace fabperf {

// fabperf <kSessionChildArg> <parent pid>: the hidden mode; never typed by a person.
inline constexpr const char* kSessionChildArg = "--fabperf-session-child";

// The child's descriptors: 0-2 stdio (stdin /dev/null), these two, nothing else.
inline constexpr int kChildControlFd = 3;  // the client's control connection
inline constexpr int kChildLinkFd = 4;     // to the parent: request in, messages out

// Exit codes the parent puts into words; everything else is the test's own exit code.
inline constexpr int kChildExitSetupFailed = 70;  // bad request, limits, privilege drop
inline constexpr int kChildExitOutOfMemory = 71;  // an allocation failed (memory limit)
inline constexpr int kChildExitParentGone = 72;   // the parent died before we began
inline constexpr int kChildExitExecFailed = 127;  // as a shell says it

// The largest message line or request either side accepts.
inline constexpr size_t kMaxLinkMessage = 1 << 20;

// Messages from the child, one JSON object a line, each with "type":
//   setup   {"uid": N, "limits": {...}}        after limits and privilege drop, before the test
//   result  {"result": {...}}                  the child's side stats (ResultSink::send)
//   error   {"code": N, "message": "..."}      its own account of a failure (ResultSink::fail)
//   end     {"exit": N, "vm_hwm_kib": K}       its last words, with its peak resident memory
//   oom     {}                                 an allocation failed; it exits 71 next
//   exec_failed {"errno": N}                   written between fork and exec
//   watch_peer  {}                             its client owes heartbeats from now on: the
//                                              parent ends it at the client's silence

// VmHWM (peak resident KiB) from a /proc/PID/status file; 0 when it has none (a zombie).
uint64_t vm_hwm_kib(const std::string& status_path);

// The Status a child's error message describes (its code travels as a number).
Status status_from_child(const nlohmann::json& message);
nlohmann::json child_error_message(const Status& status);

}  // namespace fabperf
