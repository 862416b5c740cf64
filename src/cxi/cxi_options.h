// The CXI tools' options: one table (getopt_long grammar), parsed into CxiOptions and checked.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "cxi/cxi_tools.h"

namespace fabperf::cxi {

// Everything a fab_* invocation can say. Run options travel to the server by name (to_json).
struct CxiOptions {
  std::string server_addr;  // empty: this process is the server
  // Where and how.
  std::string device;       // -d: a libfabric domain ("" = the provider's first)
  std::string provider;     // --provider / -P ("" = the best RDM provider)
  uint32_t svc_id = 1;      // -v (cxi only)
  bool svc_id_set = false;
  uint16_t port = kDefaultPort;
  int tx_gpu = -1, rx_gpu = -1;  // -t / -r: GPU index, -1 = system memory
  std::string gpu_type;          // -g: AMD, NVIDIA, INTEL ("" = discovered)
  // How long.
  uint64_t iters = 0;       // -n (bandwidth: iterations of list_size operations)
  double duration = 0;      // -D seconds (0: by iterations)
  uint64_t warmup = 10;
  uint64_t gap_us = 1000;   // --latency-gap
  uint64_t min_size = 0, max_size = 0;  // -s MIN[:MAX]
  uint64_t list_size = 0;   // -l
  uint64_t buf_size = 4294967296ull;    // --buf-sz
  uint64_t buf_align = 64;  // --buf-align
  uint64_t num_xfers = 0;   // fab_loopback_bw -n
  // What.
  bool report_all = false;
  std::string use_hp;       // "", "2M", "1G"
  bool bidirectional = false;
  std::string atomic_op = "SUM", atomic_type = "UINT64", cswap_op = "EQ";
  bool fetching = false;
  std::string clock = "clock_gettime";  // fab_send_lat -c
  // cxi-only switches: act through the cxi provider, "Not Applicable" elsewhere.
  bool unrestricted = false, no_idc = false, no_ll = false, no_hrp = false, no_ple = false;
  bool matching = false, rdzv = false;
  // Output.
  std::string percentiles;  // "" = none; appends percentile columns
  std::string json;         // --json FILE ("-" = standard output)
  // fab_heatsink_check.
  uint64_t procs = 0;       // -P
  double interval = 10;     // -i seconds
  std::string cpu_list;     // -c
  double max_temp = 85;     // --max-temp degrees C
  double max_power = 0;     // --max-power W (0: not checked)
  double min_rate = 0;      // --min-rate GB/s (0: not checked)
  // fab_stat.
  double pause = 4;         // -p seconds between rate samples
  bool list = false, mac_list = false, aer = false, rates = false;
  // Process.
  bool help = false, version = false;

  bool by_duration() const { return duration > 0; }
  bool is_range() const { return max_size != min_size; }
  // The powers of two from min_size to max_size (one entry without a range).
  std::vector<uint64_t> sizes() const;

  nlohmann::json to_json() const;
  // The server's view: the client's run options over this process's own (device, port).
  static Result<CxiOptions> from_json(const nlohmann::json& j, const Tool& tool);
};

// Parses argv (without argv[0]) with getopt_long's rules: -n 5, -n5, --iters=5, --iters 5,
// unique long prefixes, clustered flags (-bR), operands anywhere, "--" ends options. Applies the
// tool's defaults and checks every value; errors carry the originals' wording.
Result<CxiOptions> parse_cxi_options(const Tool& tool, const std::vector<std::string>& args);

// --help text derived from the option table, for one tool.
std::string cxi_usage(const Tool& tool);

}  // namespace fabperf::cxi
