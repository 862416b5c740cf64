// Test support: a process's threads and what each one's descriptor table holds, read from
// /proc/PID/task (a thread that left the process's table shows its own there).
#pragma once

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdlib>
#include <set>
#include <string>

namespace fabperf {

// The names in a /proc directory that are numbers: thread ids, descriptors ({} when the
// directory cannot be read: the process or thread has ended).
inline std::set<int> proc_numbers(const std::string& dir_path) {
  std::set<int> out;
  DIR* dir = opendir(dir_path.c_str());
  if (dir == nullptr) return out;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') out.insert(std::atoi(e->d_name));
  }
  closedir(dir);
  return out;
}

// The threads of process `pid` (this process by default).
inline std::set<pid_t> process_threads(pid_t pid = getpid()) {
  return proc_numbers("/proc/" + std::to_string(pid) + "/task");
}

// The descriptors open in thread `tid` of process `pid`.
inline std::set<int> thread_fds(pid_t pid, pid_t tid) {
  return proc_numbers("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/fd");
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
