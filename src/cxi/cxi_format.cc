// Summary block and tables of the CXI tools: fixed-width text, values rounded (printf), never
// truncated.
#include "cxi/cxi_format.h"

#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>

#include "core/text.h"
#include "fabric/address_codec.h"

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

// The IDC line, as the originals print their use_idc: Enabled unless --no-idc, a GPU TX
// buffer (IDC copies from host memory) or -R on the send tools turn it off. (IDC carries only
// small payloads, 224 bytes restricted, 192 unrestricted and for sends; the originals say
// Enabled for larger sizes all the same, and so does this line.)
std::string idc_state(const SummaryView& o, bool send) {
  const RunOptions& r = o.run;
  if (r.no_idc || o.client.tx >= 0 || (send && r.rdzv)) return "Disabled";
  return "Enabled";
}

uint64_t json_count(const nlohmann::json& j, const char* key, uint64_t fallback) {
  auto it = j.find(key);
  return it != j.end() && it->is_number_unsigned() ? it->get<uint64_t>() : fallback;
}

bool json_flag(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_boolean() && it->get<bool>();
}

}  // namespace

nlohmann::json SideMemory::to_json() const {
  return {{"tx_gpu", tx}, {"rx_gpu", rx}, {"gpu_type", gpu_type}};
}

SideMemory SideMemory::from_json(const nlohmann::json& j) {
  SideMemory m;
  if (!j.is_object()) return m;
  if (auto it = j.find("tx_gpu"); it != j.end() && it->is_number_integer())
    m.tx = it->get<int64_t>();
  if (auto it = j.find("rx_gpu"); it != j.end() && it->is_number_integer())
    m.rx = it->get<int64_t>();
  if (auto it = j.find("gpu_type"); it != j.end() && it->is_string()) {
    m.gpu_type = it->get<std::string>().substr(0, 16);
  }
  return m;
}

RunView RunView::of(const ProgramOptions& p, bool by_duration, double duration, uint64_t min_size,
                    uint64_t max_size) {
  RunView v;
  v.by_duration = by_duration;
  v.duration = duration;
  v.iters = p.iters;
  v.min_size = min_size;
  v.max_size = max_size;
  v.report_all = p.report_all;
  v.bidirectional = p.bidirectional;
  v.buf_size = p.buf_size;
  v.buf_align = p.buf_align;
  return v;
}

nlohmann::json RunView::to_json() const {
  nlohmann::json j = {
      {"iters", iters},           {"min_size", min_size},           {"max_size", max_size},
      {"report_all", report_all}, {"bidirectional", bidirectional}, {"buf_size", buf_size},
      {"buf_align", buf_align},   {"in_flight", in_flight}};
  if (by_duration) j["duration"] = duration;
  return j;
}

RunView RunView::from_json(const nlohmann::json& j) {
  RunView v;
  if (!j.is_object()) return v;
  if (auto it = j.find("duration"); it != j.end() && it->is_number()) {
    double d = it->get<double>();
    if (std::isfinite(d) && d > 0) {
      v.by_duration = true;
      v.duration = d;
    }
  }
  v.iters = json_count(j, "iters", v.iters);
  v.min_size = json_count(j, "min_size", v.min_size);
  v.max_size = std::max(v.min_size, json_count(j, "max_size", v.max_size));
  v.report_all = json_flag(j, "report_all");
  v.bidirectional = json_flag(j, "bidirectional");
  v.buf_size = std::max<uint64_t>(1, json_count(j, "buf_size", v.buf_size));
  v.buf_align = std::max<uint64_t>(1, json_count(j, "buf_align", v.buf_align));
  v.in_flight = json_count(j, "in_flight", 0);
  return v;
}

SummaryView own_summary_view(const ProgramOptions& p, const RunOptions& run, bool by_duration,
                             uint64_t min_size, uint64_t max_size) {
  SummaryView v;
  v.asked = RunView::of(p, by_duration, run.time, min_size, max_size);
  v.run = run;
  v.client = v.server = SideMemory::of(p);
  return v;
}

size_t table_width(const Tool& tool) { return tool.kind == ToolKind::kLatency ? 72 : 51; }

std::string dash_line(const Tool& tool) { return std::string(table_width(tool), '-') + "\n"; }

uint64_t rdma_buffer_used(uint64_t max_size, uint64_t list_size, uint64_t align, uint64_t cap,
                          uint64_t page) {
  if (align == 0) align = 1;
  unsigned __int128 slot = (static_cast<unsigned __int128>(max_size) + align - 1) / align * align;
  unsigned __int128 used = slot * (list_size == 0 ? 1 : list_size);
  if (used > cap) used = cap;
  if (page > 0) used = (used + page - 1) / page * page;
  return used > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(used);
}

uint64_t hugepage_bytes(const std::string& use_hp) {
  if (use_hp == "2M" || use_hp == "2m") return uint64_t{2} << 20;
  if (use_hp == "1G" || use_hp == "1g") return uint64_t{1} << 30;
  return 0;
}

namespace {

// One buffer as the originals size it (opts->buf_size before get_hugepages_needed): the
// largest size for latency and loopback, the list's layout for bandwidth.
uint64_t buffer_bytes(const Tool& tool, const SummaryView& o) {
  if (tool.kind != ToolKind::kBandwidth) return o.asked.max_size;
  return rdma_buffer_used(o.asked.max_size, o.run.tx_depth, o.asked.buf_align, o.asked.buf_size);
}

}  // namespace

uint64_t hugepages_needed(const Tool& tool, const SummaryView& o, bool server) {
  const uint64_t page = hugepage_bytes(o.run.use_hp);
  if (page == 0) return 0;
  const SideMemory& me = server ? o.server : o.client;
  const bool both = tool.kind == ToolKind::kLoopback || o.both_ways();
  // The initiator's buffer is the client's TX, the target's the server's RX (-b: each both).
  const bool initiator = both || !server, target = both || server;
  const uint64_t buffers = (initiator && me.tx < 0 ? 1 : 0) + (target && me.rx < 0 ? 1 : 0);
  const uint64_t bytes = buffer_bytes(tool, o);
  return buffers * (bytes / page + (bytes % page != 0 ? 1 : 0));
}

namespace {

// The Hugepages line (print_hugepage_opts): "Enabled (2M - N pages)" with this side's count,
// "Disabled - Not Applicable" when every buffer of this side is in GPU memory.
std::string hugepages_line(const Tool& tool, const SummaryView& o, bool server) {
  if (o.run.use_hp.empty()) return "Disabled";
  const uint64_t pages = hugepages_needed(tool, o, server);
  if (pages == 0) return kNotApplicable;
  std::string size = hugepage_bytes(o.run.use_hp) == (uint64_t{1} << 30) ? "1G" : "2M";
  return "Enabled (" + size + " - " + number(pages) + " pages)";
}

// "List Size : 4096", and where the provider's transmit queue holds fewer, how many are in
// flight at once (each list is still -l operations, waited for as one).
std::string list_size_line(const SummaryView& o) {
  std::string out = number(o.run.tx_depth);
  if (o.asked.in_flight > 0 && o.asked.in_flight < o.run.tx_depth) {
    out += " (" + number(o.asked.in_flight) + " in flight: the provider's transmit queue)";
  }
  return out;
}

// Each process's own -t/-r/-g, in the originals' order (print_loc_opts): the client's TX (for
// reads, the initiator's buffer), its RX with -b, its GPU type; the server's TX with -b, its
// RX (for reads, the target's buffer), its GPU type.
void memory_lines(Lines& out, const SummaryView& o, bool both) {
  auto gpu_type = [](const std::string& type) {
    return type.empty() ? std::string("(discovered)") : type;
  };
  out.add("Client TX Mem", memory(o.client.tx));
  if (both) out.add("Client RX Mem", memory(o.client.rx));
  if (o.client.uses_gpu()) out.add("Client GPU Type", gpu_type(o.client.gpu_type));
  if (both) out.add("Server TX Mem", memory(o.server.tx));
  out.add("Server RX Mem", memory(o.server.rx));
  if (o.server.uses_gpu()) out.add("Server GPU Type", gpu_type(o.server.gpu_type));
}

// The lines after the sizes: each tool's switches, in its original's order.
void switch_lines(Lines& out, const Tool& tool, const SummaryView& o, const Endpoints& ep) {
  const RunOptions& r = o.run;
  const bool lat = tool.kind == ToolKind::kLatency;
  const bool atomic = tool.bit & (kCxiAtomicLat | kCxiAtomicBw);
  const bool send = tool.bit & (kCxiSendLat | kCxiSendBw);
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
}

}  // namespace

// Each tool's lines in the order its original prints them (utils/<tool>.c, print_loc_opts
// and print_hugepage_opts in utils_common.c).
std::string summary_block(const Tool& tool, const SummaryView& o, const Endpoints& ep) {
  const RunOptions& r = o.run;
  const RunView& a = o.asked;
  const bool lat = tool.kind == ToolKind::kLatency;
  const bool bw = tool.kind == ToolKind::kBandwidth;
  const bool loopback = tool.kind == ToolKind::kLoopback;
  const bool atomic = tool.bit & (kCxiAtomicLat | kCxiAtomicBw);
  const bool gpu = o.client.uses_gpu() || o.server.uses_gpu();
  Lines out;
  if (tool.bit & kCxiAtomicBw) out.width = 16;
  std::string device = ep.device.empty() ? "(provider default)" : ep.device;
  if (!ep.provider.empty() && ep.provider != "cxi") device += " (" + ep.provider + ")";
  out.add("Device", device);
  out.add("Service ID", cxi_only(ep, number(r.svc_id)));
  if (loopback) {
    out.add("TX Mem", memory(o.client.tx));
    out.add("RX Mem", memory(o.client.rx));
    if (gpu) {
      out.add("GPU Type",
              o.client.gpu_type.empty() ? std::string("(discovered)") : o.client.gpu_type);
    }
  } else if (!atomic || gpu) {
    memory_lines(out, o, o.both_ways() && bw);  // (the atomic originals have no buffer options)
  }
  if (o.by_duration()) {
    out.add("Test Type", "Duration");
    out.add("Duration", printf_string("%g seconds", a.duration));
  } else {
    out.add("Test Type", "Iteration");
    out.add("Iterations", number(a.iters));
  }
  if (lat) {
    out.add("Warmup Iters", number(r.warmup));
    out.add("Inter-Iter Gap", number(r.latency_gap) + " microseconds");
  }
  if (atomic) {
    // "%sFETCHING %s %s": NON-FETCHING SUM (with the blank), FETCHING CSWAP EQ.
    out.add("Atomic Op", std::string(r.fetching ? "" : "NON-") + "FETCHING " + r.atomic_op + " " +
                             (r.atomic_op == "CSWAP" ? r.cswap_op : ""));
    out.add("Atomic Type", r.atomic_type);
  } else if (loopback) {
    out.add("Write Size (B)", number(a.max_size));
    out.add("Cmds per iter", number(r.tx_depth));
  } else if (o.is_range()) {
    out.add(std::string("Min ") + tool.noun + " Size", number(a.min_size));
    out.add(std::string("Max ") + tool.noun + " Size", number(a.max_size));
  } else {
    out.add(std::string(tool.noun) + " Size", number(a.min_size));
  }
  if (bw) out.add("List Size", list_size_line(o));
  switch_lines(out, tool, o, ep);
  if (lat) out.add("Results Reported", a.report_all ? "All" : "Summary");
  if (bw) {
    out.add("Bidirectional", enabled(o.both_ways()));
    if (tool.bit & kCxiSendBw) out.add("Rendezvous PUTs", cxi_only(ep, enabled(r.rdzv)));
    if (tool.bit & (kCxiWriteBw | kCxiReadBw | kCxiSendBw)) {
      uint64_t page = hugepage_bytes(r.use_hp);
      if (page == 0) page = static_cast<uint64_t>(sysconf(_SC_PAGE_SIZE));
      out.add("Max RDMA Buf",
              number(a.buf_size) + " (" +
                  number(rdma_buffer_used(a.max_size, r.tx_depth, a.buf_align, a.buf_size, page)) +
                  " used)");
      out.add("RDMA Buf Align", number(a.buf_align));
    }
  }
  if (!atomic || gpu) out.add("Hugepages", hugepages_line(tool, o, ep.server));
  if (!loopback) {
    out.add(ep.server ? "Local (server)" : "Local (client)", ep.local);
    out.add(ep.server ? "Remote (client)" : "Remote (server)", ep.remote);
  }
  // As the originals print it once their GPU library is loaded (not the atomic tools).
  if (o.gpus_found >= 0 && !atomic) out.text += "Found " + number(o.gpus_found) + " GPU(s)\n";
  return dash_line(tool) + "    " + tool.title + "\n" + out.text + dash_line(tool);
}

std::optional<CxiAddress> decode_cxi_address(const std::vector<uint8_t>& bytes) {
  uint32_t word = 0;
  if (bytes.size() < sizeof word) return std::nullopt;
  std::memcpy(&word, bytes.data(), sizeof word);
  CxiAddress out;
  out.pid = word & ((1u << 9) - 1);
  out.nic = (word >> 9) & ((1u << 20) - 1);
  if (bytes.size() >= 6) {
    uint16_t vni = 0;
    std::memcpy(&vni, bytes.data() + 4, sizeof vni);
    out.vni = vni;
  }
  return out;
}

std::string cxi_address_text(const CxiAddress& addr, std::optional<uint16_t> vni) {
  std::string out = printf_string("NIC 0x%x PID %u", addr.nic, addr.pid);
  if (vni.has_value()) out += printf_string(" VNI %u", static_cast<unsigned>(*vni));
  return out;
}

std::string endpoint_text(const std::string& provider, const std::string& cxi_hex,
                          std::optional<uint16_t> vni, const std::string& host, int64_t pid) {
  if (provider == "cxi" && !cxi_hex.empty()) {
    auto bytes = hex_decode(cxi_hex, "cxi address");
    std::optional<CxiAddress> addr;
    if (bytes.ok()) addr = decode_cxi_address(*bytes);
    if (addr.has_value()) return cxi_address_text(*addr, vni);
  }
  return host + " PID " + std::to_string(pid);
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
  std::string out =
      printf_string("%12" PRIu64 "  %10" PRIu64 "  %10.2f  %10.2f  %10.2f  %10.2f", size, s.samples,
                    s.min / 1e3, s.max / 1e3, s.mean / 1e3, s.stddev / 1e3);
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
