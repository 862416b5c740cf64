// Summary block and tables of the CXI tools: fixed-width text, values rounded (printf), never
// truncated.
#include "cxi/cxi_format.h"

#include <cinttypes>
#include <cstdarg>
#include <cstdio>

namespace fabperf::cxi {

namespace {

std::string line(const std::string& label, const std::string& value) {
  std::string l = label;
  if (l.size() < 17) l.resize(17, ' ');
  return l + ": " + value + "\n";
}

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

bool is_cxi(const Endpoints& ep) { return ep.provider == "cxi"; }

// A cxi-only switch: its state with the cxi provider, "Not Applicable" elsewhere.
std::string cxi_only(const Endpoints& ep, const std::string& state) {
  return is_cxi(ep) ? state : "Not Applicable";
}

std::string memory(int gpu) { return gpu < 0 ? "System" : "GPU " + std::to_string(gpu); }

std::string number(uint64_t v) { return std::to_string(v); }

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

std::string dash_line() { return std::string(72, '-') + "\n"; }

std::string summary_block(const Tool& tool, const SummaryView& o, const Endpoints& ep) {
  const ProgramOptions& p = o.program;
  const RunOptions& r = o.run;
  const bool lat = tool.kind == ToolKind::kLatency;
  const bool atomic = tool.bit & (kCxiAtomicLat | kCxiAtomicBw);
  std::string out = dash_line() + "    " + tool.title + "\n";
  std::string device = ep.device.empty() ? "(provider default)" : ep.device;
  if (!ep.provider.empty() && ep.provider != "cxi") device += " (" + ep.provider + ")";
  out += line("Device", device);
  out += line("Service ID", cxi_only(ep, number(r.svc_id)));
  // Each process's own -t/-r/-g, in the originals' order (print_loc_opts): the client's TX
  // (for reads, the initiator's buffer), its RX with -b, its GPU type; the server's TX with
  // -b, its RX (for reads, the target's buffer), its GPU type.
  const SideMemory client = o.client.value_or(SideMemory::of(p));
  const SideMemory server = o.server.value_or(SideMemory::of(p));
  const bool both = o.both_ways() && tool.kind == ToolKind::kBandwidth;
  auto gpu_type = [](const SideMemory& m) {
    return m.gpu_type.empty() ? std::string("(discovered)") : m.gpu_type;
  };
  out += line("Client TX Mem", memory(static_cast<int>(client.tx)));
  if (both) out += line("Client RX Mem", memory(static_cast<int>(client.rx)));
  if (client.uses_gpu()) out += line("Client GPU Type", gpu_type(client));
  if (both) out += line("Server TX Mem", memory(static_cast<int>(server.tx)));
  out += line("Server RX Mem", memory(static_cast<int>(server.rx)));
  if (server.uses_gpu() && tool.kind != ToolKind::kLoopback) {
    out += line("Server GPU Type", gpu_type(server));
  }
  if (o.by_duration()) {
    out += line("Test Type", "Duration");
    out += line("Duration", printf_string("%g seconds", r.time));
  } else {
    out += line("Test Type", "Iteration");
    out += line("Iterations", number(o.iters.value_or(p.iters)));
  }
  if (tool.kind == ToolKind::kLoopback) out += line("Xfers Per Iter", number(r.tx_depth));
  if (lat) {
    out += line("Warmup Iters", number(r.warmup));
    out += line("Inter-Iter Gap", number(r.latency_gap) + " microseconds");
  }
  if (atomic) {
    std::string op = r.atomic_op == "CSWAP" ? "CSWAP " + r.cswap_op
                                            : (r.fetching ? "FETCHING " : "NON-FETCHING ") + r.atomic_op;
    out += line("Atomic Op", op);
    out += line("Atomic Type", r.atomic_type);
  } else if (o.is_range()) {
    out += line(std::string("Min ") + tool.noun + " Size", number(o.min_size));
    out += line(std::string("Max ") + tool.noun + " Size", number(o.max_size));
  } else {
    out += line(std::string(tool.noun) + " Size", number(o.min_size));
  }
  if (tool.kind == ToolKind::kBandwidth) out += line("List Size", number(r.tx_depth));
  if (tool.bit & (kCxiWriteBw | kCxiAtomicBw)) out += line("HRP", cxi_only(ep, enabled(!r.no_hrp)));
  if (tool.bit & (kCxiWriteLat | kCxiSendLat | kCxiAtomicLat | kCxiWriteBw | kCxiSendBw | kCxiAtomicBw)) {
    // IDC carries small payloads only (224 bytes restricted, 192 unrestricted) and never GPU
    // memory: the line says so instead of claiming it for sizes where it is never used.
    uint64_t idc_max = r.unrestricted ? 192 : 224;
    std::string idc = r.no_idc || p.tx_gpu >= 0 ? "Disabled"
                      : o.min_size > idc_max     ? "Unused (sizes above " + number(idc_max) + ")"
                                                 : "Enabled";
    out += line("IDC", cxi_only(ep, idc));
  }
  if (tool.bit & (kCxiWriteLat | kCxiReadLat | kCxiAtomicLat | kCxiWriteBw | kCxiReadBw | kCxiAtomicBw)) {
    out += line("Restricted", cxi_only(ep, enabled(!r.unrestricted)));
  }
  if (atomic) out += line("Matching", cxi_only(ep, enabled(r.matching)));
  if (tool.bit & (kCxiSendLat | kCxiSendBw)) out += line("Rendezvous", cxi_only(ep, enabled(r.rdzv)));
  if (lat) out += line("LL Cmd Launch", cxi_only(ep, enabled(!r.no_ll)));
  if (lat) out += line("Results Reported", p.report_all ? "All" : "Summary");
  if (tool.kind == ToolKind::kBandwidth) {
    if (tool.bi_test != nullptr) out += line("Bidirectional", enabled(o.both_ways()));
    if (tool.bit & (kCxiWriteBw | kCxiReadBw | kCxiSendBw)) {
      out += line("Max RDMA Buf", number(p.buf_size));
      out += line("RDMA Buf Align", number(p.buf_align));
    }
  }
  out += line("Hugepages", r.use_hp.empty() ? "Disabled" : "Enabled (" + r.use_hp + ")");
  if (tool.kind != ToolKind::kLoopback) {
    out += line(ep.server ? "Local (server)" : "Local (client)", ep.local);
    out += line(ep.server ? "Remote (client)" : "Remote (server)", ep.remote);
  }
  return out + dash_line();
}

std::string latency_header(const Tool& tool, const std::vector<double>& percentiles) {
  std::string out = printf_string("%12s%12s%12s%12s%12s%12s", tool.size_label, tool.op_label,
                                  "Min[us]", "Max[us]", "Mean[us]", "StdDev[us]");
  for (double p : percentiles) {
    out += printf_string("%12s", printf_string("P%g[us]", p).c_str());
  }
  return out + "\n";
}

std::string latency_row(uint64_t size, const LatencySummary& s) {
  std::string out = printf_string("%12" PRIu64 "%12" PRIu64 "%12.2f%12.2f%12.2f%12.2f", size,
                                  s.samples, s.min / 1e3, s.max / 1e3, s.mean / 1e3,
                                  s.stddev / 1e3);
  for (const auto& [p, value] : s.percentiles) out += printf_string("%12.2f", value / 1e3);
  return out + "\n";
}

std::string sample_header(const Tool& tool) {
  return printf_string("%10s%13s\n", tool.sample_label, "Latency[us]");
}

std::string sample_row(uint64_t index, double ns) {
  return printf_string("%10" PRIu64 "%13.3f\n", index, ns / 1e3);
}

std::string bandwidth_header(const Tool& tool) {
  if (tool.kind == ToolKind::kLoopback) {
    return printf_string("%12s%12s%12s\n", tool.size_label, tool.op_label, "BW[Gb/s]");
  }
  if (tool.bit & kCxiAtomicBw) {
    return printf_string("%12s%12s%10s%12s\n", tool.size_label, tool.op_label, "BW[MB/s]",
                         "OpRate[M/s]");
  }
  return printf_string("%12s%12s%10s%17s\n", tool.size_label, tool.op_label, "BW[MB/s]",
                       "PktRate[Mpkt/s]");
}

std::string bandwidth_row(const Tool& tool, uint64_t size, uint64_t ops, double bytes_per_s,
                          double ops_per_s) {
  if (tool.kind == ToolKind::kLoopback) {
    return printf_string("%12" PRIu64 "%12" PRIu64 "%12.2f\n", size, ops, bytes_per_s * 8 / 1e9);
  }
  if (tool.bit & kCxiAtomicBw) {
    return printf_string("%12" PRIu64 "%12" PRIu64 "%10.2f%12.6f\n", size, ops, bytes_per_s / 1e6,
                         ops_per_s / 1e6);
  }
  return printf_string("%12" PRIu64 "%12" PRIu64 "%10.2f%17.6f\n", size, ops, bytes_per_s / 1e6,
                       ops_per_s * static_cast<double>(packets_per_op(size)) / 1e6);
}

}  // namespace fabperf::cxi
