// End-to-end: the fab_* links as a user runs them, server and client processes on 127.0.0.1,
// over the tcp and shm providers.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "core/text.h"
#include "e2e_cxi_util.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "net/control.h"
#include "options/option_table.h"
#include "session_child_util.h"

namespace fabperf::testing {
namespace {

struct BadInput {
  const char* tool;
  std::vector<std::string> args;
  const char* message;
};

// CTest lists each case by its command line, not by its bytes.
void PrintTo(const BadInput& c, std::ostream* os) {
  *os << c.tool;
  for (const std::string& a : c.args) *os << " " << a;
}

class E2eCxiBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(E2eCxiBadInput, OriginalsMessageAndExit1) {
  const BadInput& c = GetParam();
  RunOutput r = tool(c.tool, c.args, 20);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, c.message)) << r.err;
  EXPECT_EQ(r.out, "");
}

INSTANTIATE_TEST_SUITE_P(
    Validation, E2eCxiBadInput,
    ::testing::Values(
        BadInput{"fab_write_lat",
                 {"127.0.0.1", "-s", "3:1000"},
                 "Invalid size: 3:1000 (ranges must be powers of 2)"},
        BadInput{"fab_read_bw", {"127.0.0.1", "-s", "0"}, "Invalid size: 0"},
        BadInput{"fab_write_lat", {"127.0.0.1", "-n", "0"}, "Invalid iteration count"},
        BadInput{"fab_send_bw", {"127.0.0.1", "--iters=0"}, "Invalid iteration count"},
        BadInput{"fab_write_lat", {"127.0.0.1", "-D", "0"}, "Invalid duration"},
        BadInput{"fab_write_lat", {"-p", "70000"}, "Invalid port"},
        BadInput{"fab_send_lat",
                 {"127.0.0.1", "--use-hp", "3M"},
                 "Invalid hugepage type: 3M (3M is not one of 2M, 1G)"},
        BadInput{"fab_write_lat", {"127.0.0.1", "--latency-gap=soon"}, "Invalid iteration gap"},
        BadInput{"fab_write_lat", {"127.0.0.1", "extra"}, "Unexpected argument: extra"},
        BadInput{"fab_write_lat", {"--no-such"}, "unrecognized option '--no-such'"},
        BadInput{"fab_write_lat",
                 {"127.0.0.1", "-t", "0", "-g", "AMD", "-p", "1"},
                 "GPU runtime for AMD not found: libamdhip64.so"},
        BadInput{"fab_write_lat",
                 {"127.0.0.1", "-t", "0", "-g", "INTEL", "-p", "1"},
                 "GPU runtime for INTEL not found: libze_loader.so"},
        BadInput{"fab_write_lat",
                 {"127.0.0.1", "-p", "1"},
                 "fab_write_lat: failed to connect to 127.0.0.1 port 1"}),
    [](const ::testing::TestParamInfo<BadInput>& info) {
      return std::string(info.param.tool).substr(4) + "_case" + std::to_string(info.index);
    });

TEST(E2eCxi, AtomicOpAndTypeMustFit) {
  RunOutput r = tool("fab_atomic_lat", {"127.0.0.1", "-p", "1", "-A", "BAND", "-T", "FLOAT"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "Invalid Op and Type combination: BAND FLOAT")) << r.err;
  r = tool("fab_atomic_bw", {"127.0.0.1", "-p", "1", "-A", "NAND"});
  EXPECT_TRUE(contains(r.err, "Invalid atomic operation: NAND")) << r.err;
}

TEST(E2eCxi, NoGpuDeviceIsSaid) {
  // Without -g the type comes from device files; this machine has none.
  struct stat st {};
  if (stat("/dev/nvidia0", &st) == 0 || stat("/dev/kfd", &st) == 0) GTEST_SKIP() << "a GPU is here";
  RunOutput r = tool("fab_write_lat", {"127.0.0.1", "-t", "0", "-p", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no GPU found")) << r.err;
  // A CUDA runtime without a device (installed here or not): one of the two named failures.
  // A read's initiator buffer is its -t, as in cxi_read_lat.
  r = tool("fab_read_lat", {"127.0.0.1", "-t", "0", "-g", "NVIDIA", "-p", "1"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "GPU runtime for NVIDIA not found") ||
              contains(r.err, "no NVIDIA GPU"))
      << r.err;
  // A server's own -r: said when it starts, before it listens.
  r = tool("fab_write_lat", {"-r", "0", "-g", "NVIDIA", "-p", std::to_string(free_port())});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "GPU runtime for NVIDIA not found") ||
              contains(r.err, "no NVIDIA GPU"))
      << r.err;
}

TEST(E2eCxi, HelpAndVersion) {
  RunOutput r = tool("fab_write_lat", {"-h"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "--latency-gap")) << r.out;
  r = tool("fab_stat", {"-V"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(contains(r.out, "fab_stat version: ")) << r.out;
}

// The fab_* servers share fabperf's session: the allow-list and the key apply, a refused
// client does not use up a one-client server, and the one it serves ends it as the originals.
TEST(E2eCxi, ServerHonoursAllowListAndKey) {
  REQUIRE_RDM();
  std::string key = "/tmp/fabperf_cxi_key_" + std::to_string(getpid());
  {
    std::ofstream f(key);
    f << "0123456789abcdef0123456789abcdef";
  }
  chmod(key.c_str(), 0600);
  CxiServer server("fab_send_lat", {"--allow", "127.0.0.0/8", "--auth-key-file", key});
  RunOutput keyless = tool("fab_send_lat", {"127.0.0.1", "-p", server.port(), "-n", "5"});
  EXPECT_EQ(keyless.exit_code, 1) << keyless.out;
  EXPECT_TRUE(contains(keyless.err, "key")) << keyless.err;
  RunOutput keyed =
      tool("fab_send_lat", {"127.0.0.1", "-p", server.port(), "-n", "5", "--auth-key-file", key});
  EXPECT_EQ(keyed.exit_code, 0) << keyed.err;
  EXPECT_EQ(server.wait(), 0) << server.output();
  CxiServer elsewhere("fab_send_lat", {"--allow", "127.0.0.2/32"});
  RunOutput outsider = tool("fab_send_lat", {"127.0.0.1", "-p", elsewhere.port(), "-n", "5"});
  EXPECT_EQ(outsider.exit_code, 1);
  EXPECT_TRUE(contains(outsider.err, "not in this server's --allow list")) << outsider.err;
  // The server logs a refusal after sending it (Server::refuse), so the client may have
  // exited before the line is written: waited for, not read once (it failed so under ASan).
  EXPECT_TRUE(
      wait_until([&] { return contains(elsewhere.output(), "refused: access denied"); }, 60))
      << elsewhere.output();
  unlink(key.c_str());
}

TEST(E2eCxi, ClientAndServerOfDifferentToolsRefuseEachOther) {
  CxiServer server("fab_read_lat");
  RunOutput r = tool("fab_write_lat", {"127.0.0.1", "-p", server.port(), "-n", "5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "Client and server program names do not match!")) << r.err;
  EXPECT_EQ(server.wait(), 1);
  EXPECT_TRUE(contains(server.output(), "Client and server program names do not match!"))
      << server.output();
}

// Review N7 (D9): a fab_* server printed its client's gpu_type raw, terminal escapes and all.
// A hostile client puts escapes in every string it sends: its tool name, its own options, the
// test's name, and every string parameter. Nothing of them reaches the server's terminal raw:
// what is shown goes through the one escaping function, and string parameters with controls
// are refused by name.
TEST(E2eCxi, NoClientStringReachesTheServersTerminalRaw) {
  REQUIRE_RDM();
  const std::string evil =
      "\x1b]0;owned\x07\x1b[2J\x1b[31m\xc2\x9b"
      "2J\x9b";
  CxiServer server("fab_write_lat", {"--keep"});
  auto session = [&](const std::string& tool, const nlohmann::json& run) {
    int fd = connect_raw(std::stoi(server.port()));
    if (fd < 0) return;
    ControlChannel ch(fd);
    ch.send(MsgType::kHello,
            {{"tool", tool},
             {"version", FABPERF_VERSION},
             {"pid", 1},
             {"options", {{"tx_gpu", 0}, {"rx_gpu", 0}, {"gpu_type", evil}, {"iters", 5}}}})
        .ignore_error();
    if (ch.expect(MsgType::kWelcome, 10).ok() && !run.is_null()) {
      ch.send(MsgType::kRun, run).ignore_error();
      ch.recv(10).status().ignore_error();  // READY or the refusal; then this client vanishes
    }
  };
  session(evil, nullptr);                               // the tool's name
  session("fab_write_lat", {{"test", "rdm_write_lat"},  // its options (gpu_type)
                            {"params", {{"provider", "tcp;ofi_rxm"}, {"no_msgs", 5}}}});
  session("fab_write_lat", {{"test", evil}, {"params", nlohmann::json::object()}});
  int strings = 0;
  for (const OptionSpec& o : option_table()) {
    if (!o.is_run_option() || o.type != OptType::kString) continue;
    ++strings;
    session("fab_write_lat", {{"test", "rdm_write_lat"}, {"params", {{o.name, evil}}}});
  }
  EXPECT_GT(strings, 3);
  std::string out;
  ASSERT_TRUE(wait_until(
      [&] {
        out = server.output();
        return contains(out, "Client GPU Type") && contains(out, "holds control characters");
      },
      60))
      << out;
  for (char bad : {'\x1b', '\x07', '\x9b'}) {
    EXPECT_EQ(out.find(bad), std::string::npos)
        << "byte " << int(static_cast<unsigned char>(bad)) << " in:\n"
        << printable(out, 100000);
  }
  EXPECT_EQ(out.find("\xc2\x9b"), std::string::npos) << printable(out, 100000);
}

const std::regex kLatencyRow(" {0,11}[0-9]+ {1,11}[0-9]+( +[0-9]+\\.[0-9]{2}){4}");
const std::regex kSampleRow(" {0,9}[0-9]+ +[0-9]+\\.[0-9]{3}");
const std::regex kBandwidthRow(" {0,11}[0-9]+ {1,11}[0-9]+ +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{6}");

// The man page's first example: a sweep for one second per size, 11 rows.
TEST(E2eCxi, ManPageExample1Sweep) {
  REQUIRE_RDM();
  CxiServer server("fab_write_lat");
  RunOutput r =
      tool("fab_write_lat", {"127.0.0.1", "-p", server.port(), "-D", "1", "-s", "1:1024"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "    CXI RDMA Write Latency Test\nDevice           : "));
  EXPECT_TRUE(contains(r.out,
                       "Test Type        : Duration\nDuration         : 1 seconds\n"
                       "Warmup Iters     : 10\nInter-Iter Gap   : 1000 microseconds\n"
                       "Min Write Size   : 1\nMax Write Size   : 1024\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "RDMA Size[B]      Writes     Min[us]     Max[us]    Mean[us]  "
                       "StdDev[us]\n           1 "));
  EXPECT_EQ(count_lines(r.out, kLatencyRow), 11) << r.out;
  EXPECT_TRUE(contains(r.out, "        1024 ")) << r.out;
  EXPECT_EQ(server.wait(), 0);
  std::string s = server.output();
  EXPECT_TRUE(contains(s, "Listening on port " + server.port() + " for client to connect...\n"));
  EXPECT_TRUE(contains(s, "Local (server)   : 127.0.0.1 PID ")) << s;
  EXPECT_TRUE(contains(s, "------\nSee client for results.\n------")) << s;
}

// The second example: every sample, then the summary row.
TEST(E2eCxi, ManPageExample2ReportAll) {
  REQUIRE_RDM();
  CxiServer server("fab_write_lat");
  RunOutput r =
      tool("fab_write_lat", {"127.0.0.1", "-p", server.port(), "-n", "5", "--report-all"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Results Reported : All\n"));
  EXPECT_TRUE(contains(r.out, "------\n  WriteNum  Latency[us]\n         0 ")) << r.out;
  EXPECT_EQ(count_lines(r.out, kSampleRow), 5) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("         4 +[0-9.]+\n-{72}\nRDMA Size\\[B\\]")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\n           8           5 ")));
  EXPECT_EQ(server.wait(), 0);
}

// -D with --report-all streams every sample; their count is the table's.
TEST(E2eCxi, DurationWithReportAll) {
  REQUIRE_RDM();
  CxiServer server("fab_read_lat");
  RunOutput r = tool("fab_read_lat", {"127.0.0.1", "-p", server.port(), "-D", "0.5", "--report-all",
                                      "--latency-gap", "10000", "--exact-gap", "-P", "tcp"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.out, m, std::regex("\n +8 +([0-9]+) ")));
  int samples = count_lines(r.out, kSampleRow);
  EXPECT_EQ(std::to_string(samples), m[1].str());
  // --exact-gap: 10 ms between iterations allows at most 50 in half a second (the
  // originals' busy-wait, the default, ends after microseconds, giving thousands).
  EXPECT_GT(samples, 5);
  EXPECT_LE(samples, 51);
}

struct ToolRun {
  const char* tool;
  std::vector<std::string> args;
  bool latency;
};

class E2eCxiTools : public ::testing::TestWithParam<std::tuple<ToolRun, const char*>> {};

TEST_P(E2eCxiTools, ServerAndClientOverProvider) {
  REQUIRE_RDM();
  const auto& [t, provider] = GetParam();
  CxiServer server(t.tool);
  std::vector<std::string> args = {"127.0.0.1", "-p", server.port(), "--provider", provider};
  args.insert(args.end(), t.args.begin(), t.args.end());
  RunOutput r = tool(t.tool, args);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, std::string("(") + provider)) << r.out;
  EXPECT_EQ(
      count_lines(
          r.out,
          t.latency
              ? kLatencyRow
              : std::regex(" {0,11}[0-9]+ {1,11}[0-9]+ +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{6}")),
      1)
      << r.out;
  EXPECT_EQ(server.wait(), 0);
  std::string s = server.output();
  if (t.latency) {
    EXPECT_TRUE(contains(s, "See client for results.")) << s;
  } else {
    // Bandwidth: the server prints the figures too; its count column is "-" unless the run
    // is bidirectional (each side's own writes), as the originals'.
    bool bi = std::find(t.args.begin(), t.args.end(), "-b") != t.args.end();
    EXPECT_EQ(count_lines(s, kBandwidthRow), bi ? 1 : 0) << s;
    EXPECT_EQ(
        count_lines(s, std::regex(" {0,11}[0-9]+  {10}-  +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{6}")),
        bi ? 0 : 1)
        << s;
    EXPECT_TRUE(contains(s, std::string(51, '-') + "\n")) << s;
  }
}

INSTANTIATE_TEST_SUITE_P(
    EveryTool, E2eCxiTools,
    ::testing::Combine(
        ::testing::Values(ToolRun{"fab_write_lat", {"-n", "20", "--latency-gap", "0"}, true},
                          ToolRun{"fab_read_lat", {"-n", "20", "-s", "64"}, true},
                          ToolRun{"fab_send_lat", {"-n", "20", "--warmup", "2"}, true},
                          ToolRun{"fab_atomic_lat", {"-n", "20", "-A", "MIN", "-T", "INT32"}, true},
                          ToolRun{"fab_write_bw", {"-n", "20", "-l", "16", "-s", "4096"}, false},
                          ToolRun{"fab_write_bw", {"-n", "20", "-l", "16", "-b"}, false},
                          ToolRun{"fab_read_bw", {"-n", "20", "-l", "16"}, false},
                          ToolRun{"fab_send_bw", {"-n", "20", "-l", "16"}, false},
                          ToolRun{"fab_send_bw", {"-n", "20", "-l", "16", "-b"}, false},
                          ToolRun{"fab_atomic_bw", {"-n", "20", "-l", "64", "--fetching"}, false}),
        ::testing::Values("tcp", "shm")),
    [](const auto& info) {
      const ToolRun& t = std::get<0>(info.param);
      bool bi = std::find(t.args.begin(), t.args.end(), "-b") != t.args.end();
      return std::string(t.tool).substr(4) + (bi ? "_bi_" : "_") + std::get<1>(info.param);
    });

TEST(E2eCxi, PercentilesAndJson) {
  REQUIRE_RDM();
  CxiServer server("fab_send_lat");
  RunOutput r = tool("fab_send_lat", {"127.0.0.1", "-p", server.port(), "-n", "50", "-s", "1:4",
                                      "--percentiles", "50,99", "--json", "-", "-P", "shm"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "StdDev[us]     P50[us]     P99[us]\n")) << r.out;
  size_t brace = r.out.find("\n{");
  ASSERT_NE(brace, std::string::npos) << r.out;
  auto j = nlohmann::json::parse(r.out.substr(brace + 1), nullptr, false);
  ASSERT_FALSE(j.is_discarded()) << r.out;
  ASSERT_EQ(j["results"].size(), 3u);
  EXPECT_EQ(j["results"][0]["test"], "rdm_send_lat");
  EXPECT_EQ(j["results"][0]["latency_ns"]["samples"], 50);
  EXPECT_EQ(j["results"][2]["params"]["msg_size"], 4);
}

TEST(E2eCxi, LoopbackBandwidth) {
  REQUIRE_RDM();
  for (const char* provider : {"tcp", "shm"}) {
    RunOutput r =
        tool("fab_loopback_bw", {"-i", "2", "-n", "32", "-s", "4096", "--provider", provider});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, std::string(51, '-') +
                                    "\nRDMA Size[B]      Writes  BW[Gb/s]  PktRate[Mpkt/s]\n"
                                    "        4096          64 "))
        << r.out;
  }
}

// fab_heatsink_check over tcp on lo with $FABPERF_SYSFS_ROOT at `fake`.
RunOutput heatsink(const FakeSysfs& fake, std::vector<std::string> args) {
  std::vector<std::string> all = {"-P", "1", "-l", "16", "--provider", "tcp", "-d", "lo"};
  all.insert(all.end(), args.begin(), args.end());
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  RunOutput r = tool("fab_heatsink_check", all, 120);
  unsetenv("FABPERF_SYSFS_ROOT");
  return r;
}

// The original's verdict lines: "%-*s  %-*s" then PASS/FAIL (criteria 50, result 13), power
// and unjudged lines one narrower each and "----".
std::string verdict(const std::string& criteria, const std::string& result, const char* v) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s  %-*s%s\n", 50, criteria.c_str(), 13, result.c_str(), v);
  return buf;
}
std::string unjudged(const std::string& criteria, const std::string& result) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-*s  %-*s----\n", 49, criteria.c_str(), 12, result.c_str());
  return buf;
}
const std::string kDeg =
    "\xC2\xB0"
    "C";

// Only the NIC's own chip counts: a hot CPU package and an NVMe drive elsewhere are ignored.
TEST(E2eCxi, HeatsinkCheckJudgesTheNicsOwnSensors) {
  REQUIRE_RDM();
  FakeSysfs fake;
  fake.chip("hwmon0", "coretemp", "", {{"temp1", "Package id 0", "99000"}});
  fake.chip("hwmon1", "nvme", "0000:00:04.0", {{"temp1", "Composite", "98000"}});
  fake.chip(
      "hwmon2", "cxi0", "0000:00:03.0",
      {{"temp1", "Cassini 0 Temperature", "69000"}, {"power1", "0.85V S0 Power", "25000000"}});
  RunOutput r = heatsink(fake, {"-D", "2", "-i", "1", "-s", "65536"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // "%*s  %*s  %*s  %*s" with TIME_W 7, RATE_W 10, VDD_W 6, TEMPS_W 10; dashes as wide.
  const std::string header = "Time[s]  Rate[GB/s]  VDD[W]  ASIC_0[" + kDeg + "]";
  EXPECT_TRUE(contains(r.out, std::string(39, '-') + "\n" + header + "\n")) << r.out;
  EXPECT_TRUE(contains(r.out, std::string(39, '-') + "\n    CXI Heatsink Test\n"
                                                     "Device          : lo (tcp;ofi_rxm)\n"))
      << r.out;
  EXPECT_TRUE(contains(r.out,
                       "TX/RX Processes : 1\nProcessor List  : Not pinned\n"
                       "RDMA Write Size : 65536\nList Size       : 16\n"))
      << r.out;
  // Rows "%7lu  %10.2Lf  %6d  %10d", one per interval, the rate measured (traffic flows).
  EXPECT_EQ(count_lines(r.out, std::regex("      [12]  +[0-9]+\\.[0-9]{2}      25          69")), 2)
      << r.out;
  // The writes ran: some interval moved data (65536-byte writes show at 0.01 GB/s).
  EXPECT_LT(count_lines(r.out, std::regex("      [12]        0\\.00 .*")), 2) << r.out;
  EXPECT_TRUE(contains(r.out, verdict("Cassini 0 Temperature (ASIC_0) under 85 " + kDeg + ":",
                                      "69 " + kDeg, "PASS") +
                                  unjudged("0.85V S0 Power (VDD):", "25 W")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nAverage BW: +[0-9]+\\.[0-9]{2} GB/s +----\n")))
      << r.out;
  // The other chips' readings in no verdict and no column (the rows above hold 69 alone); a
  // bare "98" would also match a measured rate such as 0.98 GB/s.
  EXPECT_FALSE(contains(r.out, "99 " + kDeg)) << r.out;
  EXPECT_FALSE(contains(r.out, "98 " + kDeg)) << r.out;
  EXPECT_FALSE(contains(r.out, "Package id")) << r.out;
  EXPECT_FALSE(contains(r.out, "Composite")) << r.out;

  // A bandwidth target it cannot reach: "Average BW over X GB/s:" and exit 2.
  RunOutput slow = heatsink(fake, {"-D", "1", "-i", "1", "--min-rate", "1000000"});
  EXPECT_EQ(slow.exit_code, 2) << slow.err << slow.out;
  EXPECT_TRUE(std::regex_search(
      slow.out, std::regex("\nAverage BW over 1e\\+06 GB/s: +[0-9.]+ GB/s +FAIL\n")))
      << slow.out;
}

// Each known sensor has the original's limit: ASIC 85, QSFP_VR 125, QSFP_INT 70.
TEST(E2eCxi, HeatsinkCheckPerSensorLimits) {
  REQUIRE_RDM();
  FakeSysfs fake;
  fake.chip("hwmon3", "cxi0", "0000:00:03.0",
            {{"temp1", "Cassini 0 Temperature", "86000"},
             {"temp2", "3.3V QSFP VR Temperature", "120000"},
             {"temp3", "QSFP Internal Temperature", "71000"},
             {"temp4", "Board", "50000"}});
  RunOutput r = heatsink(fake, {"-D", "1", "-i", "1", "--max-temp", "60"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "Time[s]  Rate[GB/s]  ASIC_0[" + kDeg + "]  QSFP_VR[" + kDeg +
                                  "]  QSFP_INT[" + kDeg + "]  Board[" + kDeg + "]\n"))
      << r.out;
  EXPECT_TRUE(contains(
      r.out,
      verdict("Cassini 0 Temperature (ASIC_0) under 85 " + kDeg + ":", "86 " + kDeg, "FAIL") +
          verdict("3.3V QSFP VR Temperature (QSFP_VR) under 125 " + kDeg + ":", "120 " + kDeg,
                  "PASS") +
          verdict("QSFP Internal Temperature (QSFP_INT) under 70 " + kDeg + ":", "71 " + kDeg,
                  "FAIL") +
          // a sensor the original does not name: --max-temp
          verdict("Board under 60 " + kDeg + ":", "50 " + kDeg, "PASS")))
      << r.out;
}

// At the abort limit (ASIC 90) the run stops at once, as the original's over-temperature check.
TEST(E2eCxi, HeatsinkCheckStopsAboveTheAbortLimit) {
  REQUIRE_RDM();
  FakeSysfs fake;
  fake.chip("hwmon2", "cxi0", "0000:00:03.0", {{"temp1", "Cassini 0 Temperature", "95000"}});
  RunOutput r = heatsink(fake, {"-D", "600", "-i", "1"});
  EXPECT_EQ(r.exit_code, 2) << r.err << r.out;
  EXPECT_FALSE(r.timed_out);
  EXPECT_TRUE(
      contains(r.out, "\nError! Cassini 0 Temperature has exceeded safe range. Exiting early.\n"))
      << r.out;
  EXPECT_EQ(count_lines(r.out, std::regex(" +[0-9]+  +[0-9]+\\.[0-9]{2}  +95")), 1) << r.out;
  EXPECT_TRUE(contains(r.out, verdict("Cassini 0 Temperature (ASIC_0) under 85 " + kDeg + ":",
                                      "95 " + kDeg, "FAIL")))
      << r.out;
}

// No sensor of the device's own: an error, exit 1, before any traffic (the original: "failed
// to find cxiN").
TEST(E2eCxi, HeatsinkCheckWithoutTheDevicesSensorsFails) {
  REQUIRE_RDM();
  FakeSysfs fake;
  fake.chip("hwmon0", "coretemp", "", {{"temp1", "Package id 0", "50000"}});
  fake.chip("hwmon1", "nvme", "0000:00:04.0", {{"temp1", "Composite", "40000"}});
  RunOutput r = heatsink(fake, {"-D", "1", "-i", "1"});
  EXPECT_EQ(r.exit_code, 1) << r.err << r.out;
  EXPECT_TRUE(contains(r.err, "no temperature or power sensor of device lo")) << r.err;
  EXPECT_FALSE(contains(r.out, "Rate[GB/s]")) << r.out;
  // And without any hwmon tree at all.
  setenv("FABPERF_HWMON_ROOT", "/nonexistent-hwmon", 1);
  RunOutput none = heatsink(fake, {"-D", "1", "-i", "1"});
  unsetenv("FABPERF_HWMON_ROOT");
  EXPECT_EQ(none.exit_code, 1) << none.err << none.out;
  EXPECT_TRUE(contains(none.err, "under /nonexistent-hwmon")) << none.err;
}

// -c: one worker per listed CPU, pinned (-P ignored); a bad list is refused.
TEST(E2eCxi, HeatsinkCheckCpuList) {
  REQUIRE_RDM();
  FakeSysfs fake;
  fake.chip("hwmon2", "cxi0", "0000:00:03.0", {{"temp1", "Cassini 0 Temperature", "60000"}});
  RunOutput r = heatsink(fake, {"-D", "1", "-i", "1", "-c", "0", "-P", "3"});
  EXPECT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.out, "TX/RX Processes : 1\nProcessor List  : 0\n")) << r.out;
  RunOutput bad = heatsink(fake, {"-D", "1", "-c", "1-x"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "Invalid CPU list: 1-x")) << bad.err;
}

TEST(E2eCxi, FabperfListsFabrics) {
  RunOutput r = run({"--list-fabrics"}, 30);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "provider         endpoints      domain     fabric")) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nshm +rdm +shm +"))) << r.out;
  // Every provider, whatever its endpoint types: tcp and udp serve the rc_* and ud_* tests.
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\ntcp +msg"))) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("\nudp +dgram"))) << r.out;
  EXPECT_EQ(run({"--list_fabrics"}, 30).out, r.out);
}

TEST(E2eCxi, WithoutLibfabricEachToolSaysSo) {
  setenv("FABPERF_LIBFABRIC", "/nonexistent/libfabric.so.1", 1);
  RunOutput stat = tool("fab_stat", {});
  RunOutput lat = tool("fab_write_lat", {"127.0.0.1", "-p", "1"});
  unsetenv("FABPERF_LIBFABRIC");
  EXPECT_EQ(stat.exit_code, 1);
  EXPECT_TRUE(contains(stat.err, "libfabric not found: /nonexistent/libfabric.so.1")) << stat.err;
  EXPECT_EQ(lat.exit_code, 1);
  EXPECT_TRUE(contains(lat.err, "libfabric not found: /nonexistent/libfabric.so.1")) << lat.err;
}

TEST(E2eCxi, StatListsDomains) {
  RunOutput r = tool("fab_stat", {});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("^Device: \\S+\n    Description: ")));
  EXPECT_TRUE(contains(r.out, "        Link MTU: ")) << r.out;
  EXPECT_TRUE(contains(r.out, "        Link state: ")) << r.out;
  RunOutput none = tool("fab_stat", {"-d", "nosuchdev"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(contains(none.err, "Device nosuchdev not found"));
}

// On this machine: -l names each device once (however many providers offer it), bare; -m
// one bare MAC a line.
TEST(E2eCxi, StatListsEachDeviceOnceBare) {
  RunOutput l = tool("fab_stat", {"-l"});
  ASSERT_EQ(l.exit_code, 0) << l.err;
  std::istringstream in(l.out);
  std::set<std::string> seen;
  for (std::string line; std::getline(in, line);) {
    EXPECT_TRUE(std::regex_match(line, std::regex("[^ ()]+"))) << line;
    EXPECT_TRUE(seen.insert(line).second) << line << " listed twice:\n" << l.out;
  }
  EXPECT_TRUE(seen.count("lo")) << l.out;
  // fabperf --list-fabrics lists lo once per provider; fab_stat -l once.
  RunOutput fabrics = run({"--list-fabrics"}, 30);
  EXPECT_GT(count_lines(fabrics.out, std::regex(".* lo .*")), 1) << fabrics.out;
  RunOutput full = tool("fab_stat", {});
  EXPECT_EQ(count_lines(full.out, std::regex("Device: lo")), 1) << full.out;
  RunOutput m = tool("fab_stat", {"-m"});
  ASSERT_EQ(m.exit_code, 0) << m.err;
  std::istringstream macs(m.out);
  for (std::string line; std::getline(macs, line);) {
    EXPECT_TRUE(std::regex_match(line, std::regex("[0-9a-f]{2}(:[0-9a-f]{2})+"))) << line;
  }
  EXPECT_EQ(tool("fab_stat", {"-m", "-d", "lo"}).out, "00:00:00:00:00:00\n");
  EXPECT_EQ(tool("fab_stat", {"-l", "-d", "lo", "--provider", "tcp"}).out, "lo\n");
  RunOutput traffic = tool("fab_stat", {"--traffic", "-p", "0.2", "-d", "lo"});
  EXPECT_TRUE(contains(traffic.out, "lo traffic over 0.2 s:\n    RX: ")) << traffic.out;
  RunOutput rates = tool("fab_stat", {"-r", "-p", "0.2", "-d", "lo"});
  EXPECT_TRUE(
      contains(rates.out, "        Link state: unknown\n    Rates:\n        N/A (no link counters"))
      << rates.out;
}

// Over a fake sysfs tree: the MAC, PCI and link fields of an interface, byte for byte.
TEST(E2eCxi, StatReadsSysfs) {
  FakeSysfs fake;
  fake.file("class/net/lo/address", "02:00:00:00:00:07");
  fake.file("class/net/lo/mtu", "9000");
  fake.file("class/net/lo/speed", "100000");
  fake.file("class/net/lo/operstate", "up");
  fake.file("devices/pci0000:00/0000:00:03.0/current_link_speed", "16.0 GT/s PCIe");
  fake.file("devices/pci0000:00/0000:00:03.0/current_link_width", "16");
  fake.file("devices/pci0000:00/0000:00:03.0/aer_dev_fatal", "Undefined 0\nTOTAL_ERR_FATAL 0");
  fake.dir("bus/pci/drivers/mlx5_core");
  fake.link("devices/pci0000:00/0000:00:03.0/driver", "../../../bus/pci/drivers/mlx5_core");
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  RunOutput l = tool("fab_stat", {"-l", "-d", "lo"});
  RunOutput m = tool("fab_stat", {"-m", "-d", "lo"});
  RunOutput all = tool("fab_stat", {"-d", "lo", "--provider", "tcp", "-a"});
  unsetenv("FABPERF_SYSFS_ROOT");
  EXPECT_EQ(l.out, "lo\n") << l.err;
  EXPECT_EQ(m.out, "02:00:00:00:00:07\n") << m.err;
  ASSERT_EQ(all.exit_code, 0) << all.err;
  size_t at = all.out.find("    Driver: ");
  ASSERT_NE(at, std::string::npos) << all.out;
  EXPECT_EQ(all.out.substr(at),
            "    Driver: mlx5_core\n"
            "    FW Version: N/A\n"
            "    Network device: lo\n"
            "    MAC: 02:00:00:00:00:07\n"
            "    PCIE speed/width: 16.0 GT/s PCIe x16\n"
            "    PCIE slot: 0000:00:03.0\n"
            "        Link MTU: 9000\n"
            "        Link speed: 100000 Mb/s\n"
            "        Link state: up\n"
            "    AER CORRECTABLE:\n"
            "        No data\n"
            "    AER FATAL:\n"
            "        Undefined 0\n"
            "        TOTAL_ERR_FATAL 0\n"
            "    AER NONFATAL:\n"
            "        No data\n");
}

// A cxi NIC's own sysfs fields (class/cxi/NAME/device: fru, properties, port/0), cxi_stat's
// lines in its order. This host has no cxi provider, so the fake tree makes lo one.
TEST(E2eCxi, StatReadsCxiSysfs) {
  FakeSysfs fake;
  const std::string dev = "devices/pci0000:00/0000:00:03.0/";
  fake.dir("class/cxi/lo");
  fake.link("class/cxi/lo/device", "../../../devices/pci0000:00/0000:00:03.0");
  fake.dir(dev + "fru");
  fake.dir(dev + "properties");
  fake.dir(dev + "uc");
  fake.dir(dev + "port/0/link/config");
  fake.dir(dev + "port/0/llr");
  fake.dir(dev + "port/0/media");
  fake.dir(dev + "telemetry");
  fake.file(dev + "fru/description", "200Gbps 1x OSFP");
  fake.file(dev + "fru/part_number", "P43012-001");
  fake.file(dev + "fru/serial_number", "SN0001");
  fake.file(dev + "uc/qspi_blob_version", "1.5.41");
  fake.file(dev + "properties/nid", "0x12");
  fake.file(dev + "properties/pid_granule", "256");
  fake.file(dev + "properties/hpc_mtu", "2112");
  fake.file(dev + "current_link_speed", "16.0 GT/s PCIe");
  fake.file(dev + "current_link_width", "16");
  fake.file(dev + "port/0/llr/state", "on");
  fake.file(dev + "port/0/link/config/loopback", "off");
  fake.file(dev + "port/0/media/type", "electrical");
  fake.file(dev + "port/0/link/speed", "BS_200G");
  fake.file(dev + "port/0/link/state", "up");
  fake.file(dev + "telemetry/hni_pcs_good_cw", "1000@100.0");
  fake.file("class/net/lo/address", "02:00:00:00:00:12");
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  RunOutput all = tool("fab_stat", {"-d", "lo", "--provider", "tcp", "-r", "-p", "0.1"});
  unsetenv("FABPERF_SYSFS_ROOT");
  ASSERT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.out,
            "Device: lo\n"
            "    Description: 200Gbps 1x OSFP\n"
            "    Part Number: P43012-001\n"
            "    Serial Number: SN0001\n"
            "    FW Version: 1.5.41\n"
            "    Network device: lo\n"
            "    MAC: 02:00:00:00:00:12\n"
            "    NID: 18 (0x00012)\n"
            "    PID granule: 256\n"
            "    PCIE speed/width: 16.0 GT/s PCIe x16\n"
            "    PCIE slot: 0000:00:03.0\n"
            "        Link layer retry: on\n"
            "        Link loopback: off\n"
            "        Link media: electrical\n"
            "        Link MTU: 2112\n"
            "        Link speed: BS_200G\n"
            "        Link state: up\n"
            "    Rates:\n"
            "        Good CW: 0.00/s\n");
}

// GPU buffers (-t/-r) through the stand-in CUDA runtime in tests/fake_gpu/: every tool with
// both sides' buffers in "GPU" memory, over shm (the provider here with FI_HMEM; not for
// atomics). The stand-in scrambles what the CPU touches directly, so data only moves right
// through its copies.
struct GpuToolRun {
  const char* tool;
  std::vector<std::string> args;
  bool both_ways;  // -b: each side's -t and -r
};

// -t/-r/-g are each process's own, as in the originals: the client's -t is its (initiator's)
// buffer, the server's -r its (target's); with -b each side's -t and -r.
TEST(E2eCxiGpu, EveryToolWithGpuBuffersOnBothSides) {
  REQUIRE_RDM();
  const GpuToolRun runs[] = {
      {"fab_write_lat", {"-n", "20", "-s", "1:64"}, false},
      {"fab_read_lat", {"-n", "20", "-s", "64"}, false},
      {"fab_send_lat", {"-n", "20"}, false},
      {"fab_write_bw", {"-n", "5", "-l", "16", "-s", "4096"}, false},
      {"fab_read_bw", {"-n", "5", "-l", "16"}, false},
      {"fab_send_bw", {"-n", "5", "-l", "16", "-b"}, true},
  };
  for (const GpuToolRun& t : runs) {
    SCOPED_TRACE(t.tool);
    FakeGpuEnv gpu;
    std::vector<std::string> own = {"-g", "NVIDIA", "-r", "0"};
    if (t.both_ways) own.insert(own.end(), {"-t", "0"});
    CxiServer server(t.tool, own);
    std::vector<std::string> args = {"127.0.0.1", "-p", server.port(), "-g", "NVIDIA", "-t", "0"};
    if (t.both_ways) args.insert(args.end(), {"-r", "0"});
    args.insert(args.end(), t.args.begin(), t.args.end());
    RunOutput r = tool(t.tool, args);
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out, "Device           : shm (shm)")) << r.out;
    for (const std::string& text : {r.out, server.output()}) {
      EXPECT_TRUE(contains(text, "Client TX Mem    : GPU 0\n")) << text;
      EXPECT_TRUE(contains(text, "Client GPU Type  : NVIDIA\n")) << text;
      EXPECT_TRUE(contains(text, "Server RX Mem    : GPU 0\nServer GPU Type  : NVIDIA\n")) << text;
      EXPECT_EQ(contains(text, "Server TX Mem    : GPU 0\n"), t.both_ways) << text;
      // As the originals, once the GPU library is loaded: the stand-in has one device.
      EXPECT_TRUE(std::regex_search(text, std::regex("\nFound 1 GPU\\(s\\)\n-{51,72}\n"))) << text;
    }
    EXPECT_EQ(server.wait(), 0) << server.output();
    FakeGpuEnv::Totals used = gpu.totals();
    EXPECT_GE(used.allocs, 2u);  // one buffer a side at least
    EXPECT_GT(used.to_device, 0u);
  }
}

// A server started with -r 0 receives into its own GPU buffer whatever the client says, and
// both summaries say so; a client's -r alone (no -b) places nothing, as in the originals.
TEST(E2eCxiGpu, ServerKeepsItsOwnRxBuffer) {
  REQUIRE_RDM();
  {
    FakeGpuEnv gpu;
    CxiServer server("fab_write_bw", {"-r", "0", "-g", "NVIDIA"});
    RunOutput r = tool("fab_write_bw", {"127.0.0.1", "-p", server.port(), "-n", "5", "-l", "16",
                                        "-s", "4096", "--provider", "shm"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out,
                         "Client TX Mem    : System\nServer RX Mem    : GPU 0\n"
                         "Server GPU Type  : NVIDIA\n"))
        << r.out;
    EXPECT_EQ(server.wait(), 0) << server.output();
    EXPECT_TRUE(contains(server.output(), "Client TX Mem    : System\nServer RX Mem    : GPU 0\n"))
        << server.output();
    EXPECT_EQ(gpu.totals().allocs, 1u);  // the server's buffer only
  }
  {
    FakeGpuEnv gpu;
    CxiServer server("fab_write_bw");
    RunOutput r = tool("fab_write_bw", {"127.0.0.1", "-p", server.port(), "-r", "0", "-g", "NVIDIA",
                                        "-n", "5", "-l", "16", "--provider", "shm"});
    ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
    EXPECT_TRUE(contains(r.out,
                         "Client TX Mem    : System\nClient GPU Type  : NVIDIA\n"
                         "Server RX Mem    : System\nTest Type"))
        << r.out;
    EXPECT_EQ(server.wait(), 0) << server.output();
    EXPECT_EQ(gpu.totals().allocs, 0u);
  }
  // -b: one buffer a side, so a side's -t and -r must agree.
  RunOutput bad = tool("fab_write_bw", {"127.0.0.1", "-p", "1", "-b", "-r", "0", "-g", "NVIDIA"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "-t and -r must name the same memory with -b")) << bad.err;
}

// cxi_gpu_loopback_bw's use: both ends of a loopback write in GPU memory, in one process.
TEST(E2eCxiGpu, LoopbackBandwidthBetweenGpuBuffers) {
  REQUIRE_RDM();
  FakeGpuEnv gpu;
  RunOutput r = tool("fab_loopback_bw",
                     {"-t", "0", "-r", "0", "-g", "NVIDIA", "-i", "2", "-n", "64", "-s", "65536"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // loopback_bw.c's lines: "TX Mem", "RX Mem", "GPU Type".
  EXPECT_TRUE(contains(r.out,
                       "TX Mem           : GPU 0\nRX Mem           : GPU 0\n"
                       "GPU Type         : NVIDIA\n"))
      << r.out;
  EXPECT_EQ(count_lines(r.out, std::regex(" +65536 +128 +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{6}")), 1)
      << r.out;
  EXPECT_EQ(gpu.totals().allocs, 2u);
}

TEST(E2eCxiGpu, JsonNamesWhereEachSidesBufferLives) {
  REQUIRE_RDM();
  FakeGpuEnv gpu;
  CxiServer server("fab_send_bw", {"-r", "0", "-g", "NVIDIA"});
  std::string json_path = "/tmp/fabperf_cxi_gpu_" + std::to_string(getpid()) + ".json";
  // The client picks a provider for its own buffers; the server's GPU needs FI_HMEM (shm).
  RunOutput r = tool("fab_send_bw", {"127.0.0.1", "-p", server.port(), "-n", "5", "-l", "16", "-s",
                                     "1024", "--provider", "shm", "--json", json_path});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "Client TX Mem    : System")) << r.out;
  EXPECT_TRUE(contains(r.out, "Server RX Mem    : GPU 0")) << r.out;
  nlohmann::json doc = nlohmann::json::parse(slurp(json_path));
  unlink(json_path.c_str());
  const nlohmann::json& info = doc["results"][0]["info"];
  EXPECT_EQ(info["loc"]["memory"], "System") << info.dump();
  EXPECT_EQ(info["rem"]["memory"], "NVIDIA GPU 0") << info.dump();
  EXPECT_EQ(server.wait(), 0);
}

TEST(E2eCxiGpu, ProviderWithoutHmemIsRefusedOnEitherSide) {
  FakeGpuEnv gpu;
  // The client's own buffer: refused before connecting.
  RunOutput r = tool("fab_write_lat",
                     {"127.0.0.1", "-p", "1", "-t", "0", "-g", "NVIDIA", "--provider", "tcp"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "provider \"tcp\" lacks FI_HMEM on FI_EP_RDM endpoints")) << r.err;
  // No provider here does atomics on GPU memory (shm registers it, but not for atomics).
  r = tool("fab_atomic_lat", {"127.0.0.1", "-p", "1", "-t", "0", "-g", "NVIDIA"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err,
                       "no libfabric provider on this host offers FI_EP_RDM endpoints with "
                       "FI_ATOMIC|FI_HMEM"))
      << r.err;
  // The server's buffer only (its own -r): the provider is checked for FI_HMEM all the same.
  CxiServer server("fab_write_lat", {"-r", "0", "-g", "NVIDIA"});
  r = tool("fab_write_lat", {"127.0.0.1", "-p", server.port(), "--provider", "tcp"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "provider \"tcp\" lacks FI_HMEM on FI_EP_RDM endpoints")) << r.err;
}

TEST(E2eCxiGpu, ProviderThatRefusesTheRegistrationIsNamed) {
  REQUIRE_RDM();
  // A runtime whose memory registers as CUDA memory: this libfabric has no CUDA support.
  FakeGpuEnv gpu(0, "libfabperf_fake_gpu_cuda_iface.so");
  CxiServer server("fab_write_lat");
  RunOutput r = tool("fab_write_lat",
                     {"127.0.0.1", "-p", server.port(), "-t", "0", "-g", "NVIDIA", "-n", "5"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err,
                       "provider shm cannot register NVIDIA GPU 0 memory: "
                       "fi_mr_regattr of GPU memory"))
      << r.err;
}

// The second number of a table row ("       65536         320 ..."): the count column.
std::vector<uint64_t> row_counts(const std::string& text) {
  std::vector<uint64_t> out;
  std::istringstream in(text);
  const std::regex row(" *([0-9]+) +([0-9]+) +[0-9]+\\.[0-9]{2} +[0-9]+\\.[0-9]{6}");
  std::smatch m;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, m, row)) out.push_back(std::stoull(m[2]));
  }
  return out;
}

struct BiRun {
  const char* tool;
  const char* provider;
};

class E2eCxiBidirectional : public ::testing::TestWithParam<BiRun> {};

// -b on the tools whose originals have it: both sides issue, each prints its own count (here
// 20 lists of 16 a side), the rates are the sum of each side's over its time from the start
// barrier to the end barrier (the JSON has each side's counters).
TEST_P(E2eCxiBidirectional, EachSideItsOwnCountRatesSummed) {
  REQUIRE_RDM();
  const BiRun& t = GetParam();
  CxiServer server(t.tool);
  std::string json_path = "/tmp/fabperf_cxi_bi_" + std::to_string(getpid()) + ".json";
  RunOutput r = tool(t.tool, {"127.0.0.1", "-p", server.port(), "--provider", t.provider, "-b",
                              "-n", "20", "-l", "16", "--json", json_path});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  // (fab_atomic_bw's labels are 16 wide, the others' 17)
  const std::regex bi_line("Bidirectional +: Enabled");
  EXPECT_EQ(count_lines(r.out, bi_line), 1) << r.out;
  EXPECT_EQ(row_counts(r.out), std::vector<uint64_t>{320}) << r.out;
  ASSERT_EQ(server.wait(), 0) << server.output();
  EXPECT_EQ(count_lines(server.output(), bi_line), 1) << server.output();
  EXPECT_EQ(row_counts(server.output()), std::vector<uint64_t>{320}) << server.output();
  nlohmann::json doc = nlohmann::json::parse(slurp(json_path));
  unlink(json_path.c_str());
  const nlohmann::json& res = doc["results"][0];
  const nlohmann::json& loc = res["counters"]["loc"];
  const nlohmann::json& rem = res["counters"]["rem"];
  EXPECT_EQ(loc["send_msgs"], 320) << res.dump();
  EXPECT_EQ(rem["send_msgs"], 320) << res.dump();
  EXPECT_EQ(res["messages"]["sent"], 640) << res.dump();
  // Each side received the other's 320 (one-sided runs: the peer's count, over this side's
  // time; sends: what this side's receives counted, from the first measured one to the last).
  EXPECT_EQ(loc["recv_msgs"], 320) << res.dump();
  EXPECT_EQ(rem["recv_msgs"], 320) << res.dump();
  double loc_s = loc["recv_time_ns"].get<double>() / 1e9;
  double rem_s = rem["recv_time_ns"].get<double>() / 1e9;
  ASSERT_GT(loc_s, 0);
  ASSERT_GT(rem_s, 0);
  double sum = 320 / loc_s + 320 / rem_s;
  EXPECT_NEAR(res["msg_rate"].get<double>(), sum, sum * 1e-9) << res.dump();
  EXPECT_TRUE(contains(loc["info"].value("bidirectional", ""), "start and end barriers"))
      << loc.dump();
}

INSTANTIATE_TEST_SUITE_P(
    EveryBandwidthTool, E2eCxiBidirectional,
    ::testing::Values(BiRun{"fab_read_bw", "tcp"}, BiRun{"fab_read_bw", "shm"},
                      BiRun{"fab_atomic_bw", "tcp"}, BiRun{"fab_atomic_bw", "shm"},
                      BiRun{"fab_write_bw", "shm"}, BiRun{"fab_send_bw", "tcp"},
                      BiRun{"fab_send_bw", "shm"}),
    [](const auto& info) {
      return std::string(info.param.tool).substr(4) + "_" + info.param.provider;
    });

// UINT128 is offered where the provider has it (cxi: CSWAP EQ); elsewhere the refusal names
// the provider and what it lacks.
TEST(E2eCxi, Uint128RefusedNamingTheProvider) {
  REQUIRE_RDM();
  CxiServer server("fab_atomic_lat");
  RunOutput r = tool("fab_atomic_lat", {"127.0.0.1", "-p", server.port(), "-A", "CSWAP", "-T",
                                        "UINT128", "-n", "5", "--provider", "tcp"});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_TRUE(contains(r.err,
                       "provider tcp;ofi_rxm cannot run atomic CSWAP EQ on UINT128 "
                       "(fi_query_atomic"))
      << r.err;
  server.wait();
  // The originals' combination rule: UINT128 is CSWAP EQ only, refused before connecting.
  RunOutput bad = tool("fab_atomic_lat", {"127.0.0.1", "-p", "1", "-A", "SUM", "-T", "UINT128"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "Invalid Op and Type combination: SUM UINT128")) << bad.err;
}

// The cxi-only switches on another provider: the run goes on, a warning names the switches
// and the provider, the summary says Not Applicable, the JSON keeps the note.
TEST(E2eCxi, CxiSwitchesOnAnotherProviderDrawAWarning) {
  REQUIRE_RDM();
  CxiServer server("fab_write_bw");
  std::string json_path = "/tmp/fabperf_cxi_sw_" + std::to_string(getpid()) + ".json";
  RunOutput r = tool("fab_write_bw",
                     {"127.0.0.1", "-p", server.port(), "--provider", "tcp", "-n", "5", "-l", "16",
                      "-v", "5", "--no-idc", "--no-hrp", "--unrestricted", "--json", json_path});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_TRUE(contains(r.err,
                       "fab_write_bw: warning: -v/--svc-id, --no-idc, --no-hrp, "
                       "--unrestricted: cxi provider only; not applied on provider "
                       "tcp;ofi_rxm"))
      << r.err;
  EXPECT_TRUE(contains(r.out, "Service ID       : Not Applicable\n")) << r.out;
  EXPECT_TRUE(contains(r.out, "IDC              : Not Applicable\n")) << r.out;
  EXPECT_EQ(server.wait(), 0) << server.output();
  nlohmann::json doc = nlohmann::json::parse(slurp(json_path));
  unlink(json_path.c_str());
  const nlohmann::json& info = doc["results"][0]["info"];
  EXPECT_TRUE(contains(info["loc"].value("cxi_switches", ""), "not applied on provider tcp"))
      << info.dump();
  // The server applies its own -v, not the client's: only the shared switches reach it.
  EXPECT_EQ(info["rem"].value("cxi_switches", ""),
            "--no-idc, --no-hrp, --unrestricted: cxi provider only; not applied on provider "
            "tcp;ofi_rxm")
      << info.dump();
}

}  // namespace
}  // namespace fabperf::testing
