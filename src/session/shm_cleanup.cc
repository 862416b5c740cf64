// Removing the shm provider's files of a dead session child (libfabric 1.17 naming).
#include "session/shm_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>

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

}  // namespace fabperf
