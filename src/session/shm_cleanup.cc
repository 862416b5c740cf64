// Removing the shm provider's files of a dead session child (libfabric 1.17 naming).
#include "session/shm_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <time.h>

#include <cctype>
#include <chrono>
#include <thread>

#include "core/clock.h"
#include "net/peer_process.h"

namespace fabperf {

namespace {

bool all_digits(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

}  // namespace

bool is_shm_region_of(const std::string& name, pid_t pid, uid_t uid) {
  std::string prefix = std::to_string(pid) + ":" + std::to_string(uid) + ":";
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         all_digits(name.substr(prefix.size()));
}

std::vector<std::string> remove_shm_files_of(pid_t pid, uid_t uid, const std::string& dir) {
  std::vector<std::string> removed;
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return removed;
  DIR* d = fdopendir(dir_fd);
  if (d == nullptr) {
    close(dir_fd);
    return removed;
  }
  while (dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (!is_shm_region_of(name, pid, uid)) continue;
    // The name says whose; the owner must agree (a plain file, never followed through a link).
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != uid) continue;
    if (unlinkat(dir_fd, name.c_str(), 0) == 0) removed.push_back(name);
  }
  closedir(d);
  return removed;
}

std::vector<std::string> remove_shm_files_of_dead(pid_t pid, double wait_s,
                                                  const std::string& dir,
                                                  const std::string& proc_root) {
  std::vector<std::string> removed;
  Deadline deadline = Deadline::After(wait_s);
  for (;;) {
    char state = process_state(pid, proc_root);
    if (state == 0 || state == 'Z' || state == 'X') break;
    if (deadline.expired()) return removed;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  timespec ended{};
  clock_gettime(CLOCK_REALTIME, &ended);
  int dir_fd = open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd < 0) return removed;
  DIR* d = fdopendir(dir_fd);
  if (d == nullptr) {
    close(dir_fd);
    return removed;
  }
  const std::string prefix = std::to_string(pid) + ":";
  while (dirent* entry = readdir(d)) {
    std::string name = entry->d_name;
    if (name.compare(0, prefix.size(), prefix) != 0) continue;
    size_t colon = name.find(':', prefix.size());
    if (colon == std::string::npos) continue;
    std::string uid_text = name.substr(prefix.size(), colon - prefix.size());
    if (!all_digits(uid_text) || uid_text.size() > 10) continue;
    uid_t uid = static_cast<uid_t>(std::stoul(uid_text));
    if (!is_shm_region_of(name, pid, uid)) continue;
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != uid) continue;
    bool before_end = st.st_ctim.tv_sec < ended.tv_sec ||
                      (st.st_ctim.tv_sec == ended.tv_sec && st.st_ctim.tv_nsec <= ended.tv_nsec);
    if (before_end && unlinkat(dir_fd, name.c_str(), 0) == 0) removed.push_back(name);
  }
  closedir(d);
  return removed;
}

}  // namespace fabperf
