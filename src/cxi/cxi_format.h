// The CXI tools' text: the summary block and the result tables, with the originals' widths.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cxi/cxi_tools.h"
#include "options/option_table.h"
#include "options/run_options.h"
#include "stats/latency.h"

namespace fabperf::cxi {

// What the summary shows beyond the options: where the run happens.
struct Endpoints {
  std::string device;    // the libfabric domain in use
  std::string provider;  // "tcp;ofi_rxm", "shm", "cxi"
  bool server = false;   // which side prints: "Local (server)" or "Local (client)"
  std::string local;     // "127.0.0.1 PID 4242"; on cxi "NIC 0x13 PID 0 VNI 10"
  std::string remote;
  // On cxi: this side's address (hex of its struct cxip_addr) and its auth key's VNI.
  std::string cxi_hex;
  std::optional<uint16_t> vni;
};

// One process's own buffers (-t/-r: GPU index or -1 for system memory, -g), as the originals
// keep them per process and show both sides' in the summary.
struct SideMemory {
  int64_t tx = -1, rx = -1;
  std::string gpu_type;  // -g as given ("" : the type found at run time)

  bool uses_gpu() const { return tx >= 0 || rx >= 0; }
  static SideMemory of(const ProgramOptions& p) { return {p.tx_gpu, p.rx_gpu, p.gpu_type}; }
  // What a process tells its peer (OwnOptions::said), and back.
  nlohmann::json to_json() const;
  static SideMemory from_json(const nlohmann::json& j);
};

// The run as its client asked for it: both sides' summaries show it (the originals' server
// adopts every option its client sends), so the client sends it in HELLO (OwnOptions::said,
// "run") and a server prints its block from what it received.
struct RunView {
  bool by_duration = false;
  double duration = 0;                  // -D
  uint64_t iters = 0;                   // -n (shown without -D)
  uint64_t min_size = 0, max_size = 0;  // -s MIN[:MAX] (atomics: the type's size)
  bool report_all = false;
  bool bidirectional = false;
  uint64_t buf_size = 4294967296, buf_align = 64;  // --buf-sz, --buf-align
  // Operations of a list in flight at once, where the client's provider holds fewer than -l
  // (its transmit queue); 0: the whole list.
  uint64_t in_flight = 0;

  static RunView of(const ProgramOptions& p, bool by_duration, double duration, uint64_t min_size,
                    uint64_t max_size);
  nlohmann::json to_json() const;
  // What a peer said, each field checked (a missing or malformed one keeps its default).
  static RunView from_json(const nlohmann::json& j);
};

// What a summary shows: the client's run, this side's options for it, each side's buffers.
struct SummaryView {
  RunView asked;
  RunOptions run;  // this side's options for the run (-v, -d, the client's switches)
  SideMemory client, server;
  int gpus_found = -1;  // this side's GPU runtime's devices ("Found N GPU(s)"; -1: none)

  bool by_duration() const { return asked.by_duration; }
  bool is_range() const { return asked.min_size != asked.max_size; }
  bool both_ways() const { return asked.bidirectional; }
};

// A tool's summary view from a process's own command line (client, or one-process tools).
SummaryView own_summary_view(const ProgramOptions& p, const RunOptions& run, bool by_duration,
                             uint64_t min_size, uint64_t max_size);

// The originals' separator: as many dashes as the tool's table header is wide (72 for the
// latency tools, 51 for the bandwidth and loopback tools).
std::string dash_line(const Tool& tool);
size_t table_width(const Tool& tool);
// From the title line to the closing dash line.
std::string summary_block(const Tool& tool, const SummaryView& o, const Endpoints& ep);

// Latency table: "%12s  %10s  %10s  %10s  %10s  %10s" ("RDMA Size[B]      Writes     Min[us]
// ...") plus a "  %10s" column per percentile; rows "%12lu  %10lu  %10.2f" x 4, rounded.
std::string latency_header(const Tool& tool, const std::vector<double>& percentiles);
std::string latency_row(uint64_t size, const LatencySummary& s);
// --report-all: "%10s  %11s" ("  WriteNum  Latency[us]") and "%10lu  %11.3f" rows (ns in, us out).
std::string sample_header(const Tool& tool);
std::string sample_row(uint64_t index, double ns);

// Bandwidth, the originals' "%12s  %10s  %8s  %15s": "RDMA Size[B]      Writes  BW[MB/s]
// PktRate[Mpkt/s]"; atomics " AMO Size[B]         Ops  BW[MB/s]      OpRate[M/s]"; loopback
// "BW[Gb/s]". Rows "%12lu  %10lu  %8.2f  %15.6f". ops: operations measured (nullopt: "-", a
// unidirectional server's count column); bytes_per_s and ops_per_s as measured.
std::string bandwidth_header(const Tool& tool);
std::string bandwidth_row(const Tool& tool, uint64_t size, std::optional<uint64_t> ops,
                          double bytes_per_s, double ops_per_s);

// "Max RDMA Buf : N (M used)": the buffer the originals' layout takes for the largest size,
// list_size writes each NEXT_MULTIPLE(size, align) apart, capped at --buf-sz, then rounded up
// to `page` (the page or huge page size, as get_hugepages_needed rounds it; 0: not rounded).
uint64_t rdma_buffer_used(uint64_t max_size, uint64_t list_size, uint64_t align, uint64_t cap,
                          uint64_t page = 0);

// The huge pages one side's buffers take as the originals count them (get_hugepages_needed):
// each of its host buffers (initiator, target; both with -b or in fab_loopback_bw) rounded up
// to whole pages of `use_hp` ("2M", "1G"). 0 when no buffer is in host memory ("Disabled -
// Not Applicable") or huge pages are off.
uint64_t hugepages_needed(const Tool& tool, const SummaryView& o, bool server);
// Bytes of one huge page of `use_hp` (0 when none).
uint64_t hugepage_bytes(const std::string& use_hp);

// A cxi provider address (libfabric's struct cxip_addr, what fi_getname and fi_info's src_addr
// hold on cxi): one host-order 32-bit word of bit fields, lowest first, the PID (9 bits,
// C_DFA_PID_BITS_MAX) then the NIC address (20 bits, C_DFA_NIC_BITS), then, in providers
// that carry it, a 16-bit VNI.
struct CxiAddress {
  uint32_t nic = 0;
  uint32_t pid = 0;
  std::optional<uint16_t> vni;  // the address's own VNI field, where the layout has one
};
// nullopt when `bytes` is shorter than the 32-bit word.
std::optional<CxiAddress> decode_cxi_address(const std::vector<uint8_t>& bytes);
// The originals' "NIC 0x%x PID %u" and, for this side's line, " VNI %u" (the auth key's VNI).
std::string cxi_address_text(const CxiAddress& addr, std::optional<uint16_t> vni);
// A side's Local/Remote line: on the cxi provider the decoded address (`cxi_hex`, the hex of
// its cxip_addr; `vni` for this side's line), else "HOST PID N" as other providers show it.
std::string endpoint_text(const std::string& provider, const std::string& cxi_hex,
                          std::optional<uint16_t> vni, const std::string& host, int64_t pid);

// Packets an operation of `size` bytes takes at the originals' 2048-byte payload.
inline uint64_t packets_per_op(uint64_t size) { return size == 0 ? 1 : (size + 2047) / 2048; }

}  // namespace fabperf::cxi
