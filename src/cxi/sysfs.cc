#include "cxi/sysfs.h"

#include <dirent.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <fstream>

#include "core/environment.h"

namespace fabperf::cxi {

std::string sysfs_root() {
  const std::string& root = environment().sysfs_root;  // the tests' fake trees
  return !root.empty() ? root : "/sys";
}

std::string hwmon_root() {
  const std::string& root = environment().hwmon_root;
  return !root.empty() ? root : sysfs_root() + "/class/hwmon";
}

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

std::string link_name(const std::string& path) {
  char buf[PATH_MAX];
  ssize_t n = readlink(path.c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string target(buf, static_cast<size_t>(n));
  while (!target.empty() && target.back() == '/') target.pop_back();
  return target.substr(target.find_last_of('/') + 1);
}

std::string real_path(const std::string& path) {
  char buf[PATH_MAX];
  return realpath(path.c_str(), buf) != nullptr ? std::string(buf) : std::string();
}

std::vector<std::string> list_dir(const std::string& dir) {
  std::vector<std::string> out;
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return out;
  while (dirent* e = readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") out.push_back(n);
  }
  closedir(d);
  std::sort(out.begin(), out.end());
  return out;
}

std::string device_dir(const std::string& name, const std::string& pci) {
  const std::string root = sysfs_root();
  for (const std::string& p :
       {root + "/class/cxi/" + name + "/device", root + "/class/net/" + name + "/device"}) {
    if (name.empty()) break;
    if (std::string r = real_path(p); !r.empty()) return r;
  }
  if (!pci.empty()) return real_path(root + "/bus/pci/devices/" + pci);
  return "";
}

}  // namespace fabperf::cxi
