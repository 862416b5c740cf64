// The fab_* tools' end-to-end helpers.
#include "e2e_cxi_util.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

namespace fabperf::testing {

std::string tool_path(const std::string& name) { return beside_fabperf(name); }

RunOutput tool(const std::string& name, const std::vector<std::string>& args, double timeout) {
  return run(args, timeout, tool_path(name));
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool have_rdm_tests() {
  static const bool have = contains(run({"--help", "tests"}, 30).out, "rdm_write_lat");
  return have;
}

int count_lines(const std::string& text, const std::regex& re) {
  int n = 0;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) n += std::regex_match(line, re) ? 1 : 0;
  return n;
}

CxiServer::CxiServer(const std::string& name, std::vector<std::string> extra) {
  port_ = free_port();
  out_path_ = "/tmp/fabperf_cxi_server_" + std::to_string(getpid()) + "_" + std::to_string(port_);
  std::vector<std::string> args = {"-p", std::to_string(port_)};
  args.insert(args.end(), extra.begin(), extra.end());
  // These tests run shm between a root client and this server.
  for (const std::string& a : keep_root_sessions("--run-as")) args.push_back(a);
  std::string program = tool_path(name);
  int fd = open(out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  pid_ = spawn(program, args, fd, fd);
  close(fd);
  // Up when it says so; an ASan build on a loaded machine may take seconds. A server that
  // exits (its port taken meanwhile) ends the wait, and the test reads its words.
  for (int i = 0; i < 6000 && !contains(slurp(out_path_), "for client to connect"); ++i) {
    if (wait(0) >= 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

CxiServer::~CxiServer() {
  if (status_ < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  unlink(out_path_.c_str());
}

int CxiServer::wait(double timeout_s) {
  for (int i = 0; status_ < 0; ++i) {  // looks at least once, so wait(0) asks without waiting
    int st = 0;
    if (waitpid(pid_, &st, WNOHANG) == pid_) {
      status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128;
    } else if (i >= timeout_s * 50) {
      break;
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  return status_;
}

FakeSysfs::FakeSysfs() {
  static int count = 0;
  root_ = "/tmp/fabperf_sysfs_" + std::to_string(getpid()) + "_" + std::to_string(++count);
  dir("devices/pci0000:00/0000:00:03.0");
  dir("devices/pci0000:00/0000:00:04.0");
  dir("class/net/lo");
  dir("class/hwmon");
  link("class/net/lo/device", "../../../devices/pci0000:00/0000:00:03.0");
}

FakeSysfs::~FakeSysfs() { std::system(("rm -rf '" + root_ + "'").c_str()); }

void FakeSysfs::dir(const std::string& rel) {
  std::system(("mkdir -p '" + root_ + "/" + rel + "'").c_str());
}

void FakeSysfs::file(const std::string& rel, const std::string& text) {
  if (size_t slash = rel.rfind('/'); slash != std::string::npos) dir(rel.substr(0, slash));
  std::ofstream(root_ + "/" + rel) << text << "\n";
}

void FakeSysfs::link(const std::string& rel, const std::string& target) {
  ASSERT_EQ(symlink(target.c_str(), (root_ + "/" + rel).c_str()), 0) << rel;
}

void FakeSysfs::chip(const std::string& hwmon, const std::string& name, const std::string& pci,
                     const std::vector<Sensor>& sensors) {
  dir("class/hwmon/" + hwmon);
  file("class/hwmon/" + hwmon + "/name", name);
  if (!pci.empty()) link("class/hwmon/" + hwmon + "/device", "../../../devices/pci0000:00/" + pci);
  for (const auto& [stem, label, value] : sensors) {
    file("class/hwmon/" + hwmon + "/" + stem + "_input", value);
    if (!label.empty()) file("class/hwmon/" + hwmon + "/" + stem + "_label", label);
  }
}

}  // namespace fabperf::testing
