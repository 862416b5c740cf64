// The resources a run's server side holds, for tests that do not compute their own.
#include "engine/test_spec.h"

#include <algorithm>

namespace fabperf {

Needs needs_of(const TestSpec& spec, const RunOptions& server_side) {
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
