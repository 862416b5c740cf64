// conf's node description and the misc registry rows.
#include "engine/misc_tests.h"

#include <sys/utsname.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

namespace fabperf {

namespace {

Status no_role(TestContext&) { return Status::success(); }

// "2 Cores: Intel Xeon Processor 2.3GHz", as qperf shortens /proc/cpuinfo's model name.
std::string cpu_description() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model, mhz;
  while (std::getline(in, line) && (model.empty() || mhz.empty())) {
    if (model.empty() && line.rfind("model name", 0) == 0) model = line.substr(line.find(':') + 1);
    if (mhz.empty() && line.rfind("cpu MHz", 0) == 0) mhz = line.substr(line.find(':') + 1);
  }
  for (const char* noise : {"(R)", "(TM)", "(tm)", " CPU", " @"}) {
    for (size_t at; (at = model.find(noise)) != std::string::npos;) {
      model.erase(at, std::string(noise).size());
    }
  }
  std::string squeezed;
  for (char c : model) {
    if (c == ' ' && (squeezed.empty() || squeezed.back() == ' ')) continue;
    squeezed += c;
  }
  while (!squeezed.empty() && squeezed.back() == ' ') squeezed.pop_back();
  // Like qperf, the clock rate closes the line when the model name does not already say it.
  if (!mhz.empty() && squeezed.find("Hz") == std::string::npos) {
    char ghz[32];
    snprintf(ghz, sizeof ghz, " %.1fGHz", std::atof(mhz.c_str()) / 1000.0);
    squeezed += ghz;
  }
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  std::string count = cores == 1 ? "1 Core" : std::to_string(cores) + " Cores";
  return squeezed.empty() ? count : count + ": " + squeezed;
}

}  // namespace

nlohmann::json node_info() {
  utsname u{};
  uname(&u);
  return {{"node", u.nodename},
          {"cpu", cpu_description()},
          {"os", std::string(u.sysname) + " " + u.release},
          {"version", FABPERF_VERSION}};
}

const std::vector<TestSpec>& misc_tests() {
  static const std::vector<TestSpec> tests = [] {
    std::vector<TestSpec> out = {
        {"conf",
         TransportFamily::kNone,
         TestKind::kMisc,
         "none",
         "Show configuration",
         {},
         0,
         no_role,
         no_role,
         "Shows the node name, CPUs, OS and fabperf version of both nodes."},
        {"quit",
         TransportFamily::kNone,
         TestKind::kMisc,
         "none",
         "Cause the server to quit",
         {},
         0,
         no_role,
         no_role,
         "Causes the server to quit."},
    };
    out[0].misc = MiscAction::kConf;
    out[1].misc = MiscAction::kQuit;
    return out;
  }();
  return tests;
}

}  // namespace fabperf
