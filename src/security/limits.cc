// Checks of a client's request against the server's limits, with the reason for a refusal.
#include "security/limits.h"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "core/units.h"
#include "engine/test_context.h"

namespace fabperf {

namespace {

// Histograms, JSON and thread stacks: what a session costs beyond its buffers.
constexpr uint64_t kSessionOverhead = uint64_t{1} << 20;

// `bytes` in the largest binary unit it reaches: an estimate to three figures; otherwise
// only an exact multiple of a sixteenth, as an option would spell it (1.5M), else in bytes.
std::string unit_text(uint64_t bytes, bool estimate) {
  const char* suffixes[] = {"T", "G", "M", "K"};
  const int shifts[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; ++i) {
    uint64_t unit = uint64_t{1} << shifts[i];
    if (bytes < unit) continue;
    bool exact = bytes % (unit / 16) == 0;
    if (!exact && !estimate) continue;
    char buf[32];
    snprintf(buf, sizeof buf, estimate ? "%.3g%s" : "%g%s",
             static_cast<double>(bytes) / static_cast<double>(unit), suffixes[i]);
    return buf;
  }
  return with_commas(bytes) + " bytes";
}

}  // namespace

std::string size_text(uint64_t bytes) { return unit_text(bytes, false); }

std::string approx_size_text(uint64_t bytes) { return unit_text(bytes, true); }

ServerLimits limits_from(const ProgramOptions& program) {
  ServerLimits limits;
  limits.max_msg_size = program.max_msg_size;
  limits.max_time = program.max_time;
  limits.max_msgs = program.max_msgs;
  limits.max_memory = program.max_memory;
  return limits;
}

uint64_t descriptor_budget() {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return 1u << 20;
  constexpr uint64_t kServerReserve = 64;  // listener, log, the sessions' control connections
  return rl.rlim_cur > kServerReserve ? rl.rlim_cur - kServerReserve : 0;
}

RunCost run_cost(const TestSpec& spec, const RunOptions& opts) {
  Needs needs = needs_of(spec, opts);
  RunCost cost;
  // Saturate rather than wrap: a wrapped sum would pass the check.
  cost.memory = needs.buffer_bytes > UINT64_MAX - kSessionOverhead
                    ? UINT64_MAX
                    : needs.buffer_bytes + kSessionOverhead;
  cost.threads = needs.threads;
  cost.descriptors = needs.descriptors;
  return cost;
}

Status check_request(const ServerLimits& limits, const TestSpec& spec, const RunOptions& opts,
                     const RunCost& in_use) {
  auto refuse = [](const std::string& what) { return Status::failed("refused: " + what); };
  if (opts.msg_size > limits.max_msg_size) {
    return refuse("message size " + size_text(opts.msg_size) + " exceeds this server's limit of " +
                  size_text(limits.max_msg_size) + " (server option --max_msg_size)");
  }
  if (opts.no_msgs > limits.max_msgs) {
    return refuse("-n " + with_commas(opts.no_msgs) + " exceeds this server's limit of " +
                  with_commas(limits.max_msgs) + " messages (server option --max_msgs)");
  }
  if (opts.warmup > limits.max_msgs) {
    return refuse("--warmup " + with_commas(opts.warmup) + " exceeds this server's limit of " +
                  with_commas(limits.max_msgs) + " messages (server option --max_msgs)");
  }
  if (opts.time > limits.max_time && opts.no_msgs == 0) {
    return refuse("-t " + seconds_text(opts.time) + " exceeds this server's limit of " +
                  seconds_text(limits.max_time) + " (server option --max_time)");
  }
  // The client chooses the server's data port (-ip), never a privileged one: a root server
  // bound 22 and 80 when asked (review N11).
  if (opts.ip_port != 0 && opts.ip_port < kFirstClientPort) {
    return refuse("data port " + std::to_string(opts.ip_port) + " is below " +
                  std::to_string(kFirstClientPort) +
                  ": a client may not ask for a privileged port (give 0 or " +
                  std::to_string(kFirstClientPort) + " to 65535)");
  }
  RunCost need = run_cost(spec, opts);
  if (need.descriptors > limits.max_descriptors) {
    return refuse("the run needs " + std::to_string(need.descriptors) + " descriptors (--streams " +
                  std::to_string(opts.streams) + "), more than this server's " +
                  std::to_string(limits.max_descriptors) + " (its open-files limit)");
  }
  if (need.threads > limits.max_threads) {
    return refuse("the run needs " + std::to_string(need.threads) + " threads (--streams " +
                  std::to_string(opts.streams) + "), more than this server's " +
                  std::to_string(limits.max_threads));
  }
  auto busy = [](const std::string& what) {
    return Status::failed("server busy: " + what + " in use by other clients; try again later");
  };
  if (need.descriptors >
      limits.max_descriptors - std::min(in_use.descriptors, limits.max_descriptors)) {
    return busy(std::to_string(in_use.descriptors) + " of its " +
                std::to_string(limits.max_descriptors) + " descriptors are");
  }
  if (need.threads > limits.max_threads - std::min(in_use.threads, limits.max_threads)) {
    return busy(std::to_string(in_use.threads) + " of its " + std::to_string(limits.max_threads) +
                " measuring threads are");
  }
  if (need.memory > limits.max_memory) {
    return refuse("the run needs about " + approx_size_text(need.memory) +
                  " of buffers, more than this server's limit of " + size_text(limits.max_memory) +
                  " (server option --max_memory)");
  }
  if (need.memory > limits.max_memory - std::min(in_use.memory, limits.max_memory)) {
    return busy(approx_size_text(in_use.memory) + " of its " + size_text(limits.max_memory) +
                " buffer memory is");
  }
  return Status::success();
}

}  // namespace fabperf
