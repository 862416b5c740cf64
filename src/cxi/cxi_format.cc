// Summary block and tables of the CXI tools: fixed-width text, values rounded (printf), never
// truncated.
#include "cxi/cxi_format.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

#include "core/text.h"

namespace fabperf::cxi {

namespace {

// "Device           : cxi0": the label padded to the tool's width (16 for cxi_atomic_bw, 17
// for the others), then ": ".
struct Lines {
  size_t width = 17;
  std::string text;
  // Values may come from the peer (a server shows its client's options): escaped here, once
  // for every line.
  void add(const std::string& label, const std::string& value) {
    std::string l = label;
    if (l.size() < width) l.resize(width, ' ');
    text += l + ": " + printable(value, 256) + "\n";
  }
};

std::string printf_string(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
std::string printf_string(const char* fmt, ...) {
  char buf[256];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

std::string enabled(bool on) { return on ? "Enabled" : "Disabled"; }

const char* kNotApplicable = "Disabled - Not Applicable";

bool is_cxi(const Endpoints& ep) { return ep.provider == "cxi"; }

// A cxi-only switch: its state with the cxi provider, "Not Applicable" elsewhere.
std::string cxi_only(const Endpoints& ep, const std::string& state) {
  return is_cxi(ep) ? state : "Not Applicable";
}

std::string memory(int64_t gpu) { return gpu < 0 ? "System" : "GPU " + std::to_string(gpu); }

std::string number(uint64_t v) { return std::to_string(v); }

// The IDC line: IDC carries small payloads only (224 bytes restricted, 192 unrestricted and
// for sends) and never GPU memory (-t turns it off in the originals); the line says so
// instead of claiming it for sizes where it is never used.
std::string idc_state(const SummaryView& o, bool send) {
  const ProgramOptions& p = o.program;
  const RunOptions& r = o.run;
  uint64_t idc_max = r.unrestricted || send ? 192 : 224;
  if (r.no_idc || p.tx_gpu >= 0 || (send && r.rdzv)) return "Disabled";
  if (o.min_size > idc_max) return "Unused (sizes above " + number(idc_max) + ")";
  return "Enabled";
}

}  // namespace

nlohmann::json SideMemory::to_json() const {
  return {{"tx_gpu", tx}, {"rx_gpu", rx}, {"gpu_type", gpu_type}};
}

SideMemory SideMemory::from_json(const nlohmann::json& j) {
  SideMemory m;
  if (!j.is_object()) return m;
  if (auto it = j.find("tx_gpu"); it != j.end() && it->is_number_integer()) m.tx = it->get<int64_t>();
  if (auto it = j.find("rx_gpu"); it != j.end() && it->is_number_integer()) m.rx = it->get<int64_t>();
  if (auto it = j.find("gpu_type"); it != j.end() && it->is_string()) {
    m.gpu_type = it->get<std::string>().substr(0, 16);
  }
  return m;
}

size_t table_width(const Tool& tool) {
  return tool.kind == ToolKind::kLatency ? 72 : 51;
}

std::string dash_line(const Tool& tool) { return std::string(table_width(tool), '-') + "\n"; }

uint64_t rdma_buffer_used(uint64_t max_size, uint64_t list_size, uint64_t align, uint64_t cap) {
  if (align == 0) align = 1;
  unsigned __int128 slot = (static_cast<unsigned __int128>(max_size) + align - 1) / align * align;
  unsigned __int128 used = slot * (list_size == 0 ? 1 : list_size);
  return used > cap ? cap : static_cast<uint64_t>(used);
}

// Each tool's lines in the order its original prints them (utils/<tool>.c, print_loc_opts
// and print_hugepage_opts in utils_common.c).
std::string summary_block(const Tool& tool, const SummaryView& o, const Endpoints& ep) {
  const ProgramOptions& p = o.program;
  const RunOptions& r = o.run;
  const bool lat = tool.kind == ToolKind::kLatency;
  const bool bw = tool.kind == ToolKind::kBandwidth;
  const bool loopback = tool.kind == ToolKind::kLoopback;
  const bool atomic = tool.bit & (kCxiAtomicLat | kCxiAtomicBw);
  const bool send = tool.bit & (kCxiSendLat | kCxiSendBw);
  const bool gpu = p.tx_gpu >= 0 || p.rx_gpu >= 0;
  Lines out;
  if (tool.bit & kCxiAtomicBw) out.width = 16;
  std::string device = ep.device.empty() ? "(provider default)" : ep.device;
  if (!ep.provider.empty() && ep.provider != "cxi") device += " (" + ep.provider + ")";
  out.add("Device", device);
  out.add("Service ID", cxi_only(ep, number(r.svc_id)));
  auto gpu_type = [](const std::string& type) {
    return type.empty() ? std::string("(discovered)") : type;
  };
  // Each process's own -t/-r/-g, in the originals' order (print_loc_opts): the client's TX
  // (for reads, the initiator's buffer), its RX with -b, its GPU type; the server's TX with
  // -b, its RX (for reads, the target's buffer), its GPU type.
  const SideMemory client = o.client.value_or(SideMemory::of(p));
  const SideMemory server = o.server.value_or(SideMemory::of(p));
  const bool both = o.both_ways() && bw;
  if (loopback) {
    out.add("TX Mem", memory(p.tx_gpu));
    out.add("RX Mem", memory(p.rx_gpu));
    if (gpu) out.add("GPU Type", gpu_type(p.gpu_type));
  } else if (!atomic || client.uses_gpu() || server.uses_gpu()) {
    // (the atomic originals have no buffer options)
    out.add("Client TX Mem", memory(client.tx));
    if (both) out.add("Client RX Mem", memory(client.rx));
    if (client.uses_gpu()) out.add("Client GPU Type", gpu_type(client.gpu_type));
    if (both) out.add("Server TX Mem", memory(server.tx));
    out.add("Server RX Mem", memory(server.rx));
    if (server.uses_gpu()) out.add("Server GPU Type", gpu_type(server.gpu_type));
  }
  if (o.by_duration()) {
    out.add("Test Type", "Duration");
    out.add("Duration", printf_string("%g seconds", r.time));
  } else {
    out.add("Test Type", "Iteration");
    out.add("Iterations", number(o.iters.value_or(p.iters)));
  }
  if (lat) {
    out.add("Warmup Iters", number(r.warmup));
    out.add("Inter-Iter Gap", number(r.latency_gap) + " microseconds");
  }
  if (atomic) {
    // "%sFETCHING %s %s": NON-FETCHING SUM, FETCHING CSWAP EQ (no trailing blank).
    std::string op = std::string(r.fetching ? "" : "NON-") + "FETCHING " + r.atomic_op;
    if (r.atomic_op == "CSWAP") op += " " + r.cswap_op;
    out.add("Atomic Op", op);
    out.add("Atomic Type", r.atomic_type);
  } else if (loopback) {
    out.add("Write Size (B)", number(o.max_size));
    out.add("Cmds per iter", number(r.tx_depth));
  } else if (o.is_range()) {
    out.add(std::string("Min ") + tool.noun + " Size", number(o.min_size));
    out.add(std::string("Max ") + tool.noun + " Size", number(o.max_size));
  } else {
    out.add(std::string(tool.noun) + " Size", number(o.min_size));
  }
  if (bw) out.add("List Size", number(r.tx_depth));
  // The originals' overrides: unrestricted writes and fetching AMOs take no HRP; matching
  // AMOs neither IDC nor restricted.
  if (tool.bit & kCxiWriteBw) {
    out.add("HRP", cxi_only(ep, r.unrestricted && !r.no_hrp ? kNotApplicable : enabled(!r.no_hrp)));
  }
  if (tool.bit & kCxiAtomicBw) {
    bool hrp_na = !r.no_hrp && (r.fetching || r.unrestricted);
    out.add("HRP", cxi_only(ep, hrp_na ? kNotApplicable : enabled(!r.no_hrp)));
  }
  if (tool.bit & (kCxiWriteLat | kCxiSendLat | kCxiWriteBw | kCxiSendBw)) {
    out.add("IDC", cxi_only(ep, idc_state(o, send)));
  }
  if (atomic) {
    out.add("IDC", cxi_only(ep, r.matching && !r.no_idc ? kNotApplicable : idc_state(o, false)));
    out.add("Matching LEs", cxi_only(ep, enabled(r.matching)));
    out.add("Restricted", cxi_only(ep, r.matching && !r.unrestricted ? kNotApplicable
                                                                     : enabled(!r.unrestricted)));
  } else if (tool.bit & (kCxiWriteLat | kCxiReadLat | kCxiWriteBw | kCxiReadBw)) {
    out.add("Restricted", cxi_only(ep, enabled(!r.unrestricted)));
  }
  if (lat) out.add("LL Cmd Launch", cxi_only(ep, enabled(!r.no_ll)));
  if (tool.bit & kCxiSendLat) out.add("Rendezvous PUTs", cxi_only(ep, enabled(r.rdzv)));
  if (lat) out.add("Results Reported", p.report_all ? "All" : "Summary");
  if (bw) {
    out.add("Bidirectional", enabled(o.both_ways()));
    if (tool.bit & kCxiSendBw) out.add("Rendezvous PUTs", cxi_only(ep, enabled(r.rdzv)));
    if (tool.bit & (kCxiWriteBw | kCxiReadBw | kCxiSendBw)) {
      out.add("Max RDMA Buf",
              number(p.buf_size) + " (" +
                  number(rdma_buffer_used(o.max_size, r.tx_depth, p.buf_align, p.buf_size)) +
                  " used)");
      out.add("RDMA Buf Align", number(p.buf_align));
    }
  }
  if (!atomic || gpu) out.add("Hugepages", r.use_hp.empty() ? "Disabled" : "Enabled (" + r.use_hp + ")");
  if (!loopback) {
    out.add(ep.server ? "Local (server)" : "Local (client)", ep.local);
    out.add(ep.server ? "Remote (client)" : "Remote (server)", ep.remote);
  }
  return dash_line(tool) + "    " + tool.title + "\n" + out.text + dash_line(tool);
}

std::string latency_header(const Tool& tool, const std::vector<double>& percentiles) {
  std::string out = printf_string("%12s  %10s  %10s  %10s  %10s  %10s", tool.size_label,
                                  tool.op_label, "Min[us]", "Max[us]", "Mean[us]", "StdDev[us]");
  for (double p : percentiles) {
    out += printf_string("  %10s", printf_string("P%g[us]", p).c_str());
  }
  return out + "\n";
}

std::string latency_row(uint64_t size, const LatencySummary& s) {
  std::string out = printf_string("%12" PRIu64 "  %10" PRIu64 "  %10.2f  %10.2f  %10.2f  %10.2f",
                                  size, s.samples, s.min / 1e3, s.max / 1e3, s.mean / 1e3,
                                  s.stddev / 1e3);
  for (const auto& [p, value] : s.percentiles) out += printf_string("  %10.2f", value / 1e3);
  return out + "\n";
}

std::string sample_header(const Tool& tool) {
  return printf_string("%10s  %11s\n", tool.sample_label, "Latency[us]");
}

std::string sample_row(uint64_t index, double ns) {
  return printf_string("%10" PRIu64 "  %11.3f\n", index, ns / 1e3);
}

std::string bandwidth_header(const Tool& tool) {
  const bool atomic = tool.bit & kCxiAtomicBw;
  return printf_string("%12s  %10s  %8s  %15s\n", tool.size_label, tool.op_label,
                       tool.kind == ToolKind::kLoopback ? "BW[Gb/s]" : "BW[MB/s]",
                       atomic ? "OpRate[M/s]" : "PktRate[Mpkt/s]");
}

std::string bandwidth_row(const Tool& tool, uint64_t size, std::optional<uint64_t> ops,
                          double bytes_per_s, double ops_per_s) {
  // The originals: MB/s = bytes / us; Gb/s = MB/s * 8 / 1000; packet rate = operations per us
  // times the 2048-byte packets each takes (an AMO is one).
  double bw = tool.kind == ToolKind::kLoopback ? bytes_per_s * 8 / 1e9 : bytes_per_s / 1e6;
  double rate = ops_per_s * static_cast<double>(packets_per_op(size)) / 1e6;
  std::string count = ops ? number(*ops) : "-";
  return printf_string("%12" PRIu64 "  %10s  %8.2f  %15.6f\n", size, count.c_str(), bw, rate);
}

}  // namespace fabperf::cxi
