// fab_heatsink_check: P worker processes issue small RDMA writes (each over its own loopback
// pair) for -D seconds; every -i seconds a row shows the summed rate and every hwmon
// temperature and power sensor; PASS/FAIL lines against the limits given. Exit 0 pass,
// 1 error, 2 a target failed (the original's codes).
#include <dirent.h>
#include <poll.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "core/signals.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_main.h"
#include "cxi/cxi_plan.h"
#include "session/client.h"
#include "session/server.h"

namespace fabperf::cxi {

namespace {

struct Sensor {
  std::string label;  // "coretemp Package id 0"
  std::string path;   // .../temp1_input
  bool power = false; // power (W) rather than temperature (deg C)
  double max_seen = -1e300;
  double read() const {
    std::ifstream in(path);
    double raw = 0;
    if (!(in >> raw)) return NAN;
    return power ? raw / 1e6 : raw / 1e3;  // microwatts, millidegrees
  }
};

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// Every temperature and power sensor of every hwmon device. lm-sensors reads the same files.
std::vector<Sensor> find_sensors() {
  const char* env = std::getenv("FABPERF_HWMON_ROOT");  // tests point this at a fake tree
  std::string root = env != nullptr ? env : "/sys/class/hwmon";
  std::vector<Sensor> out;
  DIR* dir = opendir(root.c_str());
  if (dir == nullptr) return out;
  std::vector<std::string> devices;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') devices.push_back(e->d_name);
  }
  closedir(dir);
  std::sort(devices.begin(), devices.end());
  for (const std::string& dev : devices) {
    std::string base = root + "/" + dev;
    std::string name = read_line(base + "/name");
    if (name.empty()) name = dev;
    DIR* d = opendir(base.c_str());
    if (d == nullptr) continue;
    std::vector<std::string> files;
    while (dirent* e = readdir(d)) files.push_back(e->d_name);
    closedir(d);
    std::sort(files.begin(), files.end());
    for (const std::string& f : files) {
      bool temp = f.rfind("temp", 0) == 0 && f.size() > 10 && f.substr(f.size() - 6) == "_input";
      bool power = f.rfind("power", 0) == 0 &&
                   (f.substr(f.size() - 6) == "_input" || f.substr(f.size() - 8) == "_average");
      if (!temp && !power) continue;
      std::string stem = f.substr(0, f.find('_'));
      std::string label = read_line(base + "/" + stem + "_label");
      Sensor s{name + " " + (label.empty() ? stem : label), base + "/" + f, power};
      if (!std::isnan(s.read())) out.push_back(s);
    }
  }
  return out;
}

std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma - pos);
    size_t dash = part.find('-');
    int lo = std::atoi(part.substr(0, dash).c_str());
    int hi = dash == std::string::npos ? lo : std::atoi(part.substr(dash + 1).c_str());
    for (int c = lo; c <= hi && c - lo < 4096; ++c) cpus.push_back(c);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return cpus;
}

// Hands each interval's rate to the parent through a pipe.
class RateSink : public Reporter {
 public:
  explicit RateSink(int fd) : fd_(fd) {}
  void on_result(const RunInfo&, const TestResult& r) override {
    double rate = r.ok() ? r.figures.send_Bps : -1;
    ok_ = ok_ && r.ok() && write(fd_, &rate, sizeof rate) == sizeof rate;
  }
  Status finish(const RunInfo&) override { return Status::Ok(); }
  bool ok() const { return ok_; }

 private:
  int fd_;
  bool ok_ = true;
};

// One worker: a server in this process and a client of it, one run per interval, each
// interval's rate (bytes/s) written to `fd` as a double. Never returns.
[[noreturn]] void worker(const ToolPlan& plan, const ProgramOptions& o, const TestRegistry& tests,
                         int index, int fd) {
  reset_signals_for_child();
  std::vector<int> cpus = parse_cpu_list(o.cpu_list);
  if (!cpus.empty()) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpus[static_cast<size_t>(index) % cpus.size()], &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  ServerOptions server_options;
  server_options.tests = &tests;
  server_options.bind_addr = "127.0.0.1";
  server_options.port = 0;
  server_options.log = false;
  server_options.concurrent = true;
  auto server = Server::listen(server_options);
  if (!server.ok()) {
    std::fprintf(stderr, "worker %d: %s\n", index, server.status().message().c_str());
    _exit(1);
  }
  std::thread serving([&] { (*server)->serve().IgnoreError(); });
  ClientConfig config;
  config.host = "127.0.0.1";
  config.port = (*server)->port();
  config.wait_server_s = 0;
  RunInfo info;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<RateSink>(fd));
  int code = run_plan(plan.runs, config, info, reporters);
  (*server)->stop();
  serving.join();
  _exit(code == 0 ? 0 : 1);
}

std::string verdict(bool pass) { return pass ? "PASS" : "FAIL"; }

}  // namespace

int run_heatsink_check(const Tool& tool, CommandLine& cl, const TestRegistry& tests) {
  const ProgramOptions& o = cl.program;
  const bool timed = std::any_of(cl.assignments.begin(), cl.assignments.end(), [](const Assignment& a) {
    return a.spec->field == FieldRef(&RunOptions::time);
  });
  auto planned = plan_tool(tool, cl, tests);
  if (!planned.ok()) {
    std::fprintf(stderr, "%s\n", planned.status().message().c_str());
    return 1;
  }
  const RunOptions first = planned->runs.at(0).params.local;
  const double duration = timed ? first.time : 600;
  const double interval = std::min(o.interval, duration);
  const int intervals = static_cast<int>(std::ceil(duration / interval - 1e-9));
  // One run per interval, the last one cut to what is left of the duration.
  ToolPlan plan = *planned;
  plan.runs.clear();
  for (int k = 0; k < intervals; ++k) {
    PlannedRun run = planned->runs.at(0);
    for (RunOptions* side : {&run.params.local, &run.params.remote}) {
      side->time = std::min(interval, duration - interval * k);
      side->no_msgs = 0;
    }
    plan.runs.push_back(run);
  }
  long cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
  uint64_t procs = o.procs > 0 ? o.procs : static_cast<uint64_t>(std::max(1L, cpus_online / 4));
  std::vector<Sensor> sensors = find_sensors();
  auto na = [&](bool on) { return plan.provider == "cxi" ? (on ? "Enabled" : "Disabled") : "Not Applicable"; };
  std::printf("%s    %s\n", dash_line().c_str(), tool.title);
  std::printf("Device           : %s (%s)\n", plan.device.c_str(), plan.provider.c_str());
  std::printf("Service ID       : %s\n", plan.provider == "cxi" ? std::to_string(first.svc_id).c_str() : "Not Applicable");
  std::printf("Duration         : %g seconds\n", duration);
  std::printf("Interval         : %g seconds\n", interval);
  std::printf("Write Size       : %llu\n", static_cast<unsigned long long>(first.msg_size));
  std::printf("List Size        : %llu\n", static_cast<unsigned long long>(first.tx_depth));
  std::printf("Processes        : %llu\n", static_cast<unsigned long long>(procs));
  std::printf("HRP              : %s\n", na(!first.no_hrp));
  std::printf("IDC              : %s\n", na(!first.no_idc));
  std::printf("PLE              : %s\n", na(!first.no_ple));
  std::printf("%s", dash_line().c_str());
  if (sensors.empty()) {
    std::printf("No temperature or power sensors found (no hwmon devices): reporting rates only\n");
  }
  std::string header = "  Time[s]  Rate[GB/s]";
  std::vector<int> widths;
  for (const Sensor& s : sensors) {
    std::string col = s.label + (s.power ? "[W]" : "[C]");
    widths.push_back(static_cast<int>(std::max<size_t>(10, col.size())) + 2);
    char buf[256];
    std::snprintf(buf, sizeof buf, "%*s", widths.back(), col.c_str());
    header += buf;
  }
  std::printf("%s\n", header.c_str());
  std::fflush(stdout);

  std::vector<pid_t> pids;
  std::vector<int> fds;
  for (uint64_t i = 0; i < procs; ++i) {
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      worker(plan, o, tests, static_cast<int>(i), p[1]);
    }
    close(p[1]);
    pids.push_back(pid);
    fds.push_back(p[0]);
  }
  bool error = false;
  double elapsed = 0, rate_sum = 0;
  int rows = 0;
  for (int k = 0; k < intervals && !error && !stop_flag().load(); ++k) {
    double rate = 0;
    for (int fd : fds) {
      pollfd pfd{fd, POLLIN, 0};
      double r = 0;
      if (poll(&pfd, 1, static_cast<int>((interval + 60) * 1000)) <= 0 ||
          read(fd, &r, sizeof r) != sizeof r || r < 0) {
        error = true;
        break;
      }
      rate += r;
    }
    if (error) break;
    elapsed += std::min(interval, duration - interval * k);
    rate_sum += rate / 1e9;
    ++rows;
    std::printf("%9.0f  %10.2f", elapsed, rate / 1e9);
    for (size_t s = 0; s < sensors.size(); ++s) {
      double v = sensors[s].read();
      sensors[s].max_seen = std::max(sensors[s].max_seen, v);
      std::printf("%*.1f", widths[s], v);
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  for (int fd : fds) close(fd);
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) error = true;
  }
  std::printf("%s", dash_line().c_str());
  bool failed = false;
  for (const Sensor& s : sensors) {
    if (s.power && o.max_power <= 0) continue;
    double limit = s.power ? o.max_power : o.max_temp;
    const char* unit = s.power ? "W" : "\xC2\xB0" "C";
    bool pass = s.max_seen < limit;
    failed |= !pass;
    std::printf("%s under %g %s:  %.0f %s  %s\n", s.label.c_str(), limit, unit, s.max_seen, unit,
                verdict(pass).c_str());
  }
  double average = rows > 0 ? rate_sum / rows : 0;
  if (o.min_rate > 0) {
    bool pass = average > o.min_rate;
    failed |= !pass;
    std::printf("Average BW over %g GB/s:  %.2f GB/s  %s\n", o.min_rate, average, verdict(pass).c_str());
  } else {
    std::printf("Average BW:  %.2f GB/s\n", average);
  }
  if (error) {
    std::fprintf(stderr, "fab_heatsink_check: a worker failed; see above\n");
    return 1;
  }
  return failed ? 2 : 0;
}

}  // namespace fabperf::cxi
