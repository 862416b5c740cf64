// The CXI tools' text: the summary block and the result tables, with the originals' widths.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "options/run_options.h"
#include "cxi/cxi_tools.h"
#include "options/option_table.h"
#include "stats/latency.h"

namespace fabperf::cxi {

// What the summary shows beyond the options: where the run happens.
struct Endpoints {
  std::string device;    // the libfabric domain in use
  std::string provider;  // "tcp;ofi_rxm", "shm", "cxi"
  bool server = false;   // which side prints: "Local (server)" or "Local (client)"
  std::string local;     // "127.0.0.1 PID 4242"
  std::string remote;
};

// The options a summary shows: this process's (-t/-r/-g, -n ...), the run's, the sizes.
struct SummaryView {
  const ProgramOptions& program;
  const RunOptions& run;
  uint64_t min_size = 0, max_size = 0;  // -s MIN[:MAX] (atomics: the type's size)

  bool by_duration() const { return given(run, &RunOptions::time); }
  bool is_range() const { return min_size != max_size; }
};

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
// list_size writes each NEXT_MULTIPLE(size, align) apart, capped at --buf-sz.
uint64_t rdma_buffer_used(uint64_t max_size, uint64_t list_size, uint64_t align, uint64_t cap);

// Packets an operation of `size` bytes takes at the originals' 2048-byte payload.
inline uint64_t packets_per_op(uint64_t size) { return size == 0 ? 1 : (size + 2047) / 2048; }

}  // namespace fabperf::cxi
