// Unit-test support: a process's threads and what each one's descriptor table holds, read from
// /proc/self/task (a thread that left the process's table shows its own there).
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>

namespace fabperf {

inline std::set<pid_t> process_threads() {
  std::set<pid_t> out;
  DIR* dir = opendir("/proc/self/task");
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') out.insert(static_cast<pid_t>(std::atoi(e->d_name)));
  }
  closedir(dir);
  return out;
}

// The one thread in `after` and not in `before`; -1 unless there is exactly one.
inline pid_t new_thread(const std::set<pid_t>& before, const std::set<pid_t>& after) {
  pid_t found = -1;
  for (pid_t t : after) {
    if (before.count(t) != 0) continue;
    if (found != -1) return -1;
    found = t;
  }
  return found;
}

inline bool open_in_thread(pid_t tid, int fd) {
  std::string path = "/proc/self/task/" + std::to_string(tid) + "/fd/" + std::to_string(fd);
  return access(path.c_str(), F_OK) == 0;
}

}  // namespace fabperf
