// /proc views and a bounded wait for the session child tests.
#include "session_child_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/clock.h"

namespace fabperf::testing {

std::vector<std::string> stat_fields(pid_t pid) {
  // read(2), not a stream: a process that ends between open and read fails the read with
  // ESRCH, which libstdc++'s filebuf throws as an exception.
  std::string all;
  int fd = ::open(("/proc/" + std::to_string(pid) + "/stat").c_str(), O_RDONLY | O_CLOEXEC);
  if (fd >= 0) {
    char buf[1024];
    ssize_t n;
    while ((n = ::read(fd, buf, sizeof buf)) > 0) all.append(buf, static_cast<size_t>(n));
    ::close(fd);
  }
  std::vector<std::string> fields;
  size_t close_paren = all.rfind(')');  // the command name may hold spaces and parentheses
  if (close_paren == std::string::npos || close_paren + 2 > all.size()) return fields;
  std::string field;
  for (char c : all.substr(close_paren + 2)) {
    if (c == ' ' || c == '\n') {
      fields.push_back(field);
      field.clear();
    } else {
      field.push_back(c);
    }
  }
  return fields;
}

std::string uid_line(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Uid:", 0) == 0) return line;
  }
  return "";
}

bool gone(pid_t pid) {
  auto fields = stat_fields(pid);
  return fields.empty() || fields[0] == "Z";
}

bool wait_until(const std::function<bool()>& condition, double seconds) {
  Deadline deadline = Deadline::after(seconds);
  while (!deadline.expired()) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

std::vector<pid_t> children_of(pid_t parent) {
  std::vector<pid_t> out;
  DIR* d = opendir("/proc");
  while (dirent* e = d != nullptr ? readdir(d) : nullptr) {
    pid_t pid = std::atoi(e->d_name);
    if (pid <= 0) continue;
    auto f = stat_fields(pid);
    if (f.size() > 1 && std::atoi(f[1].c_str()) == parent) out.push_back(pid);
  }
  if (d != nullptr) closedir(d);
  return out;
}

long cpu_ticks(pid_t pid) {
  auto f = stat_fields(pid);
  return f.size() > 12 ? std::atol(f[11].c_str()) + std::atol(f[12].c_str()) : 0;
}

pid_t wait_for_running_child(pid_t server, double seconds) {
  pid_t found = -1;
  wait_until(
      [&] {
        for (pid_t child : children_of(server)) {
          if (cpu_ticks(child) >= 20) found = child;
        }
        return found > 0;
      },
      seconds);
  return found;
}

}  // namespace fabperf::testing
