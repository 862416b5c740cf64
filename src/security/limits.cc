// Checks of a client's request against the server's limits, with the reason for a refusal.
#include "security/limits.h"

#include <algorithm>
#include <cstdio>

#include "core/text.h"
#include "core/units.h"
#include "engine/test_context.h"

namespace fabperf {

namespace {

// Histograms, JSON and thread stacks: what a session costs beyond its buffers.
constexpr uint64_t kSessionOverhead = uint64_t{1} << 20;

}  // namespace

std::string size_text(uint64_t bytes) {
  const char* suffixes[] = {"T", "G", "M", "K"};
  const int shifts[] = {40, 30, 20, 10};
  for (int i = 0; i < 4; ++i) {
    uint64_t unit = uint64_t{1} << shifts[i];
    if (bytes >= unit && bytes % (unit / 16) == 0) {
      char buf[32];
      snprintf(buf, sizeof buf, "%g%s", static_cast<double>(bytes) / static_cast<double>(unit),
               suffixes[i]);
      return buf;
    }
  }
  return with_commas(bytes) + " bytes";
}

uint64_t session_memory(const TestSpec& spec, const RunOptions& opts) {
  uint64_t buffers = needs_of(spec, opts).buffer_bytes;
  // Saturate rather than wrap: a wrapped sum would pass the check.
  if (buffers > UINT64_MAX - kSessionOverhead) return UINT64_MAX;
  return buffers + kSessionOverhead;
}

Status check_request(const ServerLimits& limits, const TestSpec& spec, const RunOptions& opts,
                     uint64_t in_use) {
  auto refuse = [](const std::string& what) { return Status::Failed("refused: " + what); };
  if (opts.msg_size > limits.max_msg_size) {
    return refuse("message size " + size_text(opts.msg_size) +
                  " exceeds this server's limit of " + size_text(limits.max_msg_size) +
                  " (server option --max_msg_size)");
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
  uint64_t need = session_memory(spec, opts);
  if (need > limits.max_memory) {
    return refuse("the run needs about " + size_text(need) + " of buffers, more than this " +
                  "server's limit of " + size_text(limits.max_memory) +
                  " (server option --max_memory)");
  }
  if (need > limits.max_memory - std::min(in_use, limits.max_memory)) {
    return Status::Failed("server busy: " + size_text(in_use) + " of its " +
                          size_text(limits.max_memory) +
                          " buffer memory is in use by other clients; try again later");
  }
  return Status::Ok();
}

}  // namespace fabperf
