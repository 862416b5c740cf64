// End-to-end helpers of the fab_* tools' tests: the tools as a user runs them, a tool's
// server process, and a fake sysfs tree ($FABPERF_SYSFS_ROOT).
#pragma once

#include <sys/types.h>

#include <regex>
#include <string>
#include <vector>

#include "e2e_util.h"

namespace fabperf::testing {

// The fab_* link beside the fabperf binary.
std::string tool_path(const std::string& name);
RunOutput tool(const std::string& name, const std::vector<std::string>& args, double timeout = 60);
std::string slurp(const std::string& path);

// The libfabric tests are in this build (the fab_* tools run them).
bool have_rdm_tests();
#define REQUIRE_RDM() \
  if (!have_rdm_tests()) GTEST_SKIP() << "this build has no rdm_* tests"

// Lines of `text` that match `re` whole.
int count_lines(const std::string& text, const std::regex& re);

// A fab_* server process: output to a file, started when it says it listens.
class CxiServer {
 public:
  explicit CxiServer(const std::string& name, std::vector<std::string> extra = {});
  ~CxiServer();
  CxiServer(const CxiServer&) = delete;
  CxiServer& operator=(const CxiServer&) = delete;
  std::string port() const { return std::to_string(port_); }
  // Exit status once it ends on its own (-1: still running after timeout_s; 0: look once).
  int wait(double timeout_s = 20);
  std::string output() const { return slurp(out_path_); }

 private:
  int port_ = 0;
  pid_t pid_ = -1;
  int status_ = -1;
  std::string out_path_;
};

// A fake sysfs tree for fab_heatsink_check and fab_stat ($FABPERF_SYSFS_ROOT): lo has a
// PCI device, and hwmon chips are put under it or elsewhere.
class FakeSysfs {
 public:
  FakeSysfs();
  ~FakeSysfs();
  FakeSysfs(const FakeSysfs&) = delete;
  FakeSysfs& operator=(const FakeSysfs&) = delete;
  const std::string& root() const { return root_; }
  void dir(const std::string& rel);
  void file(const std::string& rel, const std::string& text);  // (its directories made)
  void link(const std::string& rel, const std::string& target);
  // A hwmon chip: name, whether it sits under lo's PCI device (or another one, or none),
  // and its sensors as (file stem, label, raw value).
  struct Sensor {
    std::string stem, label, value;
  };
  void chip(const std::string& hwmon, const std::string& name, const std::string& pci,
            const std::vector<Sensor>& sensors);

 private:
  std::string root_;
};

}  // namespace fabperf::testing
