// What one client may ask of a server: message size, run time, message count, memory.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

struct TestSpec;

// Each field is a server option (--max_*) or what the process may hold. The options' defaults
// are the option table's alone: limits_from() reads them from ProgramOptions, and the zeros
// here (which would refuse every request) are never a second copy of them. The process's
// limits are not options: their defaults are here (a server replaces max_descriptors with
// descriptor_budget()).
struct ServerLimits {
  uint64_t max_msg_size = 0;       // --max_msg_size: -m
  double max_time = 0;             // --max_time: -t and the run itself
  uint64_t max_msgs = 0;           // --max_msgs: -n and --warmup
  uint64_t max_memory = 0;         // --max_memory: buffers of all sessions
  uint64_t max_descriptors = 960;  // the open-files limit, less what the server keeps
  uint64_t max_threads = 1024;     // measuring threads of all runs at once
};

// The limits the options give (--max_msg_size, --max_time, --max_msgs, --max_memory); the
// process's limits keep their defaults. limits_from(default_program_options()) is the table's.
ServerLimits limits_from(const ProgramOptions& program);

// The lowest data port a client may ask the server to bind (-ip): below are privileged
// services' ports.
inline constexpr uint64_t kFirstClientPort = 1024;

// The process's open-files limit, less a reserve for the server's own descriptors.
uint64_t descriptor_budget();

// What a run of `spec` makes the server hold: the test's declared needs (buffers, threads,
// descriptors: --streams counts against all three) and a session's fixed memory overhead.
struct RunCost {
  uint64_t memory = 0, threads = 0, descriptors = 0;
  // What the server holds: a run's cost added when it starts, taken away when it ends.
  RunCost& operator+=(const RunCost& o) {
    memory += o.memory;
    threads += o.threads;
    descriptors += o.descriptors;
    return *this;
  }
  RunCost& operator-=(const RunCost& o) {
    memory -= o.memory;
    threads -= o.threads;
    descriptors -= o.descriptors;
    return *this;
  }
};
RunCost run_cost(const TestSpec& spec, const RunOptions& opts);

// Refuses a request beyond the limits with a message naming the parameter, the value asked
// for, the limit and the option that sets it. `in_use` is what other runs hold now: what
// fits alone but not beside them is "server busy, try again later".
Status check_request(const ServerLimits& limits, const TestSpec& spec, const RunOptions& opts,
                     const RunCost& in_use);

// 1073741824 -> "1G", 1536 -> "1.5K", 1000 -> "1,000 bytes" (qperf's binary upper case).
std::string size_text(uint64_t bytes);
// An estimate to three figures in the same units ("1.06G"); never used for a limit itself.
std::string approx_size_text(uint64_t bytes);

}  // namespace fabperf
