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

// The regions a peer process left when it was killed (a SIGKILLed shm client's 16 MiB each,
// review N11): once `pid` is gone or a zombie (waited for up to `wait_s`), its regions, of
// whichever uid the name says and the file's owner confirms, that were last changed before
// its end was seen (a process that took over the pid since is never touched). Returns their
// names; none while the process lives.
std::vector<std::string> remove_shm_files_of_dead(pid_t pid, double wait_s,
                                                  const std::string& dir = "/dev/shm",
                                                  const std::string& proc_root = "/proc");

}  // namespace fabperf
