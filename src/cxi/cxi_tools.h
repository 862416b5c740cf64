// The CXI diagnostics dialect: one row per fab_* tool (what it measures, its labels, defaults).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "options/option_table.h"

namespace fabperf::cxi {

enum class ToolKind { kLatency, kBandwidth, kLoopback, kHeatsink, kStat };

struct Tool {
  const char* name;      // "fab_write_lat"
  const char* original;  // "cxi_write_lat"
  uint32_t bit;          // its CxiTool bit (options/option_table.h): which spellings it takes
  ToolKind kind;
  const char* title;         // "CXI RDMA Write Latency Test"
  const char* test;          // fabperf test it runs: "rdm_write_lat"
  const char* bi_test;       // with -b (nullptr: -b is not offered)
  const char* size_label;    // first table column: "RDMA Size[B]"
  const char* op_label;      // second table column: "Writes"
  const char* noun;          // "Write": "Write Size", "Min Write Size"
  const char* sample_label;  // --report-all's first column: "WriteNum"
  uint64_t iters;            // default -n
  uint64_t size;             // default -s
  uint64_t list_size;        // default -l (bandwidth tools)
  const char* summary;       // one line for --help
};

const std::vector<Tool>& tools();
// The row for argv[0]'s basename (fab_* names; cxi_* names also answer), or nullptr.
const Tool* find_tool(std::string_view program);
// The tool's usage lines ("  fab_write_lat [-d DEV] [-p PORT]\n  fab_write_lat [OPTIONS] ..."),
// shared by its --help and its man page.
std::string tool_synopsis(const Tool& tool);

}  // namespace fabperf::cxi
