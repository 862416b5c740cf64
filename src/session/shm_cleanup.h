// Removing the shared-memory files a dead process's libfabric shm endpoints left behind.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace fabperf {

// libfabric 1.17's shm provider names each endpoint's region after its process:
// shm_open("PID:UID:INDEX") (PID and UID of the process, INDEX its endpoint count), 16 MiB
// each, unlinked only by fi_close; a killed process leaves them. True for such a name of `pid`.
bool is_shm_region_of(const std::string& name, pid_t pid, uid_t uid);

// Removes from `dir` the regions of `pid` (by name) that `uid` owns (by the file's owner), and
// returns their names. Call it while the process is an unreaped zombie, so that its pid, and
// thus the names, cannot belong to anyone else yet.
std::vector<std::string> remove_shm_files_of(pid_t pid, uid_t uid,
                                             const std::string& dir = "/dev/shm");

}  // namespace fabperf
