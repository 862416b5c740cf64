// Parsing of --gpu values.
#include "options/gpu_spec.h"

namespace fabperf {

Result<GpuSpec> parse_gpu_spec(const std::string& text) {
  GpuSpec spec;
  std::string index = text;
  if (size_t colon = text.find(':'); colon != std::string::npos) {
    spec.type = text.substr(0, colon);
    index = text.substr(colon + 1);
    if (spec.type != "NVIDIA" && spec.type != "AMD" && spec.type != "INTEL") {
      return Status::usage("--gpu " + text + ": GPU type \"" + spec.type +
                           "\" is not NVIDIA, AMD or INTEL");
    }
  }
  bool digits = !index.empty() && index.size() <= 4 &&
                index.find_first_not_of("0123456789") == std::string::npos;
  if (!digits) {
    return Status::usage("--gpu " + text + ": expected [TYPE:]INDEX, e.g. 0 or NVIDIA:1");
  }
  spec.index = std::stoi(index);
  return spec;
}

}  // namespace fabperf
