// End-to-end: host noise. A run beside a CPU hog on its measuring thread's CPU says so (the
// warning line, JSON host_noise) with figures far above the same run without the hog, and a
// quiet run says nothing. On a shared machine no run is quiet on its own (this project's VM
// runs at a load average of 15-19, and every plain run there is disturbed, truly: the latency
// reads 3 to 100 times the undisturbed one), so both runs are shielded from the machine's
// other tenants with SCHED_RR (as root, through chrt), and the hog is a SCHED_RR task of the
// same priority pinned to the client's CPU: deterministic, whatever else the machine runs.
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "stats/cpu.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

constexpr int kPriority = 10;

// A task spinning on `cpu` at SCHED_RR `kPriority`: another tenant's busy job on that CPU. It
// ends itself after 20 s, and with this process (PR_SET_PDEATHSIG), whatever happens here.
class CpuHog {
 public:
  explicit CpuHog(int cpu) {
    pid_ = fork();
    if (pid_ == 0) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      cpu_set_t set;
      CPU_ZERO(&set);
      CPU_SET(cpu, &set);
      sched_setaffinity(0, sizeof set, &set);
      sched_param p{};
      p.sched_priority = kPriority;
      sched_setscheduler(0, SCHED_RR, &p);
      const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(20);
      while (std::chrono::steady_clock::now() < end) {
      }
      _exit(0);
    }
  }
  ~CpuHog() {
    if (pid_ > 0) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

 private:
  pid_t pid_ = -1;
};

// Root (SCHED_RR), chrt, two CPUs (client on 0, server on 1): what the shielded runs need.
std::string cannot_shield() {
  if (geteuid() != 0) return "not root: SCHED_RR needs CAP_SYS_NICE";
  if (access("/usr/bin/chrt", X_OK) != 0) return "no /usr/bin/chrt (util-linux)";
  if (run({"-r", "1", "/bin/true"}, 10, "/usr/bin/chrt").exit_code != 0)
    return "SCHED_RR is refused here (root without CAP_SYS_NICE, as in some containers)";
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) return "one CPU: the client and server need one each";
  return "";
}

// fabperf --loopback at SCHED_RR, the client pinned to CPU 0 and the server to CPU 1.
RunOutput shielded(const std::vector<std::string>& args) {
  std::vector<std::string> all = {
      "-r", std::to_string(kPriority), fabperf_bin(), "--loopback", "-lca", "0", "-rca", "1"};
  all.insert(all.end(), args.begin(), args.end());
  return run(all, 120, "/usr/bin/chrt");
}

// Past this share of the quiet run in which some task on the host waited for a CPU (PSI
// "some", the run's own cpu_pressure_pct), the host is loaded and the idle-host bounds below
// do not apply.
constexpr double kQuietHostPct = 10;
// What one RR time slice of the hog (100 ms) adds at least to the client's wait share in a
// run of 0.3 s that it stretches to 0.4 s (25%), less a margin for the quiet run's own noise.
constexpr double kHogSliceShare = 0.08;

double wait_share(const json& result, const char* side) {
  return result["host_noise"][side].value("cpu_wait_share", -1.0);
}

// One quiet and one noisy run of `test`: what did not hold beside the hog (`noisy`), and what
// did not hold for the quiet run or the contrast between them (`quiet`); "" when all held.
struct HogPair {
  std::string noisy, quiet;
  bool no_schedstat = false;
  bool loaded = false;  // the quiet run's own cpu_pressure_pct was past kQuietHostPct
};

HogPair hog_pair(const char* test) {
  HogPair out;
  auto need = [](std::string& why, bool ok, const std::string& what) {
    if (!ok) why += what + "\n";
  };
  RunOutput quiet = shielded({"-t", "0.3", "--json", "-", test});
  if (quiet.exit_code != 0) {
    out.noisy = "quiet run failed: " + quiet.err;
    return out;
  }
  json q = json::parse(quiet.out)["results"][0];
  RunOutput noisy;
  {
    CpuHog hog(0);
    noisy = shielded({"-t", "0.3", "--json", "-", test});
  }
  if (noisy.exit_code != 0) {
    out.noisy = "noisy run failed: " + noisy.err;
    return out;
  }
  json n = json::parse(noisy.out)["results"][0];
  if (wait_share(q, "loc") < 0) {
    out.no_schedstat = true;
    return out;
  }
  // Beside the hog: the client's warning line, the verdict and its cause in JSON, a wait past
  // the threshold (measured here: 25-100%), and the server on the other CPU not disturbed.
  need(out.noisy,
       contains(noisy.err, std::string(test) + ": warning: client's measuring thread ") &&
           contains(noisy.err, "waited for a CPU") &&
           contains(noisy.err, "results are not trustworthy"),
       "no warning beside the hog: " + noisy.err);
  need(out.noisy,
       n["host_noise"]["verdict"] == "noisy" &&
           contains(n["host_noise"]["loc"]["causes"].dump(), "\"cpu_wait\"") &&
           wait_share(n, "loc") > 0.20,
       "beside the hog: " + n["host_noise"].dump());
  need(out.noisy, wait_share(n, "rem") < 0.20, "server disturbed: " + n["host_noise"].dump());
  // The quiet run: no warning, verdict quiet, and the hog's run clearly above it. The hog takes
  // whole RR time slices (100 ms of a 0.3 s run: 25% at least); on an idle host the quiet
  // run waited 0-4% against the hog's 33-100%, and there its wait must stay far below the
  // threshold. On a loaded host (the quiet run's own PSI figure says some task waited for a
  // CPU past kQuietHostPct of it; CI measured 58-81% beside make test's other tests) the
  // shielded client still waited 10-17%, truly, and only the contract holds: no warning, a
  // quiet verdict, and the hog's slice on top of that wait.
  const double pressure = q["host_noise"]["loc"].value("cpu_pressure_pct", 100.0);
  out.loaded = pressure > kQuietHostPct;
  need(out.quiet, !contains(quiet.err, "measuring thread"), "quiet run warned: " + quiet.err);
  need(out.quiet, q["host_noise"]["verdict"] == "quiet", "quiet run: " + q["host_noise"].dump());
  if (!out.loaded) {
    need(out.quiet, wait_share(q, "loc") < 0.10 && wait_share(n, "loc") > 4 * wait_share(q, "loc"),
         "quiet run on an unloaded host: " + q["host_noise"].dump());
  }
  need(out.quiet, wait_share(n, "loc") > wait_share(q, "loc") + kHogSliceShare,
       "no contrast: " + n["host_noise"]["loc"].dump() + " against " +
           q["host_noise"]["loc"].dump());
  return out;
}

// The shield (SCHED_RR) holds against ordinary tasks, but make test runs two tests at a time
// and RT throttling lets them in: a pair whose quiet run was disturbed is taken again, at most
// three times. The hog must be named (in one attempt at least: an attempt a busy host starved
// outright shows nothing), and once it was, the shield held: an attempt with a quiet run must
// have come too, or the test fails. One exception, the same as the pinned test's below: where
// every quiet run that did not hold had its own CPU-pressure figure past kQuietHostPct, the
// host was loaded through all three (CI measured 56-92% beside make test's other tests: the
// shielded client was truly preempted on 6-9% of its messages, so its warning was true), and
// the quiet half cannot be judged there: the test prints the figures and skips. A quiet run
// that failed on an unloaded host fails the test.
TEST(HostNoiseE2e, HogOnTheClientsCpuWarnsAndAQuietRunDoesNot) {
  if (std::string why = cannot_shield(); !why.empty()) GTEST_SKIP() << why;
  std::string unjudged, loaded;
  for (const char* test : {"tcp_lat", "tcp_bw"}) {
    SCOPED_TRACE(test);
    std::string noisy_failures, quiet_failures, loaded_failures;
    bool contrast = false, named = false;
    for (int attempt = 1; attempt <= 3 && !contrast; ++attempt) {
      HogPair pair = hog_pair(test);
      if (pair.no_schedstat) GTEST_SKIP() << "no schedstat in this kernel: no CPU wait";
      const std::string label = "attempt " + std::to_string(attempt) + ":\n";
      named = named || pair.noisy.empty();
      if (!pair.noisy.empty()) noisy_failures += label + pair.noisy;
      if (!pair.quiet.empty())
        (pair.loaded ? loaded_failures : quiet_failures) += label + pair.quiet;
      contrast = pair.noisy.empty() && pair.quiet.empty();
    }
    EXPECT_TRUE(named) << "the hog was never named:\n" << noisy_failures;
    if (!named || contrast) continue;
    if (!quiet_failures.empty())
      unjudged += std::string(test) + ":\n" + quiet_failures + loaded_failures;
    else
      loaded += std::string(test) + ": every quiet run was on a loaded host:\n" + loaded_failures;
  }
  // Once the hog was named, the shield held for that attempt: its quiet runs must hold too.
  EXPECT_TRUE(unjudged.empty()) << "the hog was named, but no attempt had a quiet run to "
                                   "contrast it with:\n"
                                << unjudged;
  if (!loaded.empty() && !HasFailure()) GTEST_SKIP() << loaded;
}

// Past this 10-second average of CPU pressure (PSI "some avg10", % of the time some task
// waited for a CPU) the machine itself is loaded, and an unshielded run's measuring thread
// waits for its CPU as truly as the rest: measured on this project's 2-CPU VM with four other
// builds running (avg10 93-96), pinned runs (-lca 0 -rca 1) waited 16-79% and plain ones
// 22-86% of the run. The measuring thread's own wait counts in that pressure (the host's is a
// mean over its CPUs), so at 10% or less the 20% threshold keeps a margin of two or more.
constexpr double kLoadedAvg10 = 10;

// /proc/pressure/cpu's "some avg10="; -1 where the kernel has no PSI.
double cpu_pressure_avg10() {
  const std::string text = read_file("/proc/pressure/cpu");
  const size_t at = text.find("avg10=");
  if (text.rfind("some ", 0) != 0 || at == std::string::npos) return -1;
  return std::strtod(text.c_str() + at + 6, nullptr);
}

// Past this share of the host's CPU time over a run and its start, used by everything but the
// run and this test (other tasks, and the hypervisor's steal), the machine is loaded. PSI's
// 10-second average is no help there: it is updated every 2 s, and two busy tasks, one a
// CPU, add nothing to it until the run's threads come to wait beside them (measured: avg10
// 0.2-2.4% around six 0.2 s runs whose threads waited 29-37% of each, truly). And fabperf's
// own waits are what the test judges, so they must not count as the machine's load.
constexpr double kLoadedOthersPct = 10;

// CPU time, in seconds: the host's from /proc/stat (read_proc_stat, as a run's own CPU figures
// read it), and this process's and its reaped children's (the fabperf run) from getrusage.
struct CpuTime {
  double busy = 0;   // user nice system irq softirq steal
  double total = 0;  // the same and idle, iowait
  double ours = 0;   // this test process and its children
};
double seconds(const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; }
CpuTime cpu_time() {
  CpuTime t;
  const Result<ProcStatTicks> ticks = read_proc_stat();
  if (!ticks.ok()) return t;
  const double tick = 1.0 / static_cast<double>(sysconf(_SC_CLK_TCK));
  const ProcStatTicks& k = *ticks;
  t.busy = static_cast<double>(k.user + k.nice + k.system + k.irq + k.softirq + k.steal) * tick;
  t.total = t.busy + static_cast<double>(k.idle + k.iowait) * tick;
  rusage self{}, children{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  t.ours = seconds(self.ru_utime) + seconds(self.ru_stime) + seconds(children.ru_utime) +
           seconds(children.ru_stime);
  return t;
}

// The share of the host's CPU time between two readings that went to others than this test
// and its children, in %; -1 where /proc/stat does not say.
double others_pct(const CpuTime& a, const CpuTime& b) {
  if (b.total <= a.total) return -1;
  const double others = (b.busy - a.busy) - (b.ours - a.ours);
  return std::max(0.0, others) * 100 / (b.total - a.total);
}

// "client: waited 3.1% of the run, preempted 2 times in 4,000 operations; server: ..."
std::string noise_figures(const json& host_noise) {
  std::string out;
  for (const char* side : {"loc", "rem"}) {
    const json& s = host_noise[side];
    char buf[160];
    std::snprintf(buf, sizeof buf,
                  "%s: waited %.1f%% of the run, preempted %llu times in %llu "
                  "operations, %s; ",
                  side, s.value("cpu_wait_share", -1.0) * 100,
                  static_cast<unsigned long long>(s.value("involuntary_switches", uint64_t{0})),
                  static_cast<unsigned long long>(s.value("operations", uint64_t{0})),
                  s.value("verdict", std::string("?")).c_str());
    out += buf;
  }
  return out;
}

// A short run, each side pinned to its own CPU, as any user can run it (no root, no shield):
// no warning, unless the machine itself is loaded (then the figures are printed and the test
// skips, since the warning would then be true). A 10-second average misses a burst of load
// that starts with a 0.2 s run (CI: avg10 4-6% before and after, while the server's measuring
// thread waited 28-40% of the run beside 5 runnable threads on 2 CPUs, so its warning was
// true). So a run that warned is taken again, at most three times: a false warning would come
// every time, a neighbour's burst passes. The test fails only where all three warned on an
// unloaded machine: its avg10 at or under kLoadedAvg10, and the others' share of its CPU time
// at or under kLoadedOthersPct, around each run. Where any of them was loaded, it prints the
// figures and skips.
TEST(HostNoiseE2e, APinnedRunOnAnUnloadedMachineDoesNotWarn) {
  if (sysconf(_SC_NPROCESSORS_ONLN) < 2) GTEST_SKIP() << "one CPU: the sides need one each";
  std::string loaded;
  for (const char* test : {"tcp_lat", "tcp_bw"}) {
    SCOPED_TRACE(test);
    std::string warned;  // each attempt that warned, with its figures
    bool quiet = false, any_loaded = false;
    for (int attempt = 1; attempt <= 3 && !quiet; ++attempt) {
      // Before and after: in a parallel suite another test may start during the run, and the
      // one that raises the 10-second average by the end was beside it.
      const double before = cpu_pressure_avg10();
      const CpuTime time_before = cpu_time();
      RunOutput r = run({"--loopback", "-lca", "0", "-rca", "1", "-t", "0.2", "--json", "-", test});
      const double others = others_pct(time_before, cpu_time());
      const double after = cpu_pressure_avg10();
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const json res = json::parse(r.out)["results"][0];
      const std::string figures = noise_figures(res["host_noise"]);
      std::printf(
          "[ measured ] %s -lca 0 -rca 1, attempt %d: cpu pressure avg10 %.1f%% before, %.1f%% "
          "after, others' CPU %.1f%%; %s\n",
          test, attempt, before, after, others, figures.c_str());
      quiet = !contains(r.err, "measuring thread") && res["host_noise"]["verdict"] == "quiet";
      if (quiet) break;
      // No PSI or no /proc/stat: the machine's load is unknown, and a warning cannot be
      // judged.
      const bool was_loaded = before < 0 || after < 0 || others < 0 ||
                              std::max(before, after) > kLoadedAvg10 || others > kLoadedOthersPct;
      any_loaded = any_loaded || was_loaded;
      char buf[160];
      std::snprintf(buf, sizeof buf,
                    "attempt %d (cpu pressure avg10 %.1f%%, %.1f%%, others' CPU %.1f%%%s): ",
                    attempt, before, after, others, was_loaded ? ", loaded" : "");
      warned += buf + figures + "\n  " + r.err + "\n";
    }
    if (quiet) continue;
    if (any_loaded) {
      loaded += std::string(test) + ": warned three times, on a machine loaded (cpu pressure " +
                "avg10 past " + std::to_string(static_cast<int>(kLoadedAvg10)) +
                "%, others' CPU past " + std::to_string(static_cast<int>(kLoadedOthersPct)) +
                "%, or either unknown) around at least one run:\n" + warned;
      continue;
    }
    ADD_FAILURE() << "warned three times on an unloaded machine:\n" << warned;
  }
  if (!loaded.empty() && !HasFailure()) GTEST_SKIP() << loaded;
}

// The raw figures are always there, and the text output's warning line goes with the block.
TEST(HostNoiseE2e, JsonCarriesTheFiguresOfBothSides) {
  RunOutput r = run({"--loopback", "-t", "0.2", "--json", "-", "udp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json res = json::parse(r.out)["results"][0];
  ASSERT_TRUE(res.contains("host_noise")) << res.dump().substr(0, 300);
  for (const char* side : {"loc", "rem"}) {
    const json& s = res["host_noise"][side];
    for (const char* key :
         {"real_s", "involuntary_switches", "voluntary_switches", "operations", "steal_pct",
          "runnable", "load1", "cpus_online", "cpus_allowed", "pollers", "verdict", "causes"}) {
      EXPECT_TRUE(s.contains(key)) << side << " " << key << ": " << s.dump();
    }
    EXPECT_GT(s["voluntary_switches"].get<uint64_t>(), 0u) << side;  // a blocking ping-pong
    EXPECT_GT(s["operations"].get<uint64_t>(), 0u) << side;
  }
  const bool noisy = res["host_noise"]["loc"]["verdict"] == "noisy" ||
                     res["host_noise"]["rem"]["verdict"] == "noisy";
  EXPECT_EQ(res["host_noise"]["verdict"], noisy ? "noisy" : "quiet");
  EXPECT_EQ(contains(r.err, "measuring thread"), noisy) << r.err;
}

// Two busy-pollers on one CPU: said before the run starts (and the run still runs): stdout and
// stderr in one pipe, the warning comes before the run's first interval line (printed while it
// runs; the host-noise warnings of a run come after them) and before its result.
TEST(HostNoiseE2e, TwoPollersOnOneCpuAreWarnedAboutFirst) {
  RunOutput r = run({"-c", "exec \"$0\" \"$@\" 2>&1", fabperf_bin(), "--loopback", "--poll", "-lca",
                     "0", "-rca", "0", "-t", "0.2", "--interval", "0.05", "tcp_lat"},
                    60, "/bin/sh");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const size_t warned =
      r.out.find("tcp_lat: warning: 2 busy-polling threads (client 1, server 1) on 1 CPU");
  ASSERT_NE(warned, std::string::npos) << r.out;
  const size_t interval = r.out.find("tcp_lat [");
  const size_t result = r.out.find("tcp_lat:\n    latency");
  ASSERT_NE(interval, std::string::npos) << r.out;
  ASSERT_NE(result, std::string::npos) << r.out;
  EXPECT_LT(warned, interval) << r.out;
  EXPECT_LT(warned, result) << r.out;
  RunOutput apart = run({"--loopback", "--poll", "-lca", "0", "-rca", "1", "-t", "0.1", "tcp_lat"});
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  EXPECT_FALSE(contains(apart.err, "busy-polling threads")) << apart.err;
}

// Sides kept apart from outside (taskset, no -lca/-rca): the server says which CPUs it may use,
// and a client on this host with its own, other CPU sees no shared CPU; on the same CPU it
// warns. Affinity is inherited, so the test pins itself while it starts each process.
TEST(HostNoiseE2e, SidesKeptApartByTasksetAreNotWarnedAbout) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  std::vector<int> mine;
  for (int c = 0; c < CPU_SETSIZE && mine.size() < 2; ++c) {
    if (CPU_ISSET(c, &all)) mine.push_back(c);
  }
  if (mine.size() < 2) GTEST_SKIP() << "needs two CPUs to keep the sides apart";
  auto pin = [](int cpu) {
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    return sched_setaffinity(0, sizeof one, &one) == 0;
  };
  ASSERT_TRUE(pin(mine[1]));
  ServerProcess server;
  ASSERT_TRUE(pin(mine[0]));
  RunOutput apart = run({"127.0.0.1", "-lp", server.port_arg(), "--poll", "-t", "0.1", "tcp_lat"});
  ServerProcess beside;  // started on the client's CPU
  RunOutput shared = run({"127.0.0.1", "-lp", beside.port_arg(), "--poll", "-t", "0.1", "tcp_lat"});
  ASSERT_EQ(sched_setaffinity(0, sizeof all, &all), 0);
  ASSERT_EQ(apart.exit_code, 0) << apart.err;
  EXPECT_FALSE(contains(apart.err, "busy-polling threads")) << apart.err;
  ASSERT_EQ(shared.exit_code, 0) << shared.err;
  EXPECT_TRUE(contains(shared.err, "2 busy-polling threads (client 1, server 1) on 1 CPU"))
      << shared.err;
}

}  // namespace
}  // namespace fabperf::testing
