// End-to-end: the fab_* tools as a drop-in for the originals. Both sides print the run the
// client asked for and the device each used; the originals' latency gap, list method and
// in-flight depth; their options (-c cycles, --emu-mode, help defaults, limits); fab_stat's
// device choice and rates; fab_heatsink_check's NUMA cores, warm-up and rate source. Over the
// tcp and shm providers, server and client processes on 127.0.0.1.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <unistd.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_cxi_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

std::string temp_path(const std::string& what) {
  return "/tmp/fabperf_dropin_" + what + "_" + std::to_string(getpid()) + ".json";
}

nlohmann::json read_json(const std::string& path) {
  nlohmann::json doc = nlohmann::json::parse(slurp(path), nullptr, false);
  unlink(path.c_str());
  return doc;
}

// The summary block of a tool's output: from the first dash line to the second.
std::string summary_of(const std::string& text) {
  size_t start = text.find("---\n    CXI");
  if (start == std::string::npos) return "";
  start = text.rfind('\n', start);
  start = start == std::string::npos ? 0 : start + 1;
  size_t end = text.find("\n---", text.find("\n", start) + 1);
  end = text.find('\n', end + 1);
  return text.substr(start, end + 1 - start);
}

// The value of a summary line ("Device           : lo (tcp;ofi_rxm)" gives "lo (tcp;ofi_rxm)").
std::string line_value(const std::string& text, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(text, m, std::regex("\n" + label + " *: ([^\n]*)\n"))) return "";
  return m[1];
}

class E2eCxiDropIn : public ::testing::TestWithParam<const char*> {};

// The man page's first example, shortened: both sides print the same block from one run, the
// client's -D and sizes and --report-all included, each its own Device (the domain its runs
// used, as the JSON says) and Local/Remote; the server prints "See client for results." once
// per size, as the original's run_lat_passive.
TEST_P(E2eCxiDropIn, BothSidesPrintTheClientsRun) {
  REQUIRE_RDM();
  const std::string provider = GetParam();
  CxiServer server("fab_write_lat");
  const std::string json = temp_path("both");
  RunOutput r = tool("fab_write_lat", {"127.0.0.1", "-p", server.port(), "-P", provider, "-D",
                                       "0.2", "-s", "1:4", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_EQ(server.wait(), 0) << server.output();
  nlohmann::json doc = read_json(json);
  ASSERT_FALSE(doc.is_discarded());
  const nlohmann::json& info = doc["results"][0]["info"];
  const std::string client_device = info["loc"].value("domain", "?");
  const std::string server_device = info["rem"].value("domain", "?");
  const std::string shown = provider == "shm" ? "shm" : "tcp;ofi_rxm";
  std::smatch pids;
  std::string client = summary_of(r.out), server_text = server.output();
  std::string server_block = summary_of(server_text);
  ASSERT_TRUE(std::regex_search(client, pids,
                                std::regex("Local \\(client\\)   : 127.0.0.1 PID ([0-9]+)\nRemote "
                                           "\\(server\\)  : 127.0.0.1 PID ([0-9]+)\n")))
      << client;
  const std::string dashes(72, '-');
  auto block = [&](const std::string& device, const std::string& ends) {
    return dashes + "\n    CXI RDMA Write Latency Test\n" + "Device           : " + device + " (" +
           shown + ")\n" +
           "Service ID       : Not Applicable\n"
           "Client TX Mem    : System\n"
           "Server RX Mem    : System\n"
           "Test Type        : Duration\n"
           "Duration         : 0.2 seconds\n"
           "Warmup Iters     : 10\n"
           "Inter-Iter Gap   : 1000 microseconds\n"
           "Min Write Size   : 1\n"
           "Max Write Size   : 4\n"
           "IDC              : Not Applicable\n"
           "Restricted       : Not Applicable\n"
           "LL Cmd Launch    : Not Applicable\n"
           "Results Reported : Summary\n"
           "Hugepages        : Disabled\n" +
           ends + dashes + "\n";
  };
  EXPECT_EQ(client,
            block(client_device, "Local (client)   : 127.0.0.1 PID " + pids[1].str() + "\n" +
                                     "Remote (server)  : 127.0.0.1 PID " + pids[2].str() + "\n"));
  EXPECT_EQ(server_block,
            block(server_device, "Local (server)   : 127.0.0.1 PID " + pids[2].str() + "\n" +
                                     "Remote (client)  : 127.0.0.1 PID " + pids[1].str() + "\n"));
  // After the block: per size a line (the block's closing dashes are the first size's).
  EXPECT_NE(server_text.find(server_block + "See client for results.\n" + dashes +
                             "\nSee client for results.\n" + dashes +
                             "\nSee client for results.\n" + dashes + "\n"),
            std::string::npos)
      << server_text;
  EXPECT_EQ(count_lines(server_text, std::regex("See client for results\\.")), 3);
  // --report-all and -n reach the server's block too.
  CxiServer second("fab_write_lat");
  RunOutput all = tool("fab_write_lat", {"127.0.0.1", "-p", second.port(), "-P", provider, "-n",
                                         "5", "--report-all"});
  ASSERT_EQ(all.exit_code, 0) << all.err;
  ASSERT_EQ(second.wait(), 0) << second.output();
  std::string s = summary_of(second.output());
  EXPECT_EQ(line_value(s, "Results Reported"), "All") << s;
  EXPECT_EQ(line_value(s, "Iterations"), "5") << s;
  EXPECT_EQ(line_value(s, "Write Size"), "8") << s;
}

// A bandwidth range: the server's block has the client's sizes and buffer (not the first
// run's), and each side's device.
TEST_P(E2eCxiDropIn, BandwidthServerShowsTheClientsRange) {
  REQUIRE_RDM();
  CxiServer server("fab_write_bw");
  RunOutput r = tool("fab_write_bw", {"127.0.0.1", "-p", server.port(), "-P", GetParam(), "-n", "2",
                                      "-l", "16", "-s", "4096:8192"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(server.wait(), 0) << server.output();
  std::string c = summary_of(r.out), s = summary_of(server.output());
  for (const char* label : {"Min Write Size", "Max Write Size", "Max RDMA Buf", "List Size",
                            "Test Type", "Iterations", "Bidirectional"}) {
    EXPECT_EQ(line_value(s, label), line_value(c, label)) << label << "\n" << s << c;
  }
  EXPECT_EQ(line_value(s, "Max RDMA Buf"), "4294967296 (131072 used)") << s;
  EXPECT_EQ(line_value(s, "Device").find("(provider default)"), std::string::npos) << s;
}

// The originals' byte-level details on both sides: "(N used)" rounded up to the page as
// get_hugepages_needed rounds it (-l 1 -s 8: one page, not 64 bytes), and "Atomic Op" with
// its trailing blank (print_loc_opts' "%sFETCHING %s %s").
TEST_P(E2eCxiDropIn, UsedBufferRoundingAndAtomicOpLines) {
  REQUIRE_RDM();
  {
    CxiServer server("fab_write_bw");
    RunOutput r = tool("fab_write_bw", {"127.0.0.1", "-p", server.port(), "-P", GetParam(), "-n",
                                        "2", "-l", "1", "-s", "8"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(server.wait(), 0) << server.output();
    const std::string used = "4294967296 (" + std::to_string(sysconf(_SC_PAGE_SIZE)) + " used)";
    EXPECT_EQ(line_value(r.out, "Max RDMA Buf"), used) << r.out;
    EXPECT_EQ(line_value(server.output(), "Max RDMA Buf"), used) << server.output();
  }
  struct Case {
    const char* name;
    std::vector<std::string> args;
    const char* op;
  };
  for (const Case& c :
       {Case{"fab_atomic_lat", {"-n", "5"}, "NON-FETCHING SUM "},
        Case{"fab_atomic_bw", {"-n", "1", "-l", "16", "--fetching"}, "FETCHING SUM "},
        Case{"fab_atomic_bw", {"-n", "1", "-l", "16"}, "NON-FETCHING SUM "}}) {
    SCOPED_TRACE(c.name);
    CxiServer server(c.name);
    std::vector<std::string> args = {"127.0.0.1", "-p", server.port(), "-P", GetParam()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    RunOutput r = tool(c.name, args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_EQ(server.wait(), 0) << server.output();
    EXPECT_EQ(line_value(r.out, "Atomic Op"), c.op) << r.out;
    EXPECT_EQ(line_value(server.output(), "Atomic Op"), c.op) << server.output();
  }
}

// Reads and fetching atomics keep the list in flight (not --rd_atomic's 16); where the
// provider's transmit queue holds fewer, both summaries say how many.
TEST_P(E2eCxiDropIn, ReadsAndFetchingAtomicsKeepTheListInFlight) {
  REQUIRE_RDM();
  const std::string provider = GetParam();
  {
    CxiServer server("fab_read_bw");
    const std::string json = temp_path("read");
    RunOutput r = tool("fab_read_bw", {"127.0.0.1", "-p", server.port(), "-P", provider, "-n", "2",
                                       "-l", "64", "--json", json});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(server.wait(), 0);
    nlohmann::json doc = read_json(json);
    const nlohmann::json& res = doc["results"][0];
    EXPECT_EQ(res["params"]["rd_atomic"], 64) << res.dump();
    // Measured: the most operations in flight at once, the whole list.
    EXPECT_EQ(res["info"]["loc"]["bw_method"]["in_flight_max"], 64) << res.dump();
    EXPECT_EQ(res["info"]["loc"]["bw_method"]["in_flight_cap"], 64) << res.dump();
  }
  CxiServer server("fab_atomic_bw");
  const std::string json = temp_path("amo");
  RunOutput r = tool("fab_atomic_bw", {"127.0.0.1", "-p", server.port(), "-P", provider,
                                       "--fetching", "-n", "1", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(server.wait(), 0);
  nlohmann::json doc = read_json(json);
  // The provider's cap (its transmit queue), as the summary shows it, and the peak measured:
  // a list fills the whole of it, unless the provider refused posts before its queue was full
  // (shm at times takes 896 of its 1024 fetching atomics), which the JSON then counts.
  const nlohmann::json& method = doc["results"][0]["info"]["loc"]["bw_method"];
  const uint64_t cap = method["in_flight_cap"];
  const uint64_t peak = method["in_flight_max"];
  EXPECT_LE(peak, cap) << method.dump();
  if (peak < cap) {
    EXPECT_GT(method["posts_refused"].get<uint64_t>(), 0u) << method.dump();
  }
  EXPECT_GT(peak, 16u) << method.dump();
  EXPECT_GT(cap, 16u);
  const std::string expected =
      cap < 4096 ? "4096 (" + std::to_string(cap) + " in flight: the provider's transmit queue)"
                 : "4096";
  EXPECT_EQ(line_value(r.out, "List Size"), expected) << r.out;
  EXPECT_EQ(line_value(server.output(), "List Size"), expected) << server.output();
  EXPECT_EQ(doc["results"][0]["counters"]["loc"]["send_msgs"], 4096);
}

// --latency-gap as the originals wait it (a busy-wait that ends long before the gap), and
// --exact-gap's whole gap; the JSON records the mean gap measured.
TEST_P(E2eCxiDropIn, LatencyGapModes) {
  REQUIRE_RDM();
  for (bool exact : {false, true}) {
    SCOPED_TRACE(exact ? "exact" : "original");
    CxiServer server("fab_write_lat");
    const std::string json = temp_path("gap");
    std::vector<std::string> args = {"127.0.0.1", "-p",     server.port(), "-P", GetParam(),
                                     "-n",        "3",      "--warmup",    "1",  "--latency-gap",
                                     "100000",    "--json", json};
    if (exact) args.push_back("--exact-gap");
    RunOutput r = tool("fab_write_lat", args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(server.wait(), 0);
    nlohmann::json gap = read_json(json)["results"][0]["info"]["loc"]["latency_gap"];
    EXPECT_EQ(gap["mode"], exact ? "exact" : "original") << gap.dump();
    EXPECT_EQ(gap["asked_us"], 100000) << gap.dump();
    EXPECT_EQ(gap["gaps"], 4) << gap.dump();  // after the warm-up iteration too
    // The whole gap, or (the originals' spin, ~70 us here for 100000) far less: the bound
    // leaves 100 ms of preemption over the four gaps on a loaded host.
    if (exact) {
      EXPECT_GE(gap["mean_us"].get<double>(), 100000) << gap.dump();
    } else {
      EXPECT_LT(gap["mean_us"].get<double>(), 25000) << gap.dump();
    }
    EXPECT_EQ(line_value(r.out, "Inter-Iter Gap"), "100000 microseconds");
  }
}

// The originals' bandwidth method by default (lists of -l waited for whole, no warm-up,
// timed between TCP barriers, send_bw answered per list) against --stream's window.
TEST_P(E2eCxiDropIn, ListsAgainstTheStreamingWindow) {
  REQUIRE_RDM();
  for (const char* name : {"fab_write_bw", "fab_send_bw", "fab_read_bw"}) {
    for (bool stream : {false, true}) {
      SCOPED_TRACE(std::string(name) + (stream ? " --stream" : " lists"));
      CxiServer server(name);
      const std::string json = temp_path("method");
      std::vector<std::string> args = {"127.0.0.1", "-p",     server.port(), "-P", GetParam(),
                                       "-n",        "3",      "-l",          "8",  "-s",
                                       "1024",      "--json", json};
      if (stream) args.push_back("--stream");
      RunOutput r = tool(name, args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(server.wait(), 0) << server.output();
      const nlohmann::json res = read_json(json)["results"][0];
      const nlohmann::json& method = res["info"]["loc"]["bw_method"];
      EXPECT_EQ(res["counters"]["loc"]["send_msgs"], 24) << res.dump();
      if (stream) {
        EXPECT_EQ(method["method"], "stream") << method.dump();
        EXPECT_EQ(method["warmup"], 8) << method.dump();  // one list
        EXPECT_FALSE(res["info"]["loc"].contains("bw_timed")) << res.dump();
      } else {
        EXPECT_EQ(method["method"], "lists") << method.dump();
        EXPECT_EQ(method["lists"], 3) << method.dump();
        EXPECT_EQ(method["warmup"], 0) << method.dump();
        EXPECT_EQ(method["answered"], std::string(name) == "fab_send_bw") << method.dump();
        if (std::string(name) == "fab_send_bw") {
          EXPECT_EQ(method["answers"], 3) << method.dump();
        }
        EXPECT_TRUE(res["info"]["loc"].contains("bw_timed")) << res.dump();
        // One doorbell a list: every operation but a list's last carries FI_MORE (writes and
        // reads; sends ring each), but a refused post rings, as may the run's first (the
        // connection still setting up).
        const uint64_t bells = method["doorbells"], refused = method["posts_refused"];
        if (std::string(name) == "fab_send_bw") {
          EXPECT_EQ(bells, 24u) << method.dump();
        } else {
          EXPECT_GE(bells, 3u) << method.dump();
          EXPECT_LE(bells, 3u + 1u + refused) << method.dump();
        }
      }
    }
  }
  // fabperf's own dialect keeps its window; --bw_method lists asks for the originals'.
  for (const char* method : {"stream", "lists"}) {
    RunOutput r = run({"--loopback", "-P", GetParam(), "-n", "32", "--tx_depth", "8", "--bw_method",
                       method, "--json", "-", "rdm_send_bw"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    nlohmann::json doc = nlohmann::json::parse(r.out.substr(r.out.find('{')), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc["results"][0]["info"]["loc"]["bw_method"]["method"], method) << r.out;
  }
}

// An IPv4 address of an interface other than lo, and its name ("" when there is none).
std::pair<std::string, std::string> other_interface() {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return {};
  std::pair<std::string, std::string> out;
  for (ifaddrs* i = list; i != nullptr && out.first.empty(); i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_addr->sa_family != AF_INET) continue;
    if ((i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP)) continue;
    char text[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(i->ifa_addr)->sin_addr, text, sizeof text);
    out = {i->ifa_name, text};
  }
  freeifaddrs(list);
  return out;
}

// -d NAME: the run uses that device on each side, and the client's control connection comes
// from its address, so the peer check (as strict as ever) ties the fabric address to it.
TEST(E2eCxiDropInDevice, DeviceOptionChoosesTheDomainOnEachSide) {
  REQUIRE_RDM();
  auto [name, address] = other_interface();
  if (name.empty()) GTEST_SKIP() << "no network interface but lo";
  CxiServer server("fab_write_lat", {"-d", name});
  const std::string json = temp_path("device");
  RunOutput r = tool("fab_write_lat", {address, "-p", server.port(), "-d", name, "-P", "tcp", "-n",
                                       "5", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  ASSERT_EQ(server.wait(), 0) << server.output();
  nlohmann::json info = read_json(json)["results"][0]["info"];
  EXPECT_EQ(info["loc"]["domain"], name) << info.dump();
  EXPECT_EQ(info["rem"]["domain"], name) << info.dump();
  EXPECT_EQ(line_value(r.out, "Device"), name + " (tcp;ofi_rxm)") << r.out;
  EXPECT_EQ(line_value(server.output(), "Device"), name + " (tcp;ofi_rxm)") << server.output();
  EXPECT_TRUE(contains(r.out, "Local (client)   : " + address + " PID ")) << r.out;
  // A control connection from elsewhere than the device (--bind says so): still refused.
  CxiServer strict("fab_write_lat");
  RunOutput refused = tool("fab_write_lat", {"127.0.0.1", "-p", strict.port(), "-d", name, "-P",
                                             "tcp", "-n", "5", "--bind", "127.0.0.1"});
  EXPECT_EQ(refused.exit_code, 1) << refused.out;
  EXPECT_TRUE(contains(refused.err, "fabric peer check")) << refused.err;
}

// Without -d the Device line names the domain the runs used: lo for 127.0.0.1 over tcp (the
// provider's first domain is another interface's).
TEST(E2eCxiDropInDevice, DeviceLineIsTheDomainUsed) {
  REQUIRE_RDM();
  CxiServer server("fab_send_lat");
  const std::string json = temp_path("lo");
  RunOutput r = tool("fab_send_lat",
                     {"127.0.0.1", "-p", server.port(), "-P", "tcp", "-n", "5", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_EQ(server.wait(), 0);
  nlohmann::json info = read_json(json)["results"][0]["info"];
  EXPECT_EQ(line_value(r.out, "Device"), info["loc"].value("domain", "?") + " (tcp;ofi_rxm)");
  EXPECT_EQ(line_value(server.output(), "Device"),
            info["rem"].value("domain", "?") + " (tcp;ofi_rxm)");
  EXPECT_EQ(info["loc"]["domain"], "lo") << info.dump();
}

// The originals' options: -c cycles (the clock recorded), --ignore-cpu-freq-mismatch,
// --emu-mode (accepted, with a note), over each provider.
TEST_P(E2eCxiDropIn, CyclesClockAndAcceptedOptions) {
  REQUIRE_RDM();
  CxiServer server("fab_send_lat", {"--emu-mode"});
  const std::string json = temp_path("cycles");
  RunOutput r =
      tool("fab_send_lat", {"127.0.0.1", "-p", server.port(), "-P", GetParam(), "-n", "20", "-c",
                            "cycles", "--ignore-cpu-freq-mismatch", "--emu-mode", "--json", json});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(server.wait(), 0) << server.output();
  EXPECT_TRUE(contains(r.err, "fab_send_lat: note: --emu-mode")) << r.err;
  EXPECT_TRUE(contains(server.output(), "note: --emu-mode")) << server.output();
  nlohmann::json res = read_json(json)["results"][0];
  EXPECT_EQ(res["params"]["clock"], "cycles") << res.dump();
  EXPECT_TRUE(contains(res["info"]["loc"].value("clock", ""),
                       "calibrated against "
                       "CLOCK_MONOTONIC_RAW"))
      << res.dump();
  EXPECT_EQ(res["latency_ns"]["samples"], 20);
  RunOutput bad = tool("fab_send_lat", {"127.0.0.1", "-p", "1", "-c", "sundial"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.err, "sundial")) << bad.err;
}

// Help shows the tools' own defaults; the originals' limits; exit 1 for bad usage.
TEST(E2eCxiDropInOptions, HelpDefaultsLimitsAndExitStatus) {
  EXPECT_TRUE(contains(tool("fab_write_bw", {"-h"}).out, "Default: 1000")) << "-n";
  EXPECT_TRUE(contains(tool("fab_write_bw", {"-h"}).out, "list. Default: 256"));
  EXPECT_TRUE(contains(tool("fab_atomic_bw", {"-h"}).out, "list. Default: 4096"));
  EXPECT_TRUE(contains(tool("fab_atomic_bw", {"-h"}).out, "Default: 10000"));
  EXPECT_TRUE(contains(tool("fab_write_lat", {"-h"}).out, "Default: 100"));
  RunOutput loop = tool("fab_loopback_bw", {"-h"});
  EXPECT_TRUE(contains(loop.out, "Number of iterations. Default: 25")) << loop.out;
  EXPECT_TRUE(contains(loop.out, "Writes per iteration. Default: 8192")) << loop.out;
  RunOutput heat = tool("fab_heatsink_check", {"-h"});
  EXPECT_TRUE(contains(heat.out, "Seconds the check runs. Default: 600")) << heat.out;
  EXPECT_TRUE(contains(heat.out, "Write size in bytes, 1 to 262144. Default: 512")) << heat.out;
  RunOutput list = tool("fab_write_bw", {"127.0.0.1", "-p", "1", "-l", "16383"});
  EXPECT_EQ(list.exit_code, 1);
  EXPECT_TRUE(contains(list.err, "Invalid list size: 16383")) << list.err;
  RunOutput big = tool("fab_heatsink_check", {"-s", "262145"});
  EXPECT_EQ(big.exit_code, 1);
  EXPECT_TRUE(contains(big.err, "Invalid size: 262145")) << big.err;
  RunOutput range = tool("fab_heatsink_check", {"-s", "8:16"});
  EXPECT_EQ(range.exit_code, 1) << range.out;
  RunOutput two = tool("fab_write_lat", {"127.0.0.1", "-p", "1", "--json", "-", "--html", "-"});
  EXPECT_EQ(two.exit_code, 1) << two.err;
}

// The pre-check of free huge pages, as get_hugepages_needed's.
TEST(E2eCxiDropInOptions, HugepagesArePreChecked) {
  FakeSysfs fake;
  fake.file("kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "7");
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  // 65536 x 256 = 16 MiB: 8 pages of 2M.
  RunOutput r = tool("fab_write_bw", {"127.0.0.1", "-p", "1", "--use-hp", "2M"});
  unsetenv("FABPERF_SYSFS_ROOT");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "Insufficient 2M huge pages. Need 8 to run")) << r.err;
}

// fab_stat: where there are cxi devices they alone are listed (--all, --provider or -d show
// the others), without the Driver line; -r adds cxi_stat's BER and pause figures.
TEST(E2eCxiDropInStat, CxiDevicesAloneAndTheirRates) {
  FakeSysfs fake;
  const std::string dev = "devices/pci0000:00/0000:00:03.0/";
  fake.dir("class/cxi/lo");
  fake.link("class/cxi/lo/device", "../../../devices/pci0000:00/0000:00:03.0");
  fake.file(dev + "port/0/link/speed", "BS_200G");
  fake.file(dev + "port/0/link/config/pause_map", "pfc");
  fake.file(dev + "telemetry/hni_pcs_good_cw", "1000@100.0");
  fake.file(dev + "telemetry/hni_pcs_corrected_cw", "0@100.0");
  fake.file(dev + "telemetry/hni_pcs_uncorrected_cw", "0@100.0");
  for (int i = 0; i < 8; ++i) {
    fake.file(dev + "telemetry/hni_rx_paused_" + std::to_string(i), "0@100.0");
    fake.file(dev + "telemetry/hni_tx_paused_" + std::to_string(i), "0@100.0");
  }
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  RunOutput l = tool("fab_stat", {"-l"});
  RunOutput all = tool("fab_stat", {"-l", "--all"});
  RunOutput block = tool("fab_stat", {"-r", "-p", "0.1"});
  unsetenv("FABPERF_SYSFS_ROOT");
  ASSERT_EQ(l.exit_code, 0) << l.err;
  EXPECT_EQ(l.out, "lo\n");
  EXPECT_GT(count_lines(all.out, std::regex("[^ ]+")), 1) << all.out;
  EXPECT_TRUE(contains(all.out, "lo\n")) << all.out;
  ASSERT_EQ(block.exit_code, 0) << block.err;
  EXPECT_EQ(count_lines(block.out, std::regex("Device: .*")), 1) << block.out;
  EXPECT_FALSE(contains(block.out, "Driver:")) << block.out;
  // Static counters: nothing counted, so "<" the smallest BER 0.1 s can show at 200G.
  EXPECT_TRUE(contains(block.out,
                       "    Rates:\n        Good CW: 0.00/s\n        Corrected CW: "
                       "0.00/s\n        Uncorrected CW: 0.00/s\n        Corrected "
                       "BER: <4.706e-11\n        Uncorrected BER: <4.706e-11\n"
                       "        TX Pause state: pfc\n        RX Pause state: pfc\n"
                       "            RX Pause PCP 0: 0.0%\n"))
      << block.out;
  EXPECT_EQ(count_lines(block.out, std::regex(" +[RT]X Pause PCP [0-7]: 0\\.0%")), 16) << block.out;
}

// fab_heatsink_check pins its workers to the NIC's NUMA cores (sysfs numa_node), names the
// board and the NIC's address, and takes the rate from the NIC's counter where telemetry has
// it (else says the rate is the workers' completions); it warms up for a second before the
// -D seconds it measures (a lower bound on its run time: a loaded host only adds to it).
TEST_P(E2eCxiDropIn, HeatsinkNumaCoresBoardAndRateSource) {
  REQUIRE_RDM();
  const std::string provider = GetParam();
  // The domain the run uses: lo's over tcp, shm's own.
  const std::string device = provider == "shm" ? "shm" : "lo";
  const std::vector<std::string> args = {"-P", "1",    "-l", "16", "--provider", provider,
                                         "-d", device, "-D", "1",  "-i",         "1"};
  FakeSysfs fake;
  fake.chip("hwmon2", "cxi0", "0000:00:03.0", {{"temp1", "Cassini 0 Temperature", "60000"}});
  if (device != "lo") {  // the fake tree gives shm the sysfs device (and chip) lo has
    fake.dir("class/net/" + device);
    fake.link("class/net/" + device + "/device", "../../../devices/pci0000:00/0000:00:03.0");
  }
  RunOutput software;
  {
    setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
    const auto started = std::chrono::steady_clock::now();
    software = tool("fab_heatsink_check", args, 120);
    const auto took = std::chrono::steady_clock::now() - started;
    unsetenv("FABPERF_SYSFS_ROOT");
    // -D 1 after the original's 1 s warm-up: at least 2 s (without the warm-up, about 1).
    EXPECT_GE(took, std::chrono::seconds(2)) << software.out;
  }
  ASSERT_EQ(software.exit_code, 0) << software.err << software.out;
  EXPECT_TRUE(contains(software.out, "Device          : " + device + " (" +
                                         (provider == "shm" ? "shm" : "tcp;ofi_rxm") +
                                         ")\n"
                                         "Board Type      : Not Applicable\n"
                                         "Service ID      : Not Applicable\n"
                                         "Local Address   : " +
                                         (provider == "shm" ? "N/A" : "127.0.0.1") + "\n"))
      << software.out;
  EXPECT_TRUE(contains(software.out, "Processor List  : Not pinned\n")) << software.out;
  EXPECT_TRUE(
      contains(software.out, "Rate Source     : software completions (no NIC counter here)\n"))
      << software.out;
  // The NIC on NUMA node 0 of one socket with CPUs 0 and 1: both workers pinned there; the
  // domain made a cxi device with a board and a response counter (static: the rate reads 0).
  const std::string dev = "devices/pci0000:00/0000:00:03.0/";
  fake.file(dev + "numa_node", "0");
  fake.file("devices/system/node/node0/cpulist", "0-1");
  for (const char* cpu : {"0", "1"}) {
    fake.file(std::string("devices/system/cpu/cpu") + cpu + "/topology/physical_package_id", "0");
    fake.file(std::string("devices/system/cpu/cpu") + cpu + "/topology/thread_siblings_list", cpu);
  }
  fake.dir("class/cxi/" + device);
  fake.link("class/cxi/" + device + "/device", "../../../devices/pci0000:00/0000:00:03.0");
  fake.file(dev + "fru/part_number", "P43012-001");
  fake.file("class/hwmon/hwmon2/power1_input", "4000000");
  fake.file("class/hwmon/hwmon2/power1_label", "3.3V QSFP Power");
  fake.file(dev + "properties/nid", "0x12");
  fake.file(dev + "telemetry/pct_ptls_response", "5000@1.0");
  setenv("FABPERF_SYSFS_ROOT", fake.root().c_str(), 1);
  std::vector<std::string> two = args;
  two[1] = "2";
  RunOutput nic = tool("fab_heatsink_check", two, 120);
  unsetenv("FABPERF_SYSFS_ROOT");
  ASSERT_EQ(nic.exit_code, 0) << nic.err << nic.out;
  EXPECT_TRUE(contains(nic.out, "Board Type      : Sawtooth\n")) << nic.out;
  EXPECT_TRUE(contains(nic.out, "Local Address   : NIC 0x12\n")) << nic.out;
  EXPECT_TRUE(contains(nic.out, "TX/RX Processes : 2\nProcessor List  : 0-1\n")) << nic.out;
  EXPECT_TRUE(contains(nic.out, "Rate Source     : NIC counter pct_ptls_response\n")) << nic.out;
  EXPECT_EQ(count_lines(nic.out, std::regex("      1        0\\.00        4          60")), 1)
      << nic.out;
  // A Sawtooth board's verdicts are 44 wide (SAW_CRIT_W); the QSFP power is a column, not a
  // line (the original's lines are VDD's and AVDD's).
  EXPECT_TRUE(contains(nic.out,
                       "Cassini 0 Temperature (ASIC_0) under 85 \xC2\xB0"
                       "C:  60 \xC2\xB0"
                       "C       PASS\n"))
      << nic.out;
  EXPECT_FALSE(contains(nic.out, "3.3V QSFP Power (QSFP):")) << nic.out;
  EXPECT_TRUE(
      contains(nic.out, "\nAverage BW:                                  0.00 GB/s   ----\n"))
      << nic.out;
}

INSTANTIATE_TEST_SUITE_P(OverProviders, E2eCxiDropIn, ::testing::Values("tcp", "shm"));

}  // namespace
}  // namespace fabperf::testing
