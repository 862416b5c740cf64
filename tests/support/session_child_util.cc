// /proc views and a bounded wait for the session child tests.
#include "session_child_util.h"

#include <fcntl.h>
#include <unistd.h>

#include <chrono>
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
  Deadline deadline = Deadline::After(seconds);
  while (!deadline.expired()) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return condition();
}

}  // namespace fabperf::testing
