// What one client may ask of a server: message size, run time, message count, memory.
#pragma once

#include <cstdint>
#include <string>

#include "options/run_options.h"
#include "core/status.h"

namespace fabperf {

struct TestSpec;

// Each field is a server option (--max_*); the defaults are the option table's.
struct ServerLimits {
  uint64_t max_msg_size = uint64_t{1} << 30;  // --max_msg_size 1G
  double max_time = 3600;                     // --max_time 1h: -t and the run itself
  uint64_t max_msgs = 1'000'000'000;          // --max_msgs: -n and --warmup
  uint64_t max_memory = uint64_t{2} << 30;    // --max_memory 2G: buffers of all sessions
};

// Memory a run of `spec` makes the server hold: the test's buffers (its declared needs) and a
// session's fixed overhead.
uint64_t session_memory(const TestSpec& spec, const RunOptions& opts);

// Refuses a request beyond the limits with a message naming the parameter, the value asked
// for, the limit and the option that sets it. `in_use` is the memory other sessions hold.
Status check_request(const ServerLimits& limits, const TestSpec& spec, const RunOptions& opts,
                     uint64_t in_use);

// 1073741824 -> "1G", 1536 -> "1.5K", 1000 -> "1,000 bytes" (qperf's binary upper case).
std::string size_text(uint64_t bytes);

}  // namespace fabperf
