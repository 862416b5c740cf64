// The pieces that make the fab_* tools measure as the originals: their latency gap, the cycle
// clock and its frequency check, the heatsink's NUMA cores and board, fab_stat -r's figures.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/cycle_clock.h"
#include "core/environment.h"
#include "cxi/heatsink.h"
#include "cxi/stat_rates.h"
#include "engine/latency_loop.h"

namespace fabperf::cxi {
namespace {

// active_sleep with a clock read costing 25 ns: the sum of the elapsed times reaches 1000 us
// after n reads with 25 * n(n+1)/2 >= 1e6, n = 283: 7.075 us, not 1000.
TEST(CxiDropIn, OriginalGapSpinsSqrtOfTheGap) {
  int64_t clock = 0;
  auto fake = [&] { return clock += 25; };
  EXPECT_EQ(spin_like_originals(1'000'000, fake), 283 * 25);
  clock = 0;
  // Ten times the gap: about sqrt(10) times the spin (894 reads).
  EXPECT_EQ(spin_like_originals(10'000'000, fake), 894 * 25);
  clock = 0;
  EXPECT_EQ(spin_like_originals(0, fake), 0);
}

TEST(CxiDropIn, GapRecordSaysWhatRan) {
  GapRecord g{true, 1'000'000, 70'000, 10};
  nlohmann::json j = g.to_json();
  EXPECT_EQ(j["mode"], "original");
  EXPECT_EQ(j["asked_us"], 1000);
  EXPECT_DOUBLE_EQ(j["mean_us"].get<double>(), 7.0);
  EXPECT_EQ(j["gaps"], 10);
  EXPECT_EQ(GapRecord{}.to_json()["mode"], "exact");
}

TEST(CxiDropIn, CycleClockFollowsTheMonotonicClock) {
  if (!cycles_available()) GTEST_SKIP() << "no cycle counter on this CPU";
  auto clock = CycleClock::calibrate();
  ASSERT_TRUE(clock.ok()) << clock.status().message();
  EXPECT_GT(clock->ghz(), 0.01);
  EXPECT_NE(clock->describe().find("calibrated against CLOCK_MONOTONIC_RAW"), std::string::npos);
  // Ordered with the clock it was fitted to: a cycle reading taken between two clock reads
  // converts to a time between them, within the fit's slack (a millisecond is generous).
  int64_t before = now_ns();
  int64_t cycles_ns = clock->now_ns();
  int64_t after = now_ns();
  EXPECT_GT(cycles_ns, before - 1'000'000);
  EXPECT_LT(cycles_ns, after + 1'000'000);
}

// get_clock.c's check: "cpu MHz" lines more than 2% apart.
TEST(CxiDropIn, CpuFrequencyMismatch) {
  EXPECT_EQ(cpu_frequency_mismatch("processor\t: 0\ncpu MHz\t\t: 2000.000\nprocessor\t: 1\n"
                                   "cpu MHz\t\t: 2010.000\n"),
            "");
  EXPECT_EQ(cpu_frequency_mismatch("cpu MHz\t\t: 2000.000\ncpu MHz\t\t: 3000.000\n"),
            "Conflicting CPU frequency values detected: 2000.000000 != 3000.000000. CPU "
            "Frequency is not max.");
  EXPECT_EQ(cpu_frequency_mismatch("no frequencies here\n"), "");
}

// A sysfs tree of its own, FABPERF_SYSFS_ROOT (core/environment.h) while the test runs.
class SysfsTree {
 public:
  SysfsTree()
      : root_("/tmp/fabperf_unit_sysfs_" + std::to_string(getpid())), env_(with_root(root_)) {
    std::system(("rm -rf " + root_).c_str());
  }
  ~SysfsTree() { std::system(("rm -rf " + root_).c_str()); }
  void file(const std::string& rel, const std::string& text) {
    std::string path = root_ + "/" + rel;
    std::system(("mkdir -p " + path.substr(0, path.rfind('/'))).c_str());
    std::ofstream(path) << text << "\n";
  }
  std::string path(const std::string& rel) const { return root_ + "/" + rel; }

 private:
  static Environment with_root(const std::string& root) {
    Environment env = environment();
    env.sysfs_root = root;
    return env;
  }
  std::string root_;
  EnvironmentOverride env_;
};

// Two sockets of two NUMA nodes; node 0 and 1 on package 0, with hyper-threads (cpu N+8 the
// sibling of cpu N); a NIC on node 1.
void two_socket_host(SysfsTree& t) {
  t.file("devices/system/node/node0/cpulist", "0-1,8-9");
  t.file("devices/system/node/node1/cpulist", "2-3,10-11");
  t.file("devices/system/node/node2/cpulist", "4-5,12-13");
  t.file("devices/system/node/node3/cpulist", "");  // no CPUs: left out
  for (int cpu = 0; cpu < 16; ++cpu) {
    int core = cpu % 8;
    t.file("devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/physical_package_id",
           core < 4 ? "0" : "1");
    t.file("devices/system/cpu/cpu" + std::to_string(cpu) + "/topology/thread_siblings_list",
           std::to_string(core) + "," + std::to_string(core + 8));
  }
  t.file("nic/numa_node", "1");
}

// get_proc_affinities: the socket's nodes in turn (node 0's and node 1's cores, one thread
// each), never the other socket's.
TEST(CxiDropIn, HeatsinkPinsToTheNicsSocketCores) {
  SysfsTree t;
  two_socket_host(t);
  EXPECT_EQ(numa_cpus(t.path("nic"), "hsn0", 2), (std::vector<int>{0, 2}));
  EXPECT_EQ(numa_cpus(t.path("nic"), "hsn0", 16), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(cpu_list_text(numa_cpus(t.path("nic"), "hsn0", 16)), "0-3");
  // Two cxi NICs on the socket's nodes take alternate cores.
  t.file("class/cxi/cxi0/device/numa_node", "0");
  t.file("class/cxi/cxi1/device/numa_node", "1");
  EXPECT_EQ(numa_cpus(t.path("nic"), "cxi1", 16), (std::vector<int>{1, 3}));
  EXPECT_EQ(numa_cpus(t.path("nic"), "cxi0", 16), (std::vector<int>{0, 2}));
  // No NUMA node: not pinned.
  t.file("nic/numa_node", "-1");
  EXPECT_TRUE(numa_cpus(t.path("nic"), "hsn0", 4).empty());
  EXPECT_TRUE(numa_cpus("", "lo", 4).empty());
}

TEST(CxiDropIn, CpuListText) {
  EXPECT_EQ(cpu_list_text({8, 0, 1, 2, 3, 10}), "0-3,8,10");
  EXPECT_EQ(cpu_list_text({5}), "5");
  auto parsed = parse_cpu_list("0-3,8");
  ASSERT_TRUE(parsed.ok());
  EXPECT_EQ(cpu_list_text(*parsed), "0-3,8");
}

TEST(CxiDropIn, BoardTypeByPartNumber) {
  SysfsTree t;
  t.file("cxi0/fru/part_number", "P43012-001");
  EXPECT_EQ(board_type(t.path("cxi0")), "Sawtooth");
  t.file("cxi0/fru/part_number", "102325100-A");
  EXPECT_EQ(board_type(t.path("cxi0")), "Brazos");
  t.file("cxi0/fru/part_number", "P99999-001");
  EXPECT_EQ(board_type(t.path("cxi0")), "Unknown");
  EXPECT_EQ(board_type(t.path("none")), "Unknown");
}

// cxi_stat -r: codeword rates, BER against the link speed ("<" the smallest the pause shows
// when nothing was corrected), pause per PCP as a share of the 1 GHz clock.
TEST(CxiDropIn, LinkRatesReport) {
  SysfsTree t;
  const std::string dev = "class/cxi/cxi0/device";
  t.file(dev + "/telemetry/hni_pcs_good_cw", "1000@10.0");
  t.file(dev + "/telemetry/hni_pcs_corrected_cw", "0@10.0");
  t.file(dev + "/telemetry/hni_pcs_uncorrected_cw", "0@10.0");
  for (int i = 0; i < 8; ++i) {
    t.file(dev + "/telemetry/hni_rx_paused_" + std::to_string(i), "0@10.0");
    t.file(dev + "/telemetry/hni_tx_paused_" + std::to_string(i), "0@10.0");
  }
  LinkCounters first = LinkCounters::read(t.path(dev));
  ASSERT_TRUE(first.any());
  t.file(dev + "/telemetry/hni_pcs_good_cw", "3000@12.0");
  t.file(dev + "/telemetry/hni_pcs_corrected_cw", "425@12.0");
  t.file(dev + "/telemetry/hni_rx_paused_3", "500000000@12.0");  // half a second of 2
  std::string r = first.report(LinkCounters::read(t.path(dev)), 2, "BS_200G", "pfc");
  EXPECT_NE(r.find("    Rates:\n        Good CW: 1000.00/s\n        Corrected CW: 212.50/s\n"
                   "        Uncorrected CW: 0.00/s\n        Corrected BER: 1.000e-09\n"
                   "        Uncorrected BER: <2.353e-12\n        TX Pause state: pfc\n"
                   "        RX Pause state: pfc\n"),
            std::string::npos)
      << r;
  EXPECT_NE(r.find("            RX Pause PCP 3: 25.0%\n            TX Pause PCP 3: 0.0%\n"),
            std::string::npos)
      << r;
  EXPECT_EQ(LinkCounters::read(t.path("nothing")).report(first, 2, "", ""),
            "    Rates:\n        N/A (no link counters for this device; --traffic shows its "
            "traffic)\n");
  EXPECT_DOUBLE_EQ(rate_to_ber(425, "CK_400G"), 1e-9);
  EXPECT_DOUBLE_EQ(rate_to_ber(5, "unknown"), 0);
}

}  // namespace
}  // namespace fabperf::cxi
