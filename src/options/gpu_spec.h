// What --gpu names: "[TYPE:]INDEX", the GPU whose memory holds a side's buffers.
#pragma once

#include <string>

#include "core/status.h"

namespace fabperf {

struct GpuSpec {
  std::string type;  // "NVIDIA", "AMD", "INTEL"; "" = the type whose device files exist
  int index = -1;
};

// "0", "NVIDIA:1" ...; a Usage error naming the value otherwise.
Result<GpuSpec> parse_gpu_spec(const std::string& text);

}  // namespace fabperf
