// Unit tests for host noise: the /proc parsers, the figures over a run, the verdict against the
// documented thresholds, its words and its JSON; and the busy-poller check before a run.
#include "stats/host_noise.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <filesystem>
#include <thread>

#include "app/all_tests.h"
#include "e2e_robust_util.h"
#include "engine/poller_check.h"
#include "options/option_table.h"

namespace fabperf {
namespace {

TEST(HostNoiseParse, SchedstatPressureLoadavg) {
  int64_t wait = 0;
  EXPECT_TRUE(parse_schedstat("233948 9389173 2\n", &wait));
  EXPECT_EQ(wait, 9389173);
  EXPECT_FALSE(parse_schedstat("", &wait));
  EXPECT_FALSE(parse_schedstat("12", &wait));
  int64_t total = 0;
  EXPECT_TRUE(
      parse_cpu_pressure("some avg10=78.27 avg60=26.24 avg300=7.15 total=27267547\n"
                         "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
                         &total));
  EXPECT_EQ(total, 27267547);
  EXPECT_FALSE(parse_cpu_pressure("full avg10=0 total=5\n", &total));
  EXPECT_FALSE(parse_cpu_pressure("some avg10=1\n", &total));
  double load1 = 0;
  uint32_t runnable = 0;
  EXPECT_TRUE(parse_loadavg("3.33 1.22 0.47 10/144 11955\n", &load1, &runnable));
  EXPECT_DOUBLE_EQ(load1, 3.33);
  EXPECT_EQ(runnable, 10u);
  EXPECT_FALSE(parse_loadavg("3.33 1.22\n", &load1, &runnable));
}

// This thread's counters move as it runs and blocks.
TEST(HostNoiseRead, ThisThreadAndTheHost) {
  ThreadSched a = ThreadSched::of_this_thread();
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // one voluntary switch at least
  ThreadSched b = ThreadSched::of_this_thread();
  EXPECT_GT(b.voluntary, a.voluntary);
  EXPECT_GE(b.involuntary, a.involuntary);
  HostSched h = HostSched::take();
  EXPECT_GE(h.cpus_online, 1u);
  EXPECT_GE(h.cpus_allowed, 1u);
}

// The frequency is the measuring thread's own CPU's, not the spread over the CPUs it may use:
// on a powersave host idle CPUs sit at 800 MHz beside a busy one at 3.4 GHz, and an unpinned
// run read that spread as "frequency moved" (audit of issue 32).
TEST(HostNoiseRead, FrequencyIsTheThreadsOwnCpus) {
  cpu_set_t here;
  CPU_ZERO(&here);
  ASSERT_EQ(sched_getaffinity(0, sizeof here, &here), 0);
  fabperf::testing::TempDir root;
  int pinned = -1;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &here)) continue;
    const std::string dir = root.file("cpu" + std::to_string(cpu) + "/cpufreq");
    std::filesystem::create_directories(dir);
    // Every CPU but the first allowed one idles slow; the first runs fast.
    fabperf::testing::write_file(dir + "/scaling_cur_freq", pinned < 0 ? "3400000\n" : "800000\n",
                                 0644);
    if (pinned < 0) pinned = cpu;
  }
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(pinned, &one);
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  HostSched h = HostSched::take(root.path());
  sched_setaffinity(0, sizeof here, &here);
  EXPECT_EQ(h.freq_min_khz, 3400000u);
  EXPECT_EQ(h.freq_max_khz, 3400000u);
  // No cpufreq at all: nothing said.
  fabperf::testing::TempDir empty;
  EXPECT_EQ(HostSched::take(empty.path()).freq_max_khz, 0u);
}

NoiseSnapshot at(int64_t wall_ns, uint64_t invol, int64_t wait_ns, uint64_t steal, uint64_t total,
                 int64_t pressure_us) {
  NoiseSnapshot s;
  s.wall_ns = wall_ns;
  s.thread.involuntary = invol;
  s.thread.voluntary = invol * 2;
  s.thread.wait_ns = wait_ns;
  s.have_ticks = true;
  s.steal_ticks = steal;
  s.total_ticks = total;
  s.host.pressure_us = pressure_us;
  s.host.runnable = 3;
  s.host.cpus_online = 2;
  s.host.cpus_allowed = 2;
  return s;
}

TEST(HostNoise, FiguresOverARun) {
  HostNoise n = noise_between(at(0, 10, 1'000'000, 5, 1000, 100),
                              at(2'000'000'000, 1244, 201'000'000, 25, 1400, 400'100));
  EXPECT_TRUE(n.measured);
  EXPECT_DOUBLE_EQ(n.real_s, 2);
  EXPECT_EQ(n.involuntary, 1234u);
  EXPECT_EQ(n.voluntary, 2468u);
  EXPECT_NEAR(n.wait_s, 0.2, 1e-12);
  EXPECT_NEAR(n.wait_share(), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(n.steal_pct, 5);       // 20 of 400 ticks
  EXPECT_NEAR(n.pressure_pct, 20, 1e-9);  // 0.4 s of 2 s
  // Counters that went backwards (a reset) read as nothing, not as wrapped.
  HostNoise back = noise_between(at(0, 50, 9, 5, 100, 10), at(1'000'000'000, 40, 1, 1, 50, 5));
  EXPECT_EQ(back.involuntary, 0u);
  EXPECT_LT(back.wait_s, 0);
  EXPECT_DOUBLE_EQ(back.steal_pct, 0);
  EXPECT_LT(back.pressure_pct, 0);
}

HostNoise quiet_run() {
  HostNoise n;
  n.measured = true;
  n.real_s = 2;
  n.involuntary = 20;
  n.operations = 100000;
  n.wait_s = 0.3;  // 15%: a ping-pong sharing its CPU with its peer waits about 12%
  n.cpus_online = n.cpus_allowed = 2;
  n.runnable = 9;
  return n;
}

TEST(HostNoise, QuietRunHasNoVerdict) {
  HostNoise n = quiet_run();
  judge_host_noise(n);
  EXPECT_FALSE(n.noisy());
  EXPECT_EQ(host_noise_warning(n, "client"), "");
  EXPECT_EQ(n.to_json()["verdict"], "quiet");
}

TEST(HostNoise, EachThresholdNamesItsCause) {
  HostNoise preempted = quiet_run();
  preempted.involuntary = 1234;
  preempted.operations = 40000;  // 3.1% of samples
  judge_host_noise(preempted);
  ASSERT_EQ(preempted.causes.size(), 1u);
  EXPECT_EQ(preempted.causes[0].key, "preempted");
  EXPECT_EQ(host_noise_warning(preempted, "server"),
            "warning: server's measuring thread was preempted 1,234 times (3.1% of samples) "
            "(host: 9 runnable threads on 2 CPUs); results are not trustworthy");
  // A bandwidth loop's preemptions against its seconds, not its many messages.
  HostNoise fast = quiet_run();
  fast.involuntary = 1500;
  fast.operations = 100'000'000;
  fast.operations_are_samples = false;
  judge_host_noise(fast);
  ASSERT_EQ(fast.causes.size(), 1u);
  // A bandwidth test counts messages, not samples.
  EXPECT_NE(fast.causes[0].text.find("of messages)"), std::string::npos) << fast.causes[0].text;
  EXPECT_EQ(fast.causes[0].key, "preempted");
  HostNoise waited = quiet_run();
  waited.wait_s = 0.5;  // 25% of 2 s
  judge_host_noise(waited);
  ASSERT_EQ(waited.causes.size(), 1u);
  EXPECT_EQ(waited.causes[0].text, "waited for a CPU 25% of the run");
  HostNoise stolen = quiet_run();
  stolen.steal_pct = 12;
  judge_host_noise(stolen);
  ASSERT_EQ(stolen.causes.size(), 1u);
  EXPECT_EQ(stolen.causes[0].key, "steal");
  HostNoise polled = quiet_run();
  polled.pollers = 3;
  judge_host_noise(polled);
  ASSERT_EQ(polled.causes.size(), 1u);
  EXPECT_EQ(polled.causes[0].text, "ran 3 busy-polling threads on 2 CPU(s)");
  HostNoise clocked = quiet_run();
  clocked.freq_min_khz = 1'200'000;
  clocked.freq_max_khz = 3'000'000;
  judge_host_noise(clocked);
  ASSERT_EQ(clocked.causes.size(), 1u);
  EXPECT_EQ(clocked.causes[0].key, "frequency");
  // Two causes in one line.
  HostNoise both = quiet_run();
  both.involuntary = 5000;
  both.wait_s = 0.6;
  judge_host_noise(both);
  EXPECT_EQ(both.causes.size(), 2u);
  EXPECT_NE(host_noise_warning(both, "client").find("times (5.0% of samples) and waited for"),
            std::string::npos)
      << host_noise_warning(both, "client");
}

TEST(HostNoise, JsonRoundTripAndHostileInput) {
  HostNoise n = quiet_run();
  n.involuntary = 900;
  n.operations = 1000;
  n.pressure_pct = 33;
  n.pollers = 1;
  judge_host_noise(n);
  nlohmann::json j = n.to_json();
  EXPECT_EQ(j["verdict"], "noisy");
  EXPECT_EQ(j["causes"][0]["cause"], "preempted");
  HostNoise back = HostNoise::from_json(j);
  EXPECT_EQ(back.involuntary, 900u);
  EXPECT_DOUBLE_EQ(back.wait_s, 0.3);
  EXPECT_DOUBLE_EQ(back.pressure_pct, 33);
  judge_host_noise(back);
  EXPECT_TRUE(back.noisy());
  // Wrong types and absurd values read as absent, never as a crash.
  HostNoise bad = HostNoise::from_json({{"involuntary_switches", "many"},
                                        {"threads", -5},
                                        {"cpu_wait_s", 1e300},
                                        {"real_s", nullptr}});
  EXPECT_EQ(bad.involuntary, 0u);
  EXPECT_EQ(bad.threads, 1u);
  EXPECT_FALSE(HostNoise::from_json(nlohmann::json::array()).measured);
}

const TestSpec& test_named(const char* name) { return *all_tests().find(name); }

RunOptions side(bool poll, const char* cpu) {
  RunOptions o = default_run_options();
  o.cq_poll = poll;
  o.cpu_affinity = cpu;
  return o;
}

// CPUs 0 .. n-1.
CpuSet first_cpus(int n) {
  CpuSet out;
  for (int c = 0; c < n; ++c) out.insert(c);
  return out;
}

TEST(PollerCheck, TwoPollersOnOneCpuWarnBeforeTheRun) {
  const TestSpec& lat = test_named("tcp_lat");
  const CpuSet two = first_cpus(2), one = first_cpus(1), unsaid;
  // Both sides on this host pinned to CPU 0 and spinning.
  std::string w = poller_warning(lat, side(true, "0"), side(true, "0"), true, two, unsaid);
  EXPECT_NE(w.find("2 busy-polling threads (client 1, server 1) on 1 CPU"), std::string::npos) << w;
  // Each its own CPU, or on different hosts, or blocking: nothing to say.
  EXPECT_EQ(poller_warning(lat, side(true, "0"), side(true, "1"), true, two, unsaid), "");
  EXPECT_EQ(poller_warning(lat, side(true, "0"), side(true, "0"), false, two, unsaid), "");
  EXPECT_EQ(poller_warning(lat, side(false, "0"), side(true, "0"), true, two, unsaid), "");
  EXPECT_EQ(poller_warning(lat, side(true, ""), side(true, ""), true, two, unsaid), "");
  // More pollers than CPUs: both sides unpinned on one CPU, or four streams on two.
  EXPECT_NE(poller_warning(lat, side(true, ""), side(true, ""), true, one, unsaid), "");
  RunOptions four = side(true, "");
  four.streams = 4;
  EXPECT_NE(poller_warning(test_named("tcp_bw"), four, side(false, ""), false, two, unsaid)
                .find("4 busy-polling client threads on 2 CPUs"),
            std::string::npos);
  EXPECT_EQ(poller_warning(test_named("conf"), side(true, "0"), side(true, "0"), true, one, unsaid),
            "");
}

// Sides kept apart from outside (taskset), without -lca/-rca: the server's WELCOME says which
// CPUs it may use, and two sides with one CPU each, different ones, share none.
TEST(PollerCheck, SidesKeptApartByTasksetShareNoCpu) {
  const TestSpec& lat = test_named("tcp_lat");
  const CpuSet cpu0 = {0}, cpu1 = {1};
  EXPECT_EQ(poller_warning(lat, side(true, ""), side(true, ""), true, cpu0, cpu1), "");
  // The same CPU on both: one CPU for two pollers.
  EXPECT_NE(poller_warning(lat, side(true, ""), side(true, ""), true, cpu0, cpu0)
                .find("2 busy-polling threads (client 1, server 1) on 1 CPU"),
            std::string::npos);
  // A server that did not say (an older one) is taken to have this side's CPUs, as before.
  EXPECT_NE(poller_warning(lat, side(true, ""), side(true, ""), true, cpu0, {}), "");
  // Another host whose server has one CPU for a two-way test's two pollers.
  RunOptions server = side(true, "");
  EXPECT_NE(poller_warning(test_named("tcp_bi_bw"), side(false, ""), server, false, cpu0, cpu1)
                .find("2 busy-polling server threads on 1 CPU"),
            std::string::npos);
}

TEST(PollerCheck, CpuListsRoundTripAndBadOnesReadAsUnsaid) {
  EXPECT_EQ(cpu_list_text({0, 1, 2, 3, 8, 10, 11}), "0-3,8,10-11");
  EXPECT_EQ(cpu_list_text({}), "");
  EXPECT_EQ(parse_cpu_list("0-3,8,10-11"), (CpuSet{0, 1, 2, 3, 8, 10, 11}));
  EXPECT_EQ(parse_cpu_list("5"), (CpuSet{5}));
  for (const char* bad : {"", "a", "1-", "3-1", "1,,2", "1,", "-1", "0-999999", "1 2", "70000"}) {
    EXPECT_TRUE(parse_cpu_list(bad).empty()) << bad;
  }
  const CpuSet here = cpus_allowed_set();
  EXPECT_FALSE(here.empty());
  EXPECT_EQ(parse_cpu_list(cpu_list_text(here)), here);
  EXPECT_EQ(static_cast<int>(here.size()), cpus_allowed());
}

}  // namespace
}  // namespace fabperf
