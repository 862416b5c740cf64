// Golden tests of the CXI tools' text: the cxi_write_lat man page's two examples, byte for byte.
#include <gtest/gtest.h>

#include "cli/tool_grammar.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_plan.h"

namespace fabperf::cxi {
namespace {

const Tool& write_lat() { return *find_tool("fab_write_lat"); }

// A tool's command line as its summary sees it: this process's options, the run's, the sizes.
struct Parsed {
  CommandLine cl;
  RunOptions run;
  std::vector<uint64_t> sizes;
  SummaryView view() const { return SummaryView{cl.program, run, sizes.front(), sizes.back()}; }
};

Parsed parse(const Tool& tool, std::vector<std::string> args) {
  auto cl = parse_tool_command_line(args, tool.bit, tool.name, true);
  EXPECT_TRUE(cl.ok()) << cl.status().message();
  Parsed out{*cl, {}, {}};
  EXPECT_TRUE(apply_tool_defaults(tool, out.cl).ok());
  out.run = resolve_own_run_options(out.cl.assignments, Dialect::kCxi);
  out.sizes = tool_sizes(out.cl);
  return out;
}

// The man page's Cassini endpoints, so the block can be compared with its text as printed.
Endpoints cassini(bool server) {
  return {"cxi0", "cxi", server, server ? "NIC 0x12 PID 0 VNI 10" : "NIC 0x13 PID 0 VNI 10",
          server ? "NIC 0x13 PID 0" : "NIC 0x12 PID 0"};
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
  EXPECT_EQ(latency_header(*find_tool("fab_read_lat"), {}).substr(0, 24), "RDMA Size[B]       Reads");
  EXPECT_EQ(latency_header(*find_tool("fab_send_lat"), {}).substr(0, 24), "Send Size[B]       Sends");
  EXPECT_EQ(latency_header(*find_tool("fab_atomic_lat"), {}).substr(0, 24), " AMO Size[B]         Ops");
  EXPECT_EQ(sample_header(*find_tool("fab_read_lat")), "   ReadNum  Latency[us]\n");
}

TEST(CxiFormat, BandwidthTables) {
  const Tool& bw = *find_tool("fab_write_bw");
  EXPECT_EQ(bandwidth_header(bw), "RDMA Size[B]      Writes  BW[MB/s]  PktRate[Mpkt/s]\n");
  // 32 packets of 2048 bytes per 64 KiB write.
  EXPECT_EQ(bandwidth_row(bw, 65536, 256000, 22146.94e6, 10.813936e6 / 32),
            "       65536      256000  22146.94        10.813936\n");
  EXPECT_EQ(bandwidth_header(*find_tool("fab_send_bw")),
            "Send Size[B]       Sends  BW[MB/s]  PktRate[Mpkt/s]\n");
  EXPECT_EQ(bandwidth_header(*find_tool("fab_atomic_bw")),
            " AMO Size[B]         Ops  BW[MB/s] OpRate[M/s]\n");
  EXPECT_EQ(bandwidth_row(*find_tool("fab_atomic_bw"), 8, 1000, 8e6, 1e6),
            "           8        1000      8.00    1.000000\n");
  EXPECT_EQ(bandwidth_header(*find_tool("fab_loopback_bw")),
            "RDMA Size[B]      Writes    BW[Gb/s]\n");
  EXPECT_EQ(bandwidth_row(*find_tool("fab_loopback_bw"), 524288, 204800, 12.5e9, 0),
            "      524288      204800      100.00\n");
}

TEST(CxiFormat, CxiOnlySwitchesAreNotApplicableElsewhere) {
  Parsed o = parse(write_lat(), {"h", "--no-idc"});
  Endpoints tcp{"lo", "tcp;ofi_rxm", false, "127.0.0.1 PID 1", "127.0.0.1 PID 2"};
  std::string block = summary_block(write_lat(), o.view(), tcp);
  EXPECT_NE(block.find("Device           : lo (tcp;ofi_rxm)\n"), std::string::npos);
  EXPECT_NE(block.find("Service ID       : Not Applicable\n"), std::string::npos);
  EXPECT_NE(block.find("IDC              : Not Applicable\n"), std::string::npos);
  EXPECT_NE(block.find("LL Cmd Launch    : Not Applicable\n"), std::string::npos);
  // With cxi the switch acts, and the IDC line tells the truth about large sizes.
  EXPECT_NE(summary_block(write_lat(), o.view(), cassini(false)).find("IDC              : Disabled\n"),
            std::string::npos);
  Parsed big = parse(write_lat(), {"h", "-s", "1024:4096"});
  EXPECT_NE(summary_block(write_lat(), big.view(), cassini(false))
                .find("IDC              : Unused (sizes above 224)\n"),
            std::string::npos);
}

TEST(CxiFormat, BandwidthAndAtomicSummaryLines) {
  const Tool& bw = *find_tool("fab_write_bw");
  std::string block = summary_block(bw, parse(bw, {"h", "-b"}).view(), cassini(false));
  EXPECT_NE(block.find("Iterations       : 1000\n"
                       "Write Size       : 65536\n"
                       "List Size        : 256\n"),
            std::string::npos)
      << block;
  EXPECT_NE(block.find("Bidirectional    : Enabled\n"
                       "Max RDMA Buf     : 4294967296\n"
                       "RDMA Buf Align   : 64\n"),
            std::string::npos)
      << block;
  const Tool& amo = *find_tool("fab_atomic_lat");
  std::string a = summary_block(
      amo, parse(amo, {"h", "-A", "min", "-T", "int32", "--fetching"}).view(), cassini(false));
  EXPECT_NE(a.find("Atomic Op        : FETCHING MIN\nAtomic Type      : INT32\n"), std::string::npos)
      << a;
  std::string c = summary_block(amo, parse(amo, {"h", "-A", "CSWAP", "-C", "ne"}).view(), cassini(false));
  EXPECT_NE(c.find("Atomic Op        : CSWAP NE\n"), std::string::npos) << c;
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
  EXPECT_NE(block.find("Hugepages        : Enabled (2M)\n"), std::string::npos);
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
  sv.bidirectional = true;
  sv.iters = 7;
  std::string server = summary_block(bw, sv, cassini(true));
  EXPECT_NE(server.find("Bidirectional    : Enabled\n"), std::string::npos) << server;
  EXPECT_NE(server.find("Iterations       : 7\n"), std::string::npos) << server;
  EXPECT_EQ(SideMemory::from_json(SideMemory{2, 3, "INTEL"}.to_json()).rx, 3);
  EXPECT_EQ(SideMemory::from_json(nlohmann::json("junk")).tx, -1);
}

}  // namespace
}  // namespace fabperf::cxi
