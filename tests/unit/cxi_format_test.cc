// Golden tests of the CXI tools' text: the cxi_write_lat man page's two examples, byte for
// byte, and every tool's summary block and table as the originals' format strings
// (shs-libcxi utils/*.c, print_loc_opts and print_bw_results in utils_common.c) lay them out,
// written here from those strings; where ours differs on purpose (docs/cxi.md) the line says so.
#include "cxi/cxi_format.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>

#include "cli/tool_grammar.h"
#include "cxi/cxi_plan.h"
#include "fabric/address_codec.h"

namespace fabperf::cxi {
namespace {

const Tool& write_lat() { return *find_tool("fab_write_lat"); }

// A tool's command line as its summary sees it: this process's options, the run's, the sizes.
struct Parsed {
  Invocation cl;
  RunOptions run;
  std::vector<uint64_t> sizes;
  SummaryView view() const {
    return own_summary_view(cl.program, run, duration_given(cl), sizes.front(), sizes.back());
  }
};

Parsed parse(const Tool& tool, std::vector<std::string> args) {
  auto cl = parse_tool_command_line(args, tool.bit, tool.name, true);
  EXPECT_TRUE(cl.ok()) << cl.status().message();
  auto inv = resolve_tool_invocation(tool, *cl, false, true);
  EXPECT_TRUE(inv.ok()) << inv.status().message();
  Parsed out{*inv, inv->own, {}};
  out.sizes = tool_sizes(out.cl);
  return out;
}

// The man page's Cassini endpoints, so the block can be compared with its text as printed.
Endpoints cassini(bool server) {
  return {"cxi0",
          "cxi",
          server,
          server ? "NIC 0x12 PID 0 VNI 10" : "NIC 0x13 PID 0 VNI 10",
          server ? "NIC 0x13 PID 0" : "NIC 0x12 PID 0",
          "",
          std::nullopt};
}

const char* kDashes = "------------------------------------------------------------------------\n";

TEST(CxiFormat, ManPageExample1SummaryBlock) {
  Parsed o = parse(write_lat(), {"10.1.1.8", "-D", "1", "-s", "1:1024"});
  std::string expected = std::string(kDashes) +
                         "    CXI RDMA Write Latency Test\n"
                         "Device           : cxi0\n"
                         "Service ID       : 1\n"
                         "Client TX Mem    : System\n"
                         "Server RX Mem    : System\n"
                         "Test Type        : Duration\n"
                         "Duration         : 1 seconds\n"
                         "Warmup Iters     : 10\n"
                         "Inter-Iter Gap   : 1000 microseconds\n"
                         "Min Write Size   : 1\n"
                         "Max Write Size   : 1024\n"
                         "IDC              : Enabled\n"
                         "Restricted       : Enabled\n"
                         "LL Cmd Launch    : Enabled\n"
                         "Results Reported : Summary\n"
                         "Hugepages        : Disabled\n"
                         "Local (client)   : NIC 0x13 PID 0 VNI 10\n"
                         "Remote (server)  : NIC 0x12 PID 0\n" +
                         kDashes;
  EXPECT_EQ(summary_block(write_lat(), o.view(), cassini(false)), expected);
  std::string server = summary_block(write_lat(), o.view(), cassini(true));
  EXPECT_NE(server.find("Local (server)   : NIC 0x12 PID 0 VNI 10\n"
                        "Remote (client)  : NIC 0x13 PID 0\n"),
            std::string::npos);
}

TEST(CxiFormat, ManPageExample2SummaryBlock) {
  Parsed o = parse(write_lat(), {"10.1.1.8", "-n", "5", "--report-all"});
  std::string block = summary_block(write_lat(), o.view(), cassini(false));
  EXPECT_NE(block.find("Test Type        : Iteration\n"
                       "Iterations       : 5\n"
                       "Warmup Iters     : 10\n"
                       "Inter-Iter Gap   : 1000 microseconds\n"
                       "Write Size       : 8\n"
                       "IDC              : Enabled\n"
                       "Restricted       : Enabled\n"
                       "LL Cmd Launch    : Enabled\n"
                       "Results Reported : All\n"
                       "Hugepages        : Disabled\n"),
            std::string::npos)
      << block;
}

TEST(CxiFormat, LatencyTableMatchesTheManPage) {
  EXPECT_EQ(latency_header(write_lat(), {}),
            "RDMA Size[B]      Writes     Min[us]     Max[us]    Mean[us]  StdDev[us]\n");
  LatencySummary s;
  s.samples = 103477;
  s.min = 2040, s.max = 7650, s.mean = 2080, s.stddev = 60;
  EXPECT_EQ(latency_row(1, s),
            "           1      103477        2.04        7.65        2.08        0.06\n");
  EXPECT_EQ(sample_header(write_lat()), "  WriteNum  Latency[us]\n");
  EXPECT_EQ(sample_row(0, 2008), "         0        2.008\n");
}

TEST(CxiFormat, ValuesAreRoundedNotTruncated) {
  LatencySummary s;
  s.samples = 5;
  s.min = 2069.9, s.max = 2124.6, s.mean = 2086, s.stddev = 14.9;
  EXPECT_EQ(latency_row(8, s),
            "           8           5        2.07        2.12        2.09        0.01\n");
  EXPECT_EQ(sample_row(4, 2007.6), "         4        2.008\n");
}

TEST(CxiFormat, PercentileColumnsFollowTheSixColumns) {
  EXPECT_EQ(latency_header(write_lat(), {50, 99.9}),
            "RDMA Size[B]      Writes     Min[us]     Max[us]    Mean[us]  StdDev[us]"
            "     P50[us]   P99.9[us]\n");
  LatencySummary s;
  s.samples = 1;
  s.percentiles = {{50, 2500}, {99.9, 3004}};
  EXPECT_EQ(latency_row(8, s).substr(72), "        2.50        3.00\n");
}

TEST(CxiFormat, OtherToolsLabels) {
  EXPECT_EQ(latency_header(*find_tool("fab_read_lat"), {}).substr(0, 24),
            "RDMA Size[B]       Reads");
  EXPECT_EQ(latency_header(*find_tool("fab_send_lat"), {}).substr(0, 24),
            "Send Size[B]       Sends");
  EXPECT_EQ(latency_header(*find_tool("fab_atomic_lat"), {}).substr(0, 24),
            " AMO Size[B]         Ops");
  EXPECT_EQ(sample_header(*find_tool("fab_read_lat")), "   ReadNum  Latency[us]\n");
}

// "%12s  %10s  %8s  %15s" (51 columns) and "%12lu  %10lu  %8.2Lf  %15.6Lf".
TEST(CxiFormat, BandwidthTables) {
  const Tool& bw = *find_tool("fab_write_bw");
  EXPECT_EQ(bandwidth_header(bw), "RDMA Size[B]      Writes  BW[MB/s]  PktRate[Mpkt/s]\n");
  EXPECT_EQ(bandwidth_header(bw).size(), 52u);
  EXPECT_EQ(dash_line(bw), std::string(51, '-') + "\n");
  // 32 packets of 2048 bytes per 64 KiB write.
  EXPECT_EQ(bandwidth_row(bw, 65536, 256000, 22146.94e6, 10.813936e6 / 32),
            "       65536      256000  22146.94        10.813936\n");
  // A unidirectional server: "%12lu  %10s ..." with "-" for the count.
  EXPECT_EQ(bandwidth_row(bw, 65536, std::nullopt, 22146.94e6, 10.813936e6 / 32),
            "       65536           -  22146.94        10.813936\n");
  // Values wider than the column push the rest right, as printf does.
  EXPECT_EQ(bandwidth_row(bw, 8, 123456789012ull, 123456.789e6, 1e6),
            "           8  123456789012  123456.79         1.000000\n");
  EXPECT_EQ(bandwidth_header(*find_tool("fab_read_bw")),
            "RDMA Size[B]       Reads  BW[MB/s]  PktRate[Mpkt/s]\n");
  EXPECT_EQ(bandwidth_header(*find_tool("fab_send_bw")),
            "Send Size[B]       Sends  BW[MB/s]  PktRate[Mpkt/s]\n");
  const Tool& amo = *find_tool("fab_atomic_bw");
  EXPECT_EQ(bandwidth_header(amo), " AMO Size[B]         Ops  BW[MB/s]      OpRate[M/s]\n");
  EXPECT_EQ(dash_line(amo), std::string(51, '-') + "\n");
  EXPECT_EQ(bandwidth_row(amo, 8, 1000, 8e6, 1e6),
            "           8        1000      8.00         1.000000\n");
  const Tool& loop = *find_tool("fab_loopback_bw");
  EXPECT_EQ(bandwidth_header(loop), "RDMA Size[B]      Writes  BW[Gb/s]  PktRate[Mpkt/s]\n");
  EXPECT_EQ(dash_line(loop), std::string(51, '-') + "\n");
  // 12.5 GB/s = 100 Gb/s; 256 packets per 512 KiB write.
  EXPECT_EQ(bandwidth_row(loop, 524288, 204800, 12.5e9, 12.5e9 / 524288),
            "      524288      204800    100.00         6.103516\n");
  EXPECT_EQ(dash_line(write_lat()), std::string(72, '-') + "\n");
}

TEST(CxiFormat, CxiOnlySwitchesAreNotApplicableElsewhere) {
  Parsed o = parse(write_lat(), {"h", "--no-idc"});
  Endpoints tcp{"lo", "tcp;ofi_rxm", false, "127.0.0.1 PID 1", "127.0.0.1 PID 2", "", std::nullopt};
  std::string block = summary_block(write_lat(), o.view(), tcp);
  EXPECT_NE(block.find("Device           : lo (tcp;ofi_rxm)\n"), std::string::npos);
  EXPECT_NE(block.find("Service ID       : Not Applicable\n"), std::string::npos);
  EXPECT_NE(block.find("IDC              : Not Applicable\n"), std::string::npos);
  EXPECT_NE(block.find("LL Cmd Launch    : Not Applicable\n"), std::string::npos);
  // With cxi the switch acts; without it IDC is Enabled whatever the sizes, as the originals
  // print their use_idc.
  EXPECT_NE(
      summary_block(write_lat(), o.view(), cassini(false)).find("IDC              : Disabled\n"),
      std::string::npos);
  Parsed big = parse(write_lat(), {"h", "-s", "1024:4096"});
  EXPECT_NE(
      summary_block(write_lat(), big.view(), cassini(false)).find("IDC              : Enabled\n"),
      std::string::npos);
}

const std::string kDashes51 = std::string(51, '-') + "\n";

// write_bw.c: print_loc_opts, then Test Type ... RDMA Buf Align, print_hugepage_opts, Local,
// Remote, all between strlen(header) = 51 dashes.
TEST(CxiFormat, WriteBwSummaryBlock) {
  const Tool& bw = *find_tool("fab_write_bw");
  std::string expected = kDashes51 +
                         "    CXI RDMA Write Bandwidth Test\n"
                         "Device           : cxi0\n"
                         "Service ID       : 1\n"
                         "Client TX Mem    : System\n"
                         "Server RX Mem    : System\n"
                         "Test Type        : Iteration\n"
                         "Iterations       : 1000\n"
                         "Write Size       : 65536\n"
                         "List Size        : 256\n"
                         "HRP              : Enabled\n"
                         "IDC              : Enabled\n"
                         "Restricted       : Enabled\n"
                         "Bidirectional    : Disabled\n"
                         "Max RDMA Buf     : 4294967296 (16777216 used)\n"
                         "RDMA Buf Align   : 64\n"
                         "Hugepages        : Disabled\n"
                         "Local (client)   : NIC 0x13 PID 0 VNI 10\n"
                         "Remote (server)  : NIC 0x12 PID 0\n" +
                         kDashes51;
  EXPECT_EQ(summary_block(bw, parse(bw, {"h"}).view(), cassini(false)), expected);
  // --unrestricted takes HRP away: "Disabled - Not Applicable"; the used buffer is capped.
  std::string u = summary_block(
      bw, parse(bw, {"h", "--unrestricted", "-s", "8:1024", "--buf-sz", "4096", "-b"}).view(),
      cassini(false));
  EXPECT_NE(u.find("Min Write Size   : 8\n"
                   "Max Write Size   : 1024\n"
                   "List Size        : 256\n"
                   "HRP              : Disabled - Not Applicable\n"
                   "IDC              : Enabled\n"
                   "Restricted       : Disabled\n"
                   "Bidirectional    : Enabled\n"
                   "Max RDMA Buf     : 4096 (4096 used)\n"),
            std::string::npos)
      << u;
}

// read_bw.c: no HRP or IDC line; Restricted, Bidirectional, Max RDMA Buf.
TEST(CxiFormat, ReadBwSummaryBlock) {
  const Tool& bw = *find_tool("fab_read_bw");
  std::string block =
      summary_block(bw, parse(bw, {"h", "-s", "4096", "-l", "8"}).view(), cassini(false));
  EXPECT_EQ(block.rfind(kDashes51, 0), 0u);
  EXPECT_NE(block.find("    CXI RDMA Read Bandwidth Test\n"), std::string::npos) << block;
  EXPECT_NE(block.find("Test Type        : Iteration\n"
                       "Iterations       : 1000\n"
                       "Read Size        : 4096\n"
                       "List Size        : 8\n"
                       "Restricted       : Enabled\n"
                       "Bidirectional    : Disabled\n"
                       "Max RDMA Buf     : 4294967296 (32768 used)\n"
                       "RDMA Buf Align   : 64\n"
                       "Hugepages        : Disabled\n"
                       "Local (client)   : "),
            std::string::npos)
      << block;
}

// send_bw.c: title "CXI RDMA Send Bandwidth Test"; IDC, Bidirectional, Rendezvous PUTs.
TEST(CxiFormat, SendBwSummaryBlock) {
  const Tool& bw = *find_tool("fab_send_bw");
  std::string block = summary_block(bw, parse(bw, {"h", "-s", "64", "-R"}).view(), cassini(false));
  EXPECT_EQ(block.rfind(kDashes51 + "    CXI RDMA Send Bandwidth Test\n", 0), 0u) << block;
  EXPECT_NE(block.find("Send Size        : 64\n"
                       "List Size        : 256\n"
                       "IDC              : Disabled\n"  // -R turns IDC off
                       "Bidirectional    : Disabled\n"
                       "Rendezvous PUTs  : Enabled\n"
                       "Max RDMA Buf     : 4294967296 (16384 used)\n"),
            std::string::npos)
      << block;
}

// atomic_bw.c: 16-wide labels, no buffer lines, "%sFETCHING %s %s", Matching LEs before
// Restricted, Bidirectional.
TEST(CxiFormat, AtomicBwSummaryBlock) {
  const Tool& amo = *find_tool("fab_atomic_bw");
  std::string expected = kDashes51 +
                         "    CXI Atomic Memory Operation Bandwidth Test\n"
                         "Device          : cxi0\n"
                         "Service ID      : 1\n"
                         "Test Type       : Iteration\n"
                         "Iterations      : 10000\n"
                         // "%sFETCHING %s %s": a blank after a non-CSWAP op
                         "Atomic Op       : NON-FETCHING SUM \n"
                         "Atomic Type     : UINT64\n"
                         "List Size       : 4096\n"
                         "HRP             : Enabled\n"
                         "IDC             : Enabled\n"
                         "Matching LEs    : Disabled\n"
                         "Restricted      : Enabled\n"
                         "Bidirectional   : Disabled\n"
                         "Local (client)  : NIC 0x13 PID 0 VNI 10\n"
                         "Remote (server) : NIC 0x12 PID 0\n" +
                         kDashes51;
  EXPECT_EQ(summary_block(amo, parse(amo, {"h"}).view(), cassini(false)), expected);
  // Fetching AMOs take no HRP; matching ones neither IDC nor restricted.
  std::string f = summary_block(
      amo, parse(amo, {"h", "--fetching", "--matching", "-A", "cswap", "-C", "ne"}).view(),
      cassini(false));
  EXPECT_NE(f.find("Atomic Op       : FETCHING CSWAP NE\n"), std::string::npos) << f;
  EXPECT_NE(f.find("HRP             : Disabled - Not Applicable\n"
                   "IDC             : Disabled - Not Applicable\n"
                   "Matching LEs    : Enabled\n"
                   "Restricted      : Disabled - Not Applicable\n"),
            std::string::npos)
      << f;
}

// atomic_lat.c: no memory or Hugepages lines; IDC, Matching LEs, Restricted, LL Cmd Launch.
TEST(CxiFormat, AtomicLatSummaryBlock) {
  const Tool& amo = *find_tool("fab_atomic_lat");
  std::string expected = std::string(kDashes) +
                         "    CXI Atomic Memory Operation Latency Test\n"
                         "Device           : cxi0\n"
                         "Service ID       : 1\n"
                         "Test Type        : Iteration\n"
                         "Iterations       : 100\n"
                         "Warmup Iters     : 10\n"
                         "Inter-Iter Gap   : 1000 microseconds\n"
                         "Atomic Op        : NON-FETCHING CSWAP EQ\n"
                         "Atomic Type      : UINT64\n"
                         "IDC              : Enabled\n"
                         "Matching LEs     : Disabled\n"
                         "Restricted       : Enabled\n"
                         "LL Cmd Launch    : Enabled\n"
                         "Results Reported : Summary\n"
                         "Local (client)   : NIC 0x13 PID 0 VNI 10\n"
                         "Remote (server)  : NIC 0x12 PID 0\n" +
                         kDashes;
  EXPECT_EQ(summary_block(amo, parse(amo, {"h", "-A", "CSWAP"}).view(), cassini(false)), expected);
  std::string a = summary_block(
      amo, parse(amo, {"h", "-A", "min", "-T", "int32", "--fetching"}).view(), cassini(false));
  EXPECT_NE(a.find("Atomic Op        : FETCHING MIN \nAtomic Type      : INT32\n"),
            std::string::npos)
      << a;
}

// send_lat.c: "CXI RDMA Send Latency Test"; IDC, LL Cmd Launch, Rendezvous PUTs.
TEST(CxiFormat, SendLatSummaryBlock) {
  const Tool& t = *find_tool("fab_send_lat");
  std::string block = summary_block(t, parse(t, {"h"}).view(), cassini(false));
  EXPECT_EQ(block.rfind(std::string(kDashes) + "    CXI RDMA Send Latency Test\n", 0), 0u) << block;
  EXPECT_NE(block.find("Send Size        : 8\n"
                       "IDC              : Enabled\n"
                       "LL Cmd Launch    : Enabled\n"
                       "Rendezvous PUTs  : Disabled\n"
                       "Results Reported : Summary\n"
                       "Hugepages        : Disabled\n"),
            std::string::npos)
      << block;
}

// read_lat.c: no IDC line.
TEST(CxiFormat, ReadLatSummaryBlock) {
  const Tool& t = *find_tool("fab_read_lat");
  std::string block = summary_block(t, parse(t, {"h"}).view(), cassini(false));
  EXPECT_NE(block.find("Read Size        : 8\n"
                       "Restricted       : Enabled\n"
                       "LL Cmd Launch    : Enabled\n"
                       "Results Reported : Summary\n"),
            std::string::npos)
      << block;
}

// loopback_bw.c: TX Mem, RX Mem, Write Size (B), Cmds per iter, Hugepages; no Local/Remote.
TEST(CxiFormat, LoopbackSummaryBlock) {
  const Tool& t = *find_tool("fab_loopback_bw");
  auto cl = parse_tool_command_line({}, t.bit, t.name, false);
  ASSERT_TRUE(cl.ok()) << cl.status().message();
  auto inv = resolve_tool_invocation(t, *cl, false, true);
  ASSERT_TRUE(inv.ok()) << inv.status().message();
  Parsed o{*inv, inv->own, {}};
  o.sizes = tool_sizes(o.cl);
  Endpoints ep{"cxi0", "cxi", false, "", "", "", std::nullopt};
  std::string expected = kDashes51 +
                         "    CXI Loopback Bandwidth Test\n"
                         "Device           : cxi0\n"
                         "Service ID       : 1\n"
                         "TX Mem           : System\n"
                         "RX Mem           : System\n"
                         "Test Type        : Iteration\n"
                         "Iterations       : 25\n"
                         "Write Size (B)   : 524288\n"
                         "Cmds per iter    : 8192\n"
                         "Hugepages        : Disabled\n" +
                         kDashes51;
  EXPECT_EQ(summary_block(t, o.view(), ep), expected);
}

TEST(CxiFormat, RdmaBufferUsed) {
  EXPECT_EQ(rdma_buffer_used(65536, 256, 64, 4294967296ull), 16777216u);
  EXPECT_EQ(rdma_buffer_used(100, 4, 64, 4294967296ull), 512u);  // NEXT_MULTIPLE(100, 64) x 4
  EXPECT_EQ(rdma_buffer_used(4294967295ull, 65536, 64, 4294967296ull), 4294967296ull);
}

TEST(CxiFormat, GpuAndHugepageLines) {
  Parsed o = parse(write_lat(), {"h", "-t", "0", "-g", "nvidia", "--use-hp", "2m"});
  SummaryView v = o.view();
  v.server = SideMemory{};  // the server said: system memory
  std::string block = summary_block(write_lat(), v, cassini(false));
  // The originals' order (print_loc_opts): each side's memory, then its GPU type.
  EXPECT_NE(block.find("Client TX Mem    : GPU 0\nClient GPU Type  : NVIDIA\n"
                       "Server RX Mem    : System\nTest Type"),
            std::string::npos)
      << block;
  // The originals' line once the GPU library is loaded, last in the block.
  v.gpus_found = 2;
  EXPECT_NE(summary_block(write_lat(), v, cassini(false))
                .find("Remote (server)  : NIC 0x12 PID 0\nFound 2 GPU(s)\n---"),
            std::string::npos);
  // The client's one buffer is on the GPU: no huge pages of its own.
  EXPECT_NE(block.find("Hugepages        : Disabled - Not Applicable\n"), std::string::npos)
      << block;
}

// Without -g the originals name the type they found (Client GPU Type : NVIDIA), as seen on an
// H100 where fabperf printed "(discovered)" before: the type comes from the device files.
TEST(CxiFormat, GpuTypeWithoutDashGIsTheTypeFound) {
  char dir[] = "/tmp/fabperf-devXXXXXX";
  ASSERT_NE(mkdtemp(dir), nullptr);
  const std::string dev = dir;
  Parsed none = parse(write_lat(), {"h", "-t", "0"});
  ProgramOptions p = none.cl.program;
  fill_discovered_gpu_type(p, dev);  // no device file: left for open_gpu to name what is missing
  EXPECT_EQ(p.gpu_type, "");
  { std::ofstream(dev + "/nvidia0") << ""; }
  fill_discovered_gpu_type(p, dev);
  EXPECT_EQ(p.gpu_type, "NVIDIA");
  ProgramOptions host = parse(write_lat(), {"h"}).cl.program;  // no GPU buffer: no type line
  fill_discovered_gpu_type(host, dev);
  EXPECT_EQ(host.gpu_type, "");
  ProgramOptions named = parse(write_lat(), {"h", "-r", "0", "-g", "AMD"}).cl.program;
  fill_discovered_gpu_type(named, dev);  // -g wins over what is found
  EXPECT_EQ(named.gpu_type, "AMD");
  std::remove((dev + "/nvidia0").c_str());
  rmdir(dir);
}

// Each process's own buffers: a server started with -r 0 shows its GPU and type, the client's
// own -t its; with -b the four memory lines of the originals.
TEST(CxiFormat, EachSidesOwnMemoryAndBidirectionalLines) {
  Parsed o = parse(write_lat(), {"h"});
  SummaryView v = o.view();
  v.client = SideMemory{};
  v.server = SideMemory{-1, 0, "AMD"};
  std::string block = summary_block(write_lat(), v, cassini(true));
  EXPECT_NE(block.find("Client TX Mem    : System\nServer RX Mem    : GPU 0\n"
                       "Server GPU Type  : AMD\n"),
            std::string::npos)
      << block;
  EXPECT_EQ(block.find("Client GPU Type"), std::string::npos) << block;
  const Tool& bw = *find_tool("fab_read_bw");
  Parsed b = parse(bw, {"h", "-b"});
  SummaryView bv = b.view();
  bv.client = SideMemory{1, 1, "NVIDIA"};
  bv.server = SideMemory{-1, -1, ""};
  std::string both = summary_block(bw, bv, cassini(false));
  EXPECT_NE(both.find("Client TX Mem    : GPU 1\nClient RX Mem    : GPU 1\n"
                      "Client GPU Type  : NVIDIA\nServer TX Mem    : System\n"
                      "Server RX Mem    : System\n"),
            std::string::npos)
      << both;
  EXPECT_NE(both.find("Bidirectional    : Enabled\n"), std::string::npos) << both;
  // A server knows -b from the run, not its own command line; -n from the client.
  Parsed s = parse(bw, {"h"});
  SummaryView sv = s.view();
  sv.asked.bidirectional = true;
  sv.asked.iters = 7;
  std::string server = summary_block(bw, sv, cassini(true));
  EXPECT_NE(server.find("Bidirectional    : Enabled\n"), std::string::npos) << server;
  EXPECT_NE(server.find("Iterations       : 7\n"), std::string::npos) << server;
  EXPECT_EQ(SideMemory::from_json(SideMemory{2, 3, "INTEL"}.to_json()).rx, 3);
  EXPECT_EQ(SideMemory::from_json(nlohmann::json("junk")).tx, -1);
}

// The server prints the run its client asked for: the view crosses in HELLO as JSON, and a
// block built from it is the client's, but for the side-specific Local/Remote lines.
TEST(CxiFormat, ServerBlockFromTheClientsView) {
  Parsed o = parse(write_lat(), {"h", "-D", "1", "-s", "1:1024", "--report-all"});
  SummaryView client = o.view();
  SummaryView server;
  server.asked = RunView::from_json(nlohmann::json::parse(client.asked.to_json().dump()));
  server.run = o.run;
  std::string c = summary_block(write_lat(), client, cassini(false));
  std::string s = summary_block(write_lat(), server, cassini(true));
  auto without_ends = [](const std::string& block) {
    return block.substr(0, block.find("Local ("));
  };
  EXPECT_EQ(without_ends(s), without_ends(c));
  EXPECT_NE(s.find("Test Type        : Duration\nDuration         : 1 seconds\n"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find("Min Write Size   : 1\nMax Write Size   : 1024\n"), std::string::npos) << s;
  EXPECT_NE(s.find("Results Reported : All\n"), std::string::npos) << s;
}

TEST(CxiFormat, RunViewFromAPeerIsChecked) {
  RunView v = RunView::from_json(nlohmann::json::parse(
      R"({"duration": -3, "iters": "many", "min_size": 8, "max_size": 2, "buf_align": 0,
          "report_all": 1, "in_flight": 12})"));
  EXPECT_FALSE(v.by_duration);
  EXPECT_EQ(v.iters, 0u);
  EXPECT_EQ(v.min_size, 8u);
  EXPECT_EQ(v.max_size, 8u);  // never below MIN
  EXPECT_EQ(v.buf_align, 1u);
  EXPECT_FALSE(v.report_all);  // not a boolean
  EXPECT_EQ(v.in_flight, 12u);
  EXPECT_FALSE(RunView::from_json(nlohmann::json("junk")).by_duration);
}

// get_hugepages_needed: each host buffer of this side in whole pages; the count on the line.
TEST(CxiFormat, HugepagesLineCountsThisSidesPages) {
  Parsed lat = parse(write_lat(), {"h", "--use-hp", "2M", "-s", "8"});
  EXPECT_NE(summary_block(write_lat(), lat.view(), cassini(false))
                .find("Hugepages        : Enabled (2M - 1 pages)\n"),
            std::string::npos);
  const Tool& bw = *find_tool("fab_write_bw");
  // 65536 x 256 = 16 MiB: 8 pages of 2M; with -b each side holds two buffers.
  Parsed uni = parse(bw, {"h", "--use-hp", "2M"});
  EXPECT_EQ(hugepages_needed(bw, uni.view(), false), 8u);
  EXPECT_EQ(hugepages_needed(bw, uni.view(), true), 8u);
  Parsed both = parse(bw, {"h", "--use-hp", "2M", "-b"});
  EXPECT_EQ(hugepages_needed(bw, both.view(), true), 16u);
  EXPECT_NE(summary_block(bw, both.view(), cassini(false))
                .find("Max RDMA Buf     : 4294967296 (16777216 used)\nRDMA Buf Align   : 64\n"
                      "Hugepages        : Enabled (2M - 16 pages)\n"),
            std::string::npos);
  Parsed gig = parse(bw, {"h", "--use-hp", "1G", "-l", "1", "-s", "8"});
  EXPECT_NE(summary_block(bw, gig.view(), cassini(false))
                .find("Max RDMA Buf     : 4294967296 (1073741824 used)\n"),
            std::string::npos);
  EXPECT_EQ(hugepages_needed(bw, gig.view(), false), 1u);
}

// "(N used)" rounded up to the page as get_hugepages_needed rounds it: -l 1 -s 8 uses 4096.
TEST(CxiFormat, UsedBufferIsPageRounded) {
  EXPECT_EQ(rdma_buffer_used(8, 1, 64, 4294967296ull, 4096), 4096u);
  EXPECT_EQ(rdma_buffer_used(4096, 2, 64, 4294967296ull, 4096), 8192u);
  const Tool& bw = *find_tool("fab_write_bw");
  std::string block =
      summary_block(bw, parse(bw, {"h", "-l", "1", "-s", "8"}).view(), cassini(false));
  EXPECT_NE(block.find("(" + std::to_string(sysconf(_SC_PAGE_SIZE)) + " used)"), std::string::npos)
      << block;
}

// A provider whose transmit queue is shallower than -l: the line says how many are in flight.
TEST(CxiFormat, ListSizeSaysWhereTheProviderCapsIt) {
  const Tool& amo = *find_tool("fab_atomic_bw");
  SummaryView v = parse(amo, {"h", "--fetching"}).view();
  EXPECT_NE(summary_block(amo, v, cassini(false)).find("List Size       : 4096\n"),
            std::string::npos);
  v.asked.in_flight = 1024;
  EXPECT_NE(summary_block(amo, v, cassini(false))
                .find("List Size       : 4096 (1024 in flight: the provider's transmit queue)\n"),
            std::string::npos);
}

// A struct cxip_addr as the provider lays it out (pid:9, nic:20, pad:3 in one host-order
// word, then the VNI), built here from the field widths: the originals' Local/Remote lines.
std::vector<uint8_t> fake_cxip_addr(uint32_t nic, uint32_t pid, uint16_t vni, bool with_vni) {
  uint32_t word = (pid & 0x1ffu) | ((nic & 0xfffffu) << 9) | (0x7u << 29);  // pad bits set
  std::vector<uint8_t> out(with_vni ? 8 : 4, 0);
  std::memcpy(out.data(), &word, sizeof word);
  if (with_vni) std::memcpy(out.data() + 4, &vni, sizeof vni);
  return out;
}

TEST(CxiFormat, CxiAddressDecodesTheBitFields) {
  auto a = decode_cxi_address(fake_cxip_addr(0x13, 0, 10, true));
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(a->nic, 0x13u);
  EXPECT_EQ(a->pid, 0u);
  EXPECT_EQ(a->vni, std::optional<uint16_t>(10));
  auto wide = decode_cxi_address(fake_cxip_addr(0xfffff, 511, 0, false));
  ASSERT_TRUE(wide.has_value());
  EXPECT_EQ(wide->nic, 0xfffffu);  // the pad bits above stay out of the NIC
  EXPECT_EQ(wide->pid, 511u);
  EXPECT_FALSE(wide->vni.has_value());
  EXPECT_FALSE(decode_cxi_address({1, 2, 3}).has_value());
}

// The man page's "Local (client)   : NIC 0x13 PID 0 VNI 10" and "Remote (server)  : NIC 0x12
// PID 0" on cxi; the host and process elsewhere, and where a cxi peer said nothing usable.
TEST(CxiFormat, LocalAndRemoteLinesOnCxi) {
  std::string local = hex_encode(fake_cxip_addr(0x13, 0, 10, true));
  std::string remote = hex_encode(fake_cxip_addr(0x12, 0, 10, true));
  EXPECT_EQ(endpoint_text("cxi", local, uint16_t{10}, "10.0.0.1", 42), "NIC 0x13 PID 0 VNI 10");
  EXPECT_EQ(endpoint_text("cxi", remote, std::nullopt, "10.0.0.2", 43), "NIC 0x12 PID 0");
  EXPECT_EQ(
      endpoint_text("cxi", hex_encode(fake_cxip_addr(0x2a, 3, 0, false)), uint16_t{1}, "h", 1),
      "NIC 0x2a PID 3 VNI 1");
  EXPECT_EQ(endpoint_text("shm", local, uint16_t{10}, "127.0.0.1", 42), "127.0.0.1 PID 42");
  EXPECT_EQ(endpoint_text("cxi", "", std::nullopt, "10.0.0.2", 43), "10.0.0.2 PID 43");
  EXPECT_EQ(endpoint_text("cxi", "zz", std::nullopt, "10.0.0.2", 43), "10.0.0.2 PID 43");

  Endpoints ep = cassini(false);
  ep.local = endpoint_text("cxi", local, uint16_t{10}, "10.0.0.1", 42);
  ep.remote = endpoint_text("cxi", remote, std::nullopt, "10.0.0.2", 43);
  std::string block = summary_block(write_lat(), parse(write_lat(), {"h"}).view(), ep);
  EXPECT_NE(block.find("Local (client)   : NIC 0x13 PID 0 VNI 10\n"
                       "Remote (server)  : NIC 0x12 PID 0\n"),
            std::string::npos)
      << block;
}

}  // namespace
}  // namespace fabperf::cxi
