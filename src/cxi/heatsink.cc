// fab_heatsink_check: P worker processes issue small RDMA writes (each over its own loopback
// pair, pinned to the NIC's NUMA cores as the original's) without a break for -D seconds,
// while the parent, after a second of warm-up, reads the chosen NIC's own hwmon sensors every
// -i seconds: a row with the rate (the NIC's counter where telemetry has it, else the
// workers' completed writes) and the readings, an early stop when a temperature reaches its
// abort limit, then PASS/FAIL lines against the originals' per-sensor limits and bandwidth
// target. Exit 0 pass, 1 error (no sensor of the device, a worker failed), 2 a target failed
// (the original's codes).
#include "cxi/heatsink.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/signals.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_main.h"
#include "cxi/cxi_plan.h"
#include "cxi/sysfs.h"
#include "fabric/fabric_list.h"

namespace fabperf::cxi {

namespace {

constexpr const char* kDegC =
    "\xC2\xB0"
    "C";                                       // the originals print "°C" in UTF-8
constexpr int kCriteriaW = 50;                 // BRZ_CRIT_W
constexpr int kSawtoothCriteriaW = 44;         // SAW_CRIT_W
constexpr int kResultW = 13;                   // RESULT_W
constexpr double kTargetGBps = 19;             // TARGET_BW, on cxi
constexpr int64_t kWarmupNs = 1'000'000'000;   // WARMUP_USEC: before the first row
constexpr int64_t kStartNs = 120'000'000'000;  // a worker's writes must start by then

// "%*s" with a display width.
std::string pad_left(const std::string& s, int width) {
  int pad = width - display_width(s);
  return (pad > 0 ? std::string(static_cast<size_t>(pad), ' ') : "") + s;
}

// "%-*s" with a byte width, as the originals' printf pads (the degree sign counts two).
std::string pad_right_bytes(const std::string& s, int width) {
  return s.size() < static_cast<size_t>(width) ? s + std::string(width - s.size(), ' ') : s;
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

void pause_ms(int ms) { poll(nullptr, 0, ms); }

// The verdict lines, in the original's "%-*s  %-*s" layout: criteria `width` wide (SAW_CRIT_W
// 44 on Sawtooth and Washington boards, BRZ_CRIT_W 50 elsewhere), unjudged ones one narrower.
std::string verdict_line(int width, const std::string& criteria, const std::string& result,
                         const char* verdict) {
  return pad_right_bytes(criteria, width) + "  " + pad_right_bytes(result, kResultW) + verdict +
         "\n";
}
std::string unjudged_line(int width, const std::string& criteria, const std::string& result,
                          const char* verdict = "----") {
  return pad_right_bytes(criteria, width - 1) + "  " + pad_right_bytes(result, kResultW - 1) +
         verdict + "\n";
}

// Everything the check needs, decided before any traffic.
struct Check {
  ToolPlan plan;  // one run per worker, for the whole check
  RunOptions first;
  double duration = 600, interval = 10;
  std::vector<int> cpus;  // one per worker, pinned; empty: not pinned
  uint64_t procs = 1;
  std::vector<Sensor> sensors;
  bool cxi = false;
  double target = 0;  // GB/s (0: none)
  std::string dev_dir, cxi_dir;
  std::string board;         // cxi: Brazos, Sawtooth ... ("": not a cxi NIC)
  std::string rate_counter;  // the NIC counter under telemetry/ ("": software completions)
  std::string header, dashes;
};

// The workers' CPUs: -c's (the count follows it, -P ignored), else -P (CPUs / 4) on the
// device's NUMA cores where sysfs names them, as the original (then at most as many workers
// as cores), else not pinned.
Status choose_cpus(const ProgramOptions& o, const std::string& device, Check& c) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  c.procs = o.procs > 0 ? o.procs : static_cast<uint64_t>(std::max(1L, online / 4));
  if (!o.cpu_list.empty()) {
    auto parsed = parse_cpu_list(o.cpu_list);
    if (!parsed.ok()) return parsed.status();
    c.cpus = *parsed;
  } else {
    c.cpus = numa_cpus(c.dev_dir, device, c.procs);
  }
  if (!c.cpus.empty()) c.procs = c.cpus.size();
  return Status::success();
}

// The NIC's own count of the writes' responses, where the cxi driver's telemetry has it (the
// original reads C_CNTR_PCT_HRP_RESPONSES_RECEIVED with HRP, else C_CNTR_PCT_PTLS_RESPONSE).
std::string nic_rate_counter(const Check& c, bool hrp) {
  if (c.cxi_dir.empty()) return "";
  std::string name = hrp ? "pct_hrp_responses_received" : "pct_ptls_response";
  return read_line(c.cxi_dir + "/telemetry/" + name).empty() ? "" : name;
}

// A telemetry counter's value ("123@1700000000.5" or "123"); -1 when unreadable.
double counter_value(const Check& c) {
  std::string text = read_line(c.cxi_dir + "/telemetry/" + c.rate_counter);
  char* end = nullptr;
  double v = std::strtod(text.c_str(), &end);
  return text.empty() || end == text.c_str() ? -1 : v;
}

bool hrp_in_use(const Check& c) { return c.cxi && !c.first.no_hrp && c.first.msg_size <= 2048; }

Result<Check> prepare(const Tool& tool, Invocation& cl, const TestRegistry& tests) {
  const ProgramOptions& o = cl.program;
  const bool timed = duration_given(cl);
  auto planned = plan_tool(tool, cl, tests);
  if (!planned.ok()) return planned.status();
  Check c;
  c.plan = *planned;
  c.first = c.plan.runs.at(0).params.local;
  c.duration = timed ? c.first.time : 600;
  c.interval = std::min(o.interval, c.duration);
  c.cxi = c.plan.provider == "cxi";
  const std::string& device = c.plan.device;
  std::string pci;
  for (const DomainInfo& d : list_domains(c.plan.provider)) {
    if (d.domain == device && !d.pci.empty()) pci = d.pci;
  }
  c.dev_dir = device_dir(device, pci);
  if (!real_path(sysfs_root() + "/class/cxi/" + device + "/device").empty()) {
    c.cxi_dir = sysfs_root() + "/class/cxi/" + device + "/device";
  }
  FP_RETURN_IF_ERROR(choose_cpus(o, device, c));
  // The device's own sensors; without one there is nothing to check (the original: "failed
  // to find cxiN", exit 1).
  c.sensors = find_sensors(device, c.dev_dir, o);
  if (c.sensors.empty()) {
    return Status::failed("fab_heatsink_check: no temperature or power sensor of device " + device +
                          ": no hwmon chip under " + hwmon_root() + " is the device's own (named " +
                          (device.rfind("cxi", 0) == 0 ? device : std::string("cxiN")) +
                          " or under its sysfs device " +
                          (c.dev_dir.empty() ? "(none)" : c.dev_dir) + ")");
  }
  c.target = o.min_rate > 0 ? o.min_rate : c.cxi ? kTargetGBps : 0;
  if (!c.cxi_dir.empty()) c.board = board_type(c.cxi_dir);
  c.rate_counter = nic_rate_counter(c, hrp_in_use(c));
  // One run per worker for the whole check: the parent stops it.
  c.plan.runs.resize(1);
  for (RunOptions* side : {&c.plan.runs[0].params.local, &c.plan.runs[0].params.remote}) {
    side->time = c.duration + 120;  // bound only: the parent ends the run at -D
    side->no_msgs = 0;
  }
  c.header = pad_left("Time[s]", 7) + "  " + pad_left("Rate[GB/s]", 10);
  for (const Sensor& s : c.sensors) c.header += "  " + pad_left(s.column, s.width);
  c.dashes = std::string(static_cast<size_t>(display_width(c.header)), '-');
  return c;
}

// The NIC's address: its NID on cxi, the domain's IP where the provider speaks IP.
std::string local_address(const Check& c) {
  if (!c.cxi_dir.empty()) {
    std::string nid = read_line(c.cxi_dir + "/properties/nid");
    char* end = nullptr;
    unsigned long v = std::strtoul(nid.c_str(), &end, 0);
    if (!nid.empty() && end != nullptr && *end == '\0') {
      char buf[32];
      std::snprintf(buf, sizeof buf, "NIC 0x%lx", v);
      return buf;
    }
  }
  std::string ip = domain_address(c.plan.provider, c.plan.device);
  return ip.empty() ? "N/A" : ip;
}

void print_summary(const Tool& tool, const Check& c, const ProgramOptions& o) {
  const RunOptions& first = c.first;
  auto state = [&](bool on, bool applicable) -> std::string {
    if (!c.cxi) return "Not Applicable";
    return !on ? "Disabled" : applicable ? "Enabled" : "Disabled - Not Applicable";
  };
  auto line = [](const char* label, const std::string& value) {
    std::printf("%-16s: %s\n", label, value.c_str());
  };
  auto memory = [](int64_t gpu) {
    return gpu < 0 ? std::string("System") : "GPU " + std::to_string(gpu);
  };
  std::printf("%s\n    %s\n", c.dashes.c_str(), tool.title);
  line("Device", c.plan.device + (c.cxi ? "" : " (" + c.plan.provider + ")"));
  line("Board Type", c.board.empty() ? "Not Applicable" : c.board);
  line("Service ID", c.cxi ? std::to_string(first.svc_id) : "Not Applicable");
  line("Local Address", local_address(c));
  line("TX Mem", memory(o.tx_gpu));
  line("RX Mem", memory(o.rx_gpu));
  if (o.tx_gpu >= 0 || o.rx_gpu >= 0) {
    line("GPU Type", o.gpu_type.empty() ? "(discovered)" : o.gpu_type);
  }
  line("Duration", fmt("%g seconds", c.duration));
  line("Sensor Interval", fmt("%g seconds", c.interval));
  line("TX/RX Processes", std::to_string(c.procs));
  line("Processor List", c.cpus.empty() ? "Not pinned" : cpu_list_text(c.cpus));
  line("RDMA Write Size", std::to_string(first.msg_size));
  line("List Size", std::to_string(first.tx_depth));
  // The original's rules: HRP up to 2048 bytes, IDC up to 192 (224 with HRP), not from GPUs.
  bool hrp = first.msg_size <= 2048;
  line("HRP", state(!first.no_hrp, hrp));
  line("IDC",
       state(!first.no_idc, o.tx_gpu < 0 && (first.msg_size <= 192 ||
                                             (hrp && !first.no_hrp && first.msg_size <= 224))));
  line("Persistent LEs", c.cxi ? (first.no_ple ? "Disabled" : "Enabled") : "Not Applicable");
  line("Rate Source", c.rate_counter.empty() ? "software completions (no NIC counter here)"
                                             : "NIC counter " + c.rate_counter);
  std::printf("%s\n%s\n", c.dashes.c_str(), c.header.c_str());
  std::fflush(stdout);
}

// Waits until every worker completes writes, then the original's second of warm-up. False
// (said) when a worker failed or did not start; also false on ^C.
bool warm_up(HeatsinkWorkers& workers) {
  const int64_t started_ns = now_ns();
  while (!stop_flag().load() && !workers.all_writing()) {
    if (workers.one_ended() || now_ns() - started_ns > kStartNs) {
      std::fprintf(stderr, "fab_heatsink_check: a worker did not start its writes\n");
      return false;
    }
    pause_ms(10);
  }
  const int64_t warm_until = now_ns() + kWarmupNs;
  while (!stop_flag().load() && now_ns() < warm_until) {
    if (workers.one_ended()) {
      std::fprintf(stderr, "fab_heatsink_check: a worker ended early; see above\n");
      return false;
    }
    pause_ms(10);
  }
  return !stop_flag().load();
}

// What the rows measured.
struct Monitored {
  double rate_sum = 0;
  int rows = 0;
  const Sensor* aborted = nullptr;
  bool error = false;
};

// The rows: every -i seconds the rate over the interval (bytes of the writes the NIC counted,
// or the workers completed) and each sensor's reading; stops early at an abort limit.
Monitored monitor(Check& c, HeatsinkWorkers& workers) {
  Monitored m;
  const double size = static_cast<double>(c.first.msg_size);
  const double pkts_per_msg = static_cast<double>(packets_per_op(c.first.msg_size));
  // Bytes so far: the NIC's response count x size / packets per write (the original's), or
  // the workers' completed writes x size.
  auto bytes = [&] {
    if (c.rate_counter.empty()) return static_cast<double>(workers.total_ops()) * size;
    double v = counter_value(c);
    return v < 0 ? 0 : v * size / pkts_per_msg;
  };
  const int64_t t0 = now_ns();
  int64_t last_ns = t0;
  double last_bytes = bytes();
  const bool whole_seconds = std::fabs(c.interval - std::round(c.interval)) < 1e-9;
  for (int k = 1; !m.aborted && !stop_flag().load(); ++k) {
    const double due_s = std::min(c.interval * k, c.duration);
    const int64_t due_ns = t0 + static_cast<int64_t>(due_s * 1e9);
    while (now_ns() < due_ns && !stop_flag().load()) {
      if (workers.one_ended()) {
        std::fprintf(stderr, "fab_heatsink_check: a worker ended early; see above\n");
        m.error = true;
        return m;
      }
      pause_ms(static_cast<int>(std::clamp<int64_t>((due_ns - now_ns()) / 1'000'000, 1, 100)));
    }
    if (stop_flag().load()) break;
    const int64_t t = now_ns();
    const double b = bytes();
    double gbps = (b - last_bytes) / (static_cast<double>(t - last_ns) / 1e9) / 1e9;
    last_ns = t;
    last_bytes = b;
    m.rate_sum += gbps;
    ++m.rows;
    std::string row = whole_seconds ? fmt("%7.0f", (t - t0) / 1e9) : fmt("%7.1f", (t - t0) / 1e9);
    row += "  " + fmt("%10.2f", gbps);
    for (Sensor& s : c.sensors) {
      int v = s.read();
      bool absent = v == INT32_MIN || s.absent(v);
      row += "  " + pad_left(absent ? "-" : std::to_string(v), s.width);
      if (absent) continue;
      s.absent_always = false;
      s.max_seen = std::max(s.max_seen, v);
      if (!m.aborted && !s.power && s.abort_at > 0 && v >= s.abort_at) m.aborted = &s;
    }
    std::printf("%s\n", row.c_str());
    if (m.aborted) {
      std::printf("\nError! %s has exceeded safe range. Exiting early.\n", m.aborted->name.c_str());
    }
    std::fflush(stdout);
    if (due_s >= c.duration) break;
  }
  return m;
}

// A temperature's line: its limit, the worst reading, PASS/FAIL ("-" and NA: no module).
bool temperature_verdict(int width, const Sensor& s) {
  std::string what = s.known ? s.name + " (" + s.short_name + ")" : s.name;
  std::string criteria = what + " under " + fmt("%g", s.fail) + " " + kDegC + ":";
  if (s.absent_always) {
    std::printf("%s  %s  NA\n", pad_right_bytes(criteria, width).c_str(),
                pad_right_bytes("-", kResultW - 1).c_str());
    return true;
  }
  const bool pass = s.max_seen < s.fail;
  std::printf("%s", verdict_line(width, criteria, std::to_string(s.max_seen) + " " + kDegC,
                                 pass ? "PASS" : "FAIL")
                        .c_str());
  return pass;
}

// A power sensor's line: judged against --max-power where given; else "----", shown for VDD
// and AVDD only, as the original (its other sensors stay in the rows' columns).
bool power_verdict(int width, const Sensor& s) {
  std::string what = s.known ? s.name + " (" + s.short_name + ")" : s.name;
  std::string result = s.absent_always ? "-" : std::to_string(s.max_seen) + " W";
  if (s.fail > 0 && !s.absent_always) {
    const bool pass = s.max_seen < s.fail;
    std::printf("%s", verdict_line(width, what + " under " + fmt("%g", s.fail) + " W:", result,
                                   pass ? "PASS" : "FAIL")
                          .c_str());
    return pass;
  }
  if (s.short_name == "VDD" || s.short_name == "AVDD" || !s.known) {
    std::printf("%s", unjudged_line(width, what + ":", result).c_str());
  }
  return true;
}

// The PASS/FAIL lines, in the original's order: temperatures, powers, the rate. True when a
// limit or the target failed.
bool print_verdicts(const Check& c, const Monitored& m) {
  const int width =
      c.board == "Sawtooth" || c.board == "Washington" ? kSawtoothCriteriaW : kCriteriaW;
  bool failed = false;
  for (const Sensor& s : c.sensors) {
    if (!s.power) failed |= !temperature_verdict(width, s);
  }
  for (const Sensor& s : c.sensors) {
    if (s.power) failed |= !power_verdict(width, s);
  }
  double average = m.rows > 0 ? m.rate_sum / m.rows : 0;
  if (c.target > 0) {
    bool pass = average >= c.target;
    failed |= !pass;
    std::printf("%s", unjudged_line(width, "Average BW over " + fmt("%g", c.target) + " GB/s:",
                                    fmt("%.2f GB/s", average), pass ? "PASS" : "FAIL")
                          .c_str());
  } else {
    std::printf("%s", unjudged_line(width, "Average BW:", fmt("%.2f GB/s", average)).c_str());
  }
  std::fflush(stdout);
  return failed;
}

}  // namespace

Status run_heatsink_check(const Tool& tool, Invocation& cl, const TestRegistry& tests) {
  auto check = prepare(tool, cl, tests);
  if (!check.ok()) return Status::failed(check.status().message());
  Check& c = *check;
  print_summary(tool, c, cl.program);
  HeatsinkWorkers workers;
  // Counts reach the parent a hundredth of a row late at most.
  bool error = !workers.start(c.plan, tests, c.procs, c.cpus, std::max(0.01, c.interval / 100));
  Monitored m;
  if (!error && warm_up(workers)) {
    m = monitor(c, workers);
    error = m.error;
  } else if (!stop_flag().load()) {
    error = true;
  }
  error |= !workers.stop();
  if (stop_flag().load()) return Status::interrupted("fab_heatsink_check: interrupted");
  std::printf("%s\n", c.dashes.c_str());
  bool failed = print_verdicts(c, m);
  if (error) return Status::failed("fab_heatsink_check: a worker failed; see above");
  if (failed || m.aborted) return Status::reported(Code::kCheckFailed);  // the verdicts say which
  return Status::success();
}

}  // namespace fabperf::cxi
