// fab_heatsink_check: P worker processes issue small RDMA writes (each over its own loopback
// pair) without a break for -D seconds, while the parent reads the chosen NIC's own hwmon
// sensors every -i seconds: a row with the rate and the readings, an early stop when a
// temperature reaches its abort limit, then PASS/FAIL lines against the originals' per-sensor
// limits and bandwidth target. Exit 0 pass, 1 error (no sensor of the device, a worker
// failed), 2 a target failed (the original's codes).
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <new>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/signals.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_main.h"
#include "cxi/cxi_plan.h"
#include "cxi/sysfs.h"
#include "fabric/fabric_list.h"
#include "report/reporter.h"
#include "session/client.h"
#include "session/server.h"

namespace fabperf::cxi {

namespace {

constexpr const char* kDegC = "\xC2\xB0" "C";  // the originals print "°C" in UTF-8
constexpr int kCriteriaW = 50;                   // BRZ_CRIT_W
constexpr int kResultW = 13;                     // RESULT_W
constexpr double kTargetGBps = 19;               // TARGET_BW, on cxi
constexpr int kNotAvailable = -41;               // QSFP_INT_NA / OSFP_INT_NA: no module

// The sensors cxi_heatsink_check knows by their hwmon label (the prefix it compares), with
// its column, limits and place in the row (powers first, then temperatures).
struct KnownSensor {
  const char* label;   // "Cassini 0 Temperature"
  const char* column;  // "ASIC_0"
  bool power;
  int fail, abort_at;  // fail at or above `fail`, stop the run at or above `abort_at` (deg C)
  int width;           // the column's width
  int order;
  bool may_be_absent;  // -41 means "no module" (QSFP/OSFP internal)
};

const KnownSensor kKnown[] = {
    {"Cassini 0 Temperature", "ASIC_0", false, 85, 90, 10, 10, false},
    {"Cassini 1 Temperature", "ASIC_1", false, 85, 90, 10, 11, false},
    {"3.3V QSFP VR Temperature", "QSFP_VR", false, 125, 130, 11, 12, false},
    {"QSFP Internal Temperature", "QSFP_INT", false, 70, 75, 12, 13, true},
    {"OSFP Internal Temperature", "OSFP_INT", false, 70, 75, 12, 14, true},
    {"0.85V S0 Power", "VDD", true, 0, 0, 6, 0, false},
    {"0.765V Power", "VDD", true, 0, 0, 6, 0, false},
    {"0.9V S0 Power", "AVDD", true, 0, 0, 7, 1, false},
    {"VDDA 0.75V Power", "AVDD", true, 0, 0, 7, 1, false},
    {"TRVDD 0.9V Power", "TRVDD", true, 0, 0, 8, 2, false},
    {"3.3V QSFP Power", "QSFP", true, 0, 0, 7, 3, false},
};

struct Sensor {
  std::string name;    // the hwmon label: "Cassini 0 Temperature", or "<chip> temp2"
  std::string column;  // the header cell: "ASIC_0[°C]"
  std::string path;    // .../temp1_input
  bool power = false;
  bool known = false;
  std::string short_name;  // "ASIC_0" (known sensors)
  double fail = 0, abort_at = 0;  // 0: no limit
  bool may_be_absent = false;
  int width = 0;  // display width of the column
  int order = 100;
  int max_seen = INT32_MIN;
  bool absent_always = true;

  // Degrees C or watts, rounded; INT32_MIN when unreadable.
  int read() const {
    std::ifstream in(path);
    double raw = 0;
    if (!(in >> raw)) return INT32_MIN;
    return static_cast<int>(std::lround(power ? raw / 1e6 : raw / 1e3));  // uW, m deg C
  }
  bool absent(int v) const { return may_be_absent && v <= kNotAvailable; }
};

// Display width of UTF-8 text (the degree sign is two bytes, one column).
int display_width(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// "%*s" with a display width.
std::string pad_left(const std::string& s, int width) {
  int pad = width - display_width(s);
  return (pad > 0 ? std::string(static_cast<size_t>(pad), ' ') : "") + s;
}

// "%-*s" with a byte width, as the originals' printf pads (the degree sign counts two).
std::string pad_right_bytes(const std::string& s, int width) {
  return s.size() < static_cast<size_t>(width) ? s + std::string(width - s.size(), ' ') : s;
}

// Is this hwmon chip the device's own? Its `device` link leads to the device's sysfs
// directory, or (cxi) its name is the device's, as the original finds "cxiN" among the chips.
bool chip_of_device(const std::string& chip_dir, const std::string& chip_name,
                    const std::string& device, const std::string& dev_dir) {
  if (!dev_dir.empty() && real_path(chip_dir + "/device") == dev_dir) return true;
  if (device.rfind("cxi", 0) != 0) return false;
  size_t at = chip_name.find(device);
  if (at == std::string::npos) return false;
  size_t after = at + device.size();
  return after == chip_name.size() || !std::isdigit(static_cast<unsigned char>(chip_name[after]));
}

// The temperature and power sensors of the device's own hwmon chips.
std::vector<Sensor> find_sensors(const std::string& device, const std::string& dev_dir,
                                 const ProgramOptions& o) {
  const std::string root = hwmon_root();
  std::vector<Sensor> out;
  for (const std::string& chip : list_dir(root)) {
    std::string base = root + "/" + chip;
    std::string chip_name = read_line(base + "/name");
    if (!chip_of_device(base, chip_name, device, dev_dir)) continue;
    for (const std::string& f : list_dir(base)) {
      auto ends = [&](const char* tail) {
        std::string t = tail;
        return f.size() > t.size() && f.compare(f.size() - t.size(), t.size(), t) == 0;
      };
      bool temp = f.rfind("temp", 0) == 0 && ends("_input");
      bool power = f.rfind("power", 0) == 0 && (ends("_input") || ends("_average"));
      if (!temp && !power) continue;
      std::string stem = f.substr(0, f.find('_'));
      std::string label = read_line(base + "/" + stem + "_label");
      Sensor s;
      s.path = base + "/" + f;
      s.power = power;
      s.name = label.empty() ? (chip_name.empty() ? chip : chip_name) + " " + stem : label;
      for (const KnownSensor& k : kKnown) {
        if (k.power == power && label.rfind(k.label, 0) == 0) {
          s.known = true;
          s.short_name = k.column;
          s.name = k.label;
          s.fail = k.fail;
          s.abort_at = k.abort_at;
          s.order = k.order;
          s.width = k.width;
          s.may_be_absent = k.may_be_absent;
          break;
        }
      }
      bool duplicate = false;  // the original takes the first sensor of each kind
      for (const Sensor& other : out) duplicate |= s.known && other.short_name == s.short_name;
      if (duplicate || s.read() == INT32_MIN) continue;
      if (!s.known) {
        // Other sensors of the NIC's chip: --max-temp (abort 5 degrees above, as the
        // originals' limits) and --max-power.
        s.short_name = s.name;
        if (!power) s.fail = o.max_temp, s.abort_at = o.max_temp + 5;
        if (power) s.fail = o.max_power;
      }
      s.column = s.short_name + (power ? "[W]" : std::string("[") + kDegC + "]");
      s.width = std::max(s.width, display_width(s.column));
      out.push_back(s);
    }
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const Sensor& a, const Sensor& b) { return a.order < b.order; });
  return out;
}

// -c: "0-3,8" (the original's "Invalid CPU list" for anything else).
Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  auto bad = [&] { return Status::Usage("Invalid CPU list: " + text); };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = part.find('-');
    std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    auto digits = [](const std::string& s) {
      return !s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), ::isdigit);
    };
    if (!digits(a) || !digits(b)) return bad();
    int lo = std::atoi(a.c_str()), hi = std::atoi(b.c_str());
    if (lo > hi || hi >= CPU_SETSIZE) return bad();
    for (int c = lo; c <= hi; ++c) {
      if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (cpus.empty()) return bad();
  return cpus;
}

// What the parent and its workers share: each worker's completed writes and the parent's
// word to stop.
struct Shared {
  std::atomic<bool> stop{false};
  std::atomic<uint64_t>* ops = nullptr;  // one per worker, in the same mapping
};

// A worker's completed writes reach its parent through the engine's interval meter
// (--interval's, engine/interval.h): every `tick` seconds of the run, this reporter adds the
// writes completed in that interval to the worker's counter in shared memory.
class SharedWriteCounter : public Reporter {
 public:
  explicit SharedWriteCounter(std::atomic<uint64_t>* ops) : ops_(ops) {}
  void on_interval(const RunInfo&, const TestResult&, const IntervalRecord& r) override {
    ops_->fetch_add(r.counts.send_msgs, std::memory_order_relaxed);
  }
  void on_result(const RunInfo&, const TestResult&) override {}
  Status finish(const RunInfo&) override { return Status::Ok(); }

 private:
  std::atomic<uint64_t>* ops_;
};

// One worker: a server in this process and a client of it running one write run for the
// whole check (ended by the parent through `shared->stop`), its completions counted in
// shared memory every `tick` seconds. Never returns.
[[noreturn]] void worker(const ToolPlan& plan, const TestRegistry& tests, int index, int cpu,
                         double tick, Shared* shared) {
  reset_signals_for_child();
  if (cpu >= 0) {
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    sched_setaffinity(0, sizeof set, &set);
  }
  ServerOptions server_options;
  server_options.tests = &tests;
  server_options.bind_addr = "127.0.0.1";
  server_options.port = 0;
  server_options.log = false;
  server_options.concurrent = true;
  // The one run lasts the whole check, which may be longer than a server's default cap.
  server_options.limits.max_time =
      std::max(server_options.limits.max_time, plan.runs.at(0).params.local.time + 120);
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
  config.stop = &shared->stop;
  config.interval_s = tick;
  config.noise_warnings = false;  // every worker spins on purpose: its rows judge the rate
  RunInfo info;
  std::vector<std::unique_ptr<Reporter>> reporters;
  reporters.push_back(std::make_unique<SharedWriteCounter>(&shared->ops[index]));
  int code = run_plan(plan.runs, config, info, reporters);
  (*server)->stop();
  serving.join();
  _exit(code == 0 || (code == 130 && shared->stop.load()) ? 0 : 1);
}

// The verdict lines, in the original's "%-*s  %-*s" layout.
std::string verdict_line(const std::string& criteria, const std::string& result, bool pass) {
  return pad_right_bytes(criteria, kCriteriaW) + "  " + pad_right_bytes(result, kResultW) +
         (pass ? "PASS" : "FAIL") + "\n";
}
std::string unjudged_line(const std::string& criteria, const std::string& result) {
  return pad_right_bytes(criteria, kCriteriaW - 1) + "  " + pad_right_bytes(result, kResultW - 1) +
         "----\n";
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

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
  // -c: one worker per CPU of the list, each pinned to its CPU (-P is then ignored, as the
  // original); else -P workers (CPUs / 4), not pinned.
  std::vector<int> cpus;
  if (!o.cpu_list.empty()) {
    auto parsed = parse_cpu_list(o.cpu_list);
    if (!parsed.ok()) {
      std::fprintf(stderr, "%s\n", parsed.status().message().c_str());
      return 1;
    }
    cpus = *parsed;
  }
  long cpus_online = sysconf(_SC_NPROCESSORS_ONLN);
  const uint64_t procs = !cpus.empty() ? cpus.size()
                         : o.procs > 0 ? o.procs
                                       : static_cast<uint64_t>(std::max(1L, cpus_online / 4));

  // The device's own sensors; without one there is nothing to check (the original: "failed
  // to find cxiN", exit 1).
  std::string pci;
  for (const DomainInfo& d : list_domains(planned->provider)) {
    if (d.domain == planned->device && !d.pci.empty()) pci = d.pci;
  }
  std::string dev_dir = device_dir(planned->device, pci);
  std::vector<Sensor> sensors = find_sensors(planned->device, dev_dir, o);
  if (sensors.empty()) {
    std::fprintf(stderr,
                 "fab_heatsink_check: no temperature or power sensor of device %s: no hwmon chip "
                 "under %s is the device's own (named %s or under its sysfs device %s)\n",
                 planned->device.c_str(), hwmon_root().c_str(),
                 planned->device.rfind("cxi", 0) == 0 ? planned->device.c_str() : "cxiN",
                 dev_dir.empty() ? "(none)" : dev_dir.c_str());
    return 1;
  }
  const bool cxi = planned->provider == "cxi";
  const double target = o.min_rate > 0 ? o.min_rate : cxi ? kTargetGBps : 0;

  // One run per worker for the whole check: the parent stops it.
  ToolPlan plan = *planned;
  plan.runs.resize(1);
  for (RunOptions* side : {&plan.runs[0].params.local, &plan.runs[0].params.remote}) {
    side->time = duration + 120;  // bound only: the parent ends the run at -D
    side->no_msgs = 0;
  }

  std::string header = pad_left("Time[s]", 7) + "  " + pad_left("Rate[GB/s]", 10);
  for (const Sensor& s : sensors) header += "  " + pad_left(s.column, s.width);
  const std::string dashes(static_cast<size_t>(display_width(header)), '-');
  auto state = [&](bool on, bool applicable) -> std::string {
    if (!cxi) return "Not Applicable";
    return !on ? "Disabled" : applicable ? "Enabled" : "Disabled - Not Applicable";
  };
  std::string device = planned->device + (cxi ? "" : " (" + planned->provider + ")");
  auto line = [](const char* label, const std::string& value) {
    std::printf("%-16s: %s\n", label, value.c_str());
  };
  auto memory = [](int64_t gpu) { return gpu < 0 ? std::string("System") : "GPU " + std::to_string(gpu); };
  std::printf("%s\n    %s\n", dashes.c_str(), tool.title);
  line("Device", device);
  line("Service ID", cxi ? std::to_string(first.svc_id) : "Not Applicable");
  line("TX Mem", memory(o.tx_gpu));
  line("RX Mem", memory(o.rx_gpu));
  if (o.tx_gpu >= 0 || o.rx_gpu >= 0) line("GPU Type", o.gpu_type.empty() ? "(discovered)" : o.gpu_type);
  line("Duration", fmt("%g seconds", duration));
  line("Sensor Interval", fmt("%g seconds", interval));
  line("TX/RX Processes", std::to_string(procs));
  line("Processor List", cpus.empty() ? "Not pinned" : o.cpu_list);
  line("RDMA Write Size", std::to_string(first.msg_size));
  line("List Size", std::to_string(first.tx_depth));
  // The original's rules: HRP up to 2048 bytes, IDC up to 192 (224 with HRP), not from GPUs.
  bool hrp = first.msg_size <= 2048;
  line("HRP", state(!first.no_hrp, hrp));
  line("IDC", state(!first.no_idc, o.tx_gpu < 0 && (first.msg_size <= 192 || (hrp && !first.no_hrp && first.msg_size <= 224))));
  line("Persistent LEs", cxi ? (first.no_ple ? "Disabled" : "Enabled") : "Not Applicable");
  std::printf("%s\n%s\n", dashes.c_str(), header.c_str());
  std::fflush(stdout);

  static_assert(sizeof(Shared) <= 64);
  const size_t shared_size = 64 + sizeof(std::atomic<uint64_t>) * procs;
  void* mem = mmap(nullptr, shared_size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (mem == MAP_FAILED) {
    std::perror("fab_heatsink_check: mmap");
    return 1;
  }
  auto* shared = new (mem) Shared;
  shared->ops = reinterpret_cast<std::atomic<uint64_t>*>(static_cast<char*>(mem) + 64);
  for (uint64_t i = 0; i < procs; ++i) new (&shared->ops[i]) std::atomic<uint64_t>(0);
  auto total_ops = [&] {
    uint64_t n = 0;
    for (uint64_t i = 0; i < procs; ++i) n += shared->ops[i].load(std::memory_order_relaxed);
    return n;
  };

  std::vector<pid_t> pids;
  for (uint64_t i = 0; i < procs; ++i) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      // Counts reach the parent a hundredth of a row late at most.
      worker(plan, tests, static_cast<int>(i), cpus.empty() ? -1 : cpus[i],
             std::max(0.01, interval / 100), shared);
    }
    if (pid < 0) {
      std::perror("fab_heatsink_check: fork");
      break;
    }
    pids.push_back(pid);
  }
  bool error = pids.size() != procs;
  std::vector<bool> reaped(pids.size(), false);
  // A worker that ended before it was told to has failed.
  auto worker_ended = [&] {
    for (size_t i = 0; i < pids.size(); ++i) {
      int status = 0;
      if (!reaped[i] && waitpid(pids[i], &status, WNOHANG) == pids[i]) {
        reaped[i] = true;
        return true;
      }
    }
    return false;
  };
  auto pause_ms = [](int ms) { poll(nullptr, 0, ms); };

  // Traffic first: every worker has completed writes (bounded wait).
  const int64_t started_ns = now_ns();
  while (!error && !stop_flag().load()) {
    bool all = true;
    for (uint64_t i = 0; i < procs; ++i) all = all && shared->ops[i].load() > 0;
    if (all) break;
    if (worker_ended() || now_ns() - started_ns > 120'000'000'000LL) {
      std::fprintf(stderr, "fab_heatsink_check: a worker did not start its writes\n");
      error = true;
    }
    pause_ms(10);
  }

  double rate_sum = 0;
  int rows = 0;
  const Sensor* aborted = nullptr;
  const int64_t t0 = now_ns();
  int64_t last_ns = t0;
  uint64_t last_ops = total_ops();
  const bool whole_seconds = std::fabs(interval - std::round(interval)) < 1e-9;
  for (int k = 1; !error && !aborted && !stop_flag().load(); ++k) {
    const double due_s = std::min(interval * k, duration);
    const int64_t due_ns = t0 + static_cast<int64_t>(due_s * 1e9);
    while (now_ns() < due_ns && !error && !stop_flag().load()) {
      if (worker_ended()) {
        std::fprintf(stderr, "fab_heatsink_check: a worker ended early; see above\n");
        error = true;
      }
      pause_ms(static_cast<int>(std::clamp<int64_t>((due_ns - now_ns()) / 1'000'000, 1, 100)));
    }
    if (error || stop_flag().load()) break;
    const int64_t t = now_ns();
    const uint64_t ops = total_ops();
    double gbps = static_cast<double>(ops - last_ops) * static_cast<double>(first.msg_size) /
                  (static_cast<double>(t - last_ns) / 1e9) / 1e9;
    last_ns = t;
    last_ops = ops;
    rate_sum += gbps;
    ++rows;
    std::string row = whole_seconds ? fmt("%7.0f", (t - t0) / 1e9) : fmt("%7.1f", (t - t0) / 1e9);
    row += "  " + fmt("%10.2f", gbps);
    for (Sensor& s : sensors) {
      int v = s.read();
      bool absent = v == INT32_MIN || s.absent(v);
      row += "  " + pad_left(absent ? "-" : std::to_string(v), s.width);
      if (absent) continue;
      s.absent_always = false;
      s.max_seen = std::max(s.max_seen, v);
      if (!aborted && !s.power && s.abort_at > 0 && v >= s.abort_at) aborted = &s;
    }
    std::printf("%s\n", row.c_str());
    if (aborted) {
      std::printf("\nError! %s has exceeded safe range. Exiting early.\n", aborted->name.c_str());
    }
    std::fflush(stdout);
    if (due_s >= duration) break;
  }

  // Stop the workers and collect them (bounded: a stuck one is killed).
  shared->stop.store(true);
  const int64_t stop_ns = now_ns();
  for (size_t i = 0; i < pids.size(); ++i) {
    int status = 0;
    while (!reaped[i]) {
      pid_t r = waitpid(pids[i], &status, WNOHANG);
      if (r == pids[i]) {
        reaped[i] = true;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) error = true;
      } else if (r < 0) {
        reaped[i] = true;
      } else if (now_ns() - stop_ns > 60'000'000'000LL) {
        kill(pids[i], SIGKILL);
      } else {
        pause_ms(10);
      }
    }
  }
  munmap(mem, shared_size);
  if (stop_flag().load()) {
    std::fprintf(stderr, "fab_heatsink_check: interrupted\n");
    return 130;
  }

  std::printf("%s\n", dashes.c_str());
  bool failed = false;
  // The original's order: temperatures, then powers, then the rate.
  std::vector<const Sensor*> judged;
  for (const Sensor& s : sensors) if (!s.power) judged.push_back(&s);
  for (const Sensor& s : sensors) if (s.power) judged.push_back(&s);
  for (const Sensor* sp : judged) {
    const Sensor& s = *sp;
    std::string what = s.known ? s.name + " (" + s.short_name + ")" : s.name;
    if (s.power) {
      std::string result = s.absent_always ? "-" : std::to_string(s.max_seen) + " W";
      if (s.fail > 0 && !s.absent_always) {
        bool pass = s.max_seen < s.fail;
        failed |= !pass;
        std::printf("%s", verdict_line(what + " under " + fmt("%g", s.fail) + " W:", result, pass).c_str());
      } else {
        std::printf("%s", unjudged_line(what + ":", result).c_str());
      }
      continue;
    }
    std::string criteria = what + " under " + fmt("%g", s.fail) + " " + kDegC + ":";
    if (s.absent_always) {
      std::printf("%s  %s  NA\n", pad_right_bytes(criteria, kCriteriaW).c_str(),
                  pad_right_bytes("-", kResultW - 1).c_str());
      continue;
    }
    bool pass = s.max_seen < s.fail;
    failed |= !pass;
    std::printf("%s", verdict_line(criteria, std::to_string(s.max_seen) + " " + kDegC, pass).c_str());
  }
  double average = rows > 0 ? rate_sum / rows : 0;
  if (target > 0) {
    bool pass = average >= target;
    failed |= !pass;
    std::printf("%s", (pad_right_bytes("Average BW over " + fmt("%g", target) + " GB/s:", kCriteriaW - 1) +
                       "  " + pad_right_bytes(fmt("%.2f GB/s", average), kResultW - 1) +
                       (pass ? "PASS" : "FAIL") + "\n").c_str());
  } else {
    std::printf("%s", unjudged_line("Average BW:", fmt("%.2f GB/s", average)).c_str());
  }
  std::fflush(stdout);
  if (error) {
    std::fprintf(stderr, "fab_heatsink_check: a worker failed; see above\n");
    return 1;
  }
  return failed || aborted ? 2 : 0;
}

}  // namespace fabperf::cxi
