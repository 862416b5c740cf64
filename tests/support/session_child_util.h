// What /proc says of a process, and waiting on a condition, for the session child tests.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace fabperf::testing {

// The fields of /proc/PID/stat after the command name (state, ppid, pgrp, ...); empty once
// the process is gone.
std::vector<std::string> stat_fields(pid_t pid);
// The "Uid:" line of /proc/PID/status: real, effective, saved and filesystem uid.
std::string uid_line(pid_t pid);
// Gone, or a zombie waiting for its parent.
bool gone(pid_t pid);
// Polls `condition` every 20 ms for at most `seconds`; its last value.
bool wait_until(const std::function<bool()>& condition, double seconds);
// The processes whose parent is `parent` (a server's session processes).
std::vector<pid_t> children_of(pid_t parent);
// utime + stime of a process, in clock ticks.
long cpu_ticks(pid_t pid);
// A session process of `server` that has begun its run (it exists and has used 0.2 s of
// CPU), or -1 when none did within `seconds`.
pid_t wait_for_running_child(pid_t server, double seconds);

}  // namespace fabperf::testing
