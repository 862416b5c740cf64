// The resources a run's server side holds, for tests that do not compute their own.
#include "engine/test_spec.h"

#include <algorithm>

namespace fabperf {

uint64_t message_size_of(const TestSpec& spec, const RunOptions& opts) {
  return opts.msg_size != 0 ? opts.msg_size : spec.default_msg_size;
}

Needs needs_of(const TestSpec& spec, const RunOptions& options) {
  // Counted at the size the run will have, not at a 0 that stands for the default.
  RunOptions server_side = options;
  server_side.msg_size = message_size_of(spec, options);
  if (spec.needs != nullptr) return spec.needs(server_side);
  // One message buffer, thread and connection per stream.
  uint64_t streams = std::max<uint64_t>(1, server_side.streams);
  Needs out;
  uint64_t size = server_side.msg_size;
  out.buffer_bytes = size != 0 && streams > UINT64_MAX / size ? UINT64_MAX : size * streams;
  out.threads = static_cast<uint32_t>(streams);
  out.descriptors = static_cast<uint32_t>(streams + 1);
  return out;
}

}  // namespace fabperf
