// What confines a session child: resource limits from the admitted needs, and the unprivileged
// user it becomes when the server is root. The parent computes them; the child applies them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"

namespace fabperf {

// Zero means "no limit" (or "unchanged" for open_files); run_as "" means "stay who we are".
struct ChildLimits {
  uint64_t memory_bytes = 0;  // RLIMIT_DATA: the child's private writable memory
  uint64_t open_files = 0;    // RLIMIT_NOFILE
  uint64_t cpu_seconds = 0;   // RLIMIT_CPU: SIGXCPU there, SIGKILL a second later
  std::string run_as;         // user to become before opening a provider (only when root)
  nlohmann::json to_json() const;
  static Result<ChildLimits> from_json(const nlohmann::json& j);
};

// Memory a fabric session child needs besides its buffers: the program, libfabric and its
// providers' own queues and threads (docs/security.md, "Each fabric run in a process of its
// own").
inline constexpr uint64_t kChildBaseMemory = uint64_t{256} << 20;
// Descriptors a fabric session child may hold: providers open sockets, eventfds, epoll sets.
inline constexpr uint64_t kChildOpenFiles = 256;

// The limits for a session admitted with `admitted_memory` bytes of buffers that may last
// `run_bound_s` seconds of wall time (CPU time allows for a progress thread beside the test).
ChildLimits child_limits_for(uint64_t admitted_memory, double run_bound_s,
                             const std::string& run_as);

// False in an AddressSanitizer build: ASan reserves terabytes of address space and its shadow
// memory counts against RLIMIT_DATA, so the child runs without a memory limit there.
bool memory_limit_supported();
inline constexpr const char* kMemoryLimitSkipped =
    "skipped: this is an AddressSanitizer build, whose shadow memory no memory limit allows";

// Child side. Applies the limits (soft = hard, so the child cannot raise them again) and
// describes what it did: {"memory": "RLIMIT_DATA 600 MiB" or why skipped, ...}.
Result<nlohmann::json> apply_child_limits(const ChildLimits& limits);

struct UserIds {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
};
Result<UserIds> lookup_user(const std::string& user);

// Child side. When root and `user` is not empty: setgroups, setgid, setuid, in that order, then
// checks that neither the uid nor the gid can go back to root. Not root: `user` must be empty
// or name the current user. Returns the uid the child now runs as.
Result<uid_t> drop_privileges(const std::string& user);

// For the server's option layer: what --run_as defaults to ("nobody" when root, else "").
std::string default_run_as();
// --run_as USER is usable here: the user exists, and when the server is not root, it is the
// server's own user (only root can become someone else).
Status check_run_as(const std::string& user);

// The user a root server runs a session as when --run_as was not given: the user of the
// client's processes on this host (`pids`, the control connection's other end), who can reach
// nothing through the session that it cannot reach itself, and whose shm regions (mode 600)
// the session must open. Failed when there are none, they disagree, or the uid has no name:
// the caller keeps nobody.
Result<std::string> client_user(const std::vector<pid_t>& pids);

// The uid a child given `run_as` will run as (for finding the files it leaves).
Result<uid_t> child_uid_for(const std::string& run_as);

}  // namespace fabperf
