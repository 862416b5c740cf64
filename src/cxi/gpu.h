// GPU buffers for -t/-r/-g: the runtime (CUDA, HIP, Level Zero) is loaded with dlopen, so
// nothing links against it; every failure names what is missing (runtime, device, FI_HMEM).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/status.h"
#include "cxi/fabric_probe.h"

namespace fabperf::cxi {

enum class GpuType { kNvidia, kAmd, kIntel };

const char* gpu_type_name(GpuType type);    // "NVIDIA", "AMD", "INTEL"
const char* gpu_runtime_library(GpuType type);  // "libcudart.so", ...

// -g, else the type whose device files exist under `dev_root` (/dev/nvidia0, /dev/kfd,
// /dev/dri/renderD*; the originals' "discovered GPU files"). Unsupported when none does.
Result<GpuType> choose_gpu_type(const std::string& requested, const std::string& dev_root = "/dev");

// The few entry points fabperf uses, whichever runtime provides them.
class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  virtual GpuType type() const = 0;
  // Devices the runtime sees, or an error from the runtime.
  virtual Result<int> device_count() = 0;
  virtual Result<void*> allocate(int device, size_t size) = 0;
  virtual void release(void* ptr) = 0;
};

// dlopen's the runtime of `type` (the unversioned name, then the usual versioned ones).
// Unsupported: "GPU runtime for NVIDIA not found: libcudart.so: cannot open shared object file".
Result<std::unique_ptr<GpuRuntime>> load_gpu_runtime(GpuType type);

// Device `index` exists: Unsupported "no NVIDIA GPU 1: the runtime reports 1 device" otherwise.
Status check_gpu_device(GpuRuntime& runtime, int index);

// Every check before this side allocates GPU `index`, in order: GPU type, runtime, device,
// then the provider's FI_HMEM support. `provider`/`domain` as the run will use them.
Status check_gpu_buffers(const std::string& gpu_type, int index, const std::string& provider,
                         const std::string& domain, Needs needs);

}  // namespace fabperf::cxi
