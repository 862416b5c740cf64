// Removing the shm provider's files of a dead session child (libfabric 1.17 naming).
#include "net/shm_cleanup.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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

// The one walk of `dir`: unlinks each region of `pid` whose owner agrees with the uid its name
// says (a plain file, never followed through a link) and that `keep_out` does not refuse.
// `only_uid`, when given, is the one uid whose names are looked at.
template <typename Refuse>
std::vector<std::string> remove_regions(pid_t pid, const uid_t* only_uid, const std::string& dir,
                                        Refuse keep_out) {
  std::vector<std::string> removed;
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
    const unsigned long named = std::stoul(uid_text);
    if (named > static_cast<unsigned long>(static_cast<uid_t>(-1))) continue;
    const uid_t uid = static_cast<uid_t>(named);
    if (only_uid != nullptr && uid != *only_uid) continue;
    if (!is_shm_region_of(name, pid, uid)) continue;
    struct stat st {};
    if (fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_uid != uid || keep_out(st)) continue;
    if (unlinkat(dir_fd, name.c_str(), 0) == 0) removed.push_back(name);
  }
  closedir(d);
  return removed;
}

}  // namespace

bool is_shm_region_of(const std::string& name, pid_t pid, uid_t uid) {
  std::string prefix = std::to_string(pid) + ":" + std::to_string(uid) + ":";
  return name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
         all_digits(name.substr(prefix.size()));
}

std::vector<std::string> remove_shm_files_of(pid_t pid, uid_t uid, const std::string& dir) {
  return remove_regions(pid, &uid, dir, [](const struct stat&) { return false; });
}

std::vector<std::string> remove_shm_files_of_dead(pid_t pid, double wait_s, const std::string& dir,
                                                  const std::string& proc_root) {
  Deadline deadline = Deadline::after(wait_s);
  for (;;) {
    char state = process_state(pid, proc_root);
    if (state == 0 || state == 'Z' || state == 'X') break;
    if (deadline.expired()) return {};
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  timespec ended{};
  clock_gettime(CLOCK_REALTIME, &ended);
  // A region changed after the end was seen belongs to a process that took over the pid.
  return remove_regions(pid, nullptr, dir, [&ended](const struct stat& st) {
    return st.st_ctim.tv_sec > ended.tv_sec ||
           (st.st_ctim.tv_sec == ended.tv_sec && st.st_ctim.tv_nsec > ended.tv_nsec);
  });
}

}  // namespace fabperf
