// The CXI diagnostics dialect: one row per fab_* tool (what it measures, its labels, defaults).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fabperf::cxi {

enum class ToolKind { kLatency, kBandwidth, kLoopback, kHeatsink, kStat };

// One bit per tool, so an option row can say which tools accept it.
enum ToolBit : uint32_t {
  kWriteLat = 1u << 0,
  kReadLat = 1u << 1,
  kSendLat = 1u << 2,
  kAtomicLat = 1u << 3,
  kWriteBw = 1u << 4,
  kReadBw = 1u << 5,
  kSendBw = 1u << 6,
  kAtomicBw = 1u << 7,
  kLoopbackBw = 1u << 8,
  kHeatsink = 1u << 9,
  kStat = 1u << 10,
  kLatTools = kWriteLat | kReadLat | kSendLat | kAtomicLat,
  kBwTools = kWriteBw | kReadBw | kSendBw | kAtomicBw,
  kPairTools = kLatTools | kBwTools,  // client/server pairs
  kAllTools = (1u << 11) - 1,
};

struct Tool {
  const char* name;       // "fab_write_lat"
  const char* original;   // "cxi_write_lat"
  ToolBit bit;
  ToolKind kind;
  const char* title;      // "CXI RDMA Write Latency Test"
  const char* test;       // fabperf test it runs: "rdm_write_lat"
  const char* bi_test;    // with -b (nullptr: -b is not offered)
  const char* size_label; // first table column: "RDMA Size[B]"
  const char* op_label;   // second table column: "Writes"
  const char* noun;       // "Write": "Write Size", "Min Write Size"
  const char* sample_label;  // --report-all's first column: "WriteNum"
  uint64_t iters;         // default -n
  uint64_t size;          // default -s
  uint64_t list_size;     // default -l (bandwidth tools)
  const char* summary;    // one line for --help
};

const std::vector<Tool>& tools();
// The row for argv[0]'s basename (fab_* names; cxi_* names also answer), or nullptr.
const Tool* find_tool(std::string_view program);

inline constexpr uint16_t kDefaultPort = 49194;
inline constexpr uint64_t kMaxSize = 4294967295ull;  // 4 GiB - 1 (not the man page's typo)

}  // namespace fabperf::cxi
