// The fab_* tool table: every name, label and default of the CXI dialect lives here.
#include "cxi/cxi_tools.h"

namespace fabperf::cxi {

const std::vector<Tool>& tools() {
  using K = ToolKind;
  static const std::vector<Tool> table = {
      // name, original, bit, kind, title, test, bi_test, size label, op label, noun,
      // sample label, iters, size, list, summary
      {"fab_write_lat", "cxi_write_lat", kCxiWriteLat, K::kLatency, "CXI RDMA Write Latency Test",
       "rdm_write_lat", nullptr, "RDMA Size[B]", "Writes", "Write", "WriteNum", 100, 8, 0,
       "one-sided RDMA write latency"},
      {"fab_read_lat", "cxi_read_lat", kCxiReadLat, K::kLatency, "CXI RDMA Read Latency Test",
       "rdm_read_lat", nullptr, "RDMA Size[B]", "Reads", "Read", "ReadNum", 100, 8, 0,
       "one-sided RDMA read latency"},
      {"fab_send_lat", "cxi_send_lat", kCxiSendLat, K::kLatency, "CXI RDMA Send Latency Test",
       "rdm_send_lat", nullptr, "Send Size[B]", "Sends", "Send", "SendNum", 100, 8, 0,
       "two-sided send latency (round trip / 2)"},
      {"fab_atomic_lat", "cxi_atomic_lat", kCxiAtomicLat, K::kLatency,
       "CXI Atomic Memory Operation Latency Test", "rdm_atomic_lat", nullptr, "AMO Size[B]", "Ops",
       "AMO", "OpNum", 100, 8, 0, "atomic memory operation latency"},
      {"fab_write_bw", "cxi_write_bw", kCxiWriteBw, K::kBandwidth, "CXI RDMA Write Bandwidth Test",
       "rdm_write_bw", "rdm_write_bi_bw", "RDMA Size[B]", "Writes", "Write", "", 1000, 65536, 256,
       "one-sided RDMA write bandwidth"},
      {"fab_read_bw", "cxi_read_bw", kCxiReadBw, K::kBandwidth, "CXI RDMA Read Bandwidth Test",
       "rdm_read_bw", "rdm_read_bi_bw", "RDMA Size[B]", "Reads", "Read", "", 1000, 65536, 256,
       "one-sided RDMA read bandwidth"},
      {"fab_send_bw", "cxi_send_bw", kCxiSendBw, K::kBandwidth, "CXI RDMA Send Bandwidth Test",
       "rdm_send_bw", "rdm_send_bi_bw", "Send Size[B]", "Sends", "Send", "", 1000, 65536, 256,
       "two-sided send bandwidth"},
      {"fab_atomic_bw", "cxi_atomic_bw", kCxiAtomicBw, K::kBandwidth,
       "CXI Atomic Memory Operation Bandwidth Test", "rdm_atomic_bw", "rdm_atomic_bi_bw",
       "AMO Size[B]", "Ops", "AMO", "", 10000, 8, 4096, "atomic memory operation rate"},
      {"fab_loopback_bw", "cxi_gpu_loopback_bw", kCxiLoopbackBw, K::kLoopback,
       "CXI Loopback Bandwidth Test", "rdm_write_bw", nullptr, "RDMA Size[B]", "Writes", "Write",
       "", 25, 524288, 8192, "loopback RDMA write bandwidth, GPU or host memory"},
      {"fab_heatsink_check", "cxi_heatsink_check", kCxiHeatsink, K::kHeatsink, "CXI Heatsink Test",
       "rdm_write_bw", nullptr, "", "", "Write", "", 0, 512, 256,
       "thermal stress: many small writes while the sensors are watched"},
      {"fab_stat", "cxi_stat", kCxiStat, K::kStat, "", "", nullptr, "", "", "", "", 0, 0, 0,
       "device (libfabric domain) information"},
  };
  return table;
}

const Tool* find_tool(std::string_view program) {
  for (const Tool& t : tools()) {
    if (program == t.name || program == t.original) return &t;
  }
  // cxi_gpu_bw_loopback is how the overview page spells the loopback tool.
  if (program == "cxi_gpu_bw_loopback") return find_tool("fab_loopback_bw");
  return nullptr;
}

std::string tool_synopsis(const Tool& tool) {
  if (tool.kind == ToolKind::kLatency || tool.kind == ToolKind::kBandwidth) {
    return std::string("  ") + tool.name + " [-d DEV] [-p PORT]\n  " + tool.name +
           " [OPTIONS] SERVER_ADDR\n";
  }
  return std::string("  ") + tool.name + " [OPTIONS]\n";
}

}  // namespace fabperf::cxi
