// GPU runtimes for buffers in GPU memory (CUDA, HIP, Level Zero), loaded with dlopen so that
// nothing links against them; every failure names what is missing (runtime, device).
#pragma once

#include <rdma/fi_domain.h>

#include <cstddef>
#include <memory>
#include <string>

#include "core/status.h"
#include "options/gpu_spec.h"

namespace fabperf {

enum class GpuType { kNvidia, kAmd, kIntel };

const char* gpu_type_name(GpuType type);        // "NVIDIA", "AMD", "INTEL"
const char* gpu_runtime_library(GpuType type);  // "libcudart.so", ...

// The requested type ("NVIDIA", "AMD", "INTEL"), else the type whose device files exist under
// `dev_root` (/dev/nvidia0, /dev/kfd, /dev/dri/renderD*). Unsupported when none does.
Result<GpuType> choose_gpu_type(const std::string& requested, const std::string& dev_root = "/dev");

// The few entry points fabperf uses, whichever runtime provides them. Copies are synchronous.
class GpuRuntime {
 public:
  virtual ~GpuRuntime() = default;
  virtual GpuType type() const = 0;
  // How libfabric is told where a buffer lives (fi_mr_attr.iface).
  virtual fi_hmem_iface hmem_iface() const = 0;
  // Devices the runtime sees, or an error from the runtime.
  virtual Result<int> device_count() = 0;
  // Device memory, zeroed.
  virtual Result<void*> allocate(int device, size_t size) = 0;
  virtual void release(int device, void* ptr) = 0;
  virtual Status copy_to_device(int device, void* dst, const void* src, size_t len) = 0;
  virtual Status copy_from_device(int device, void* dst, const void* src, size_t len) = 0;
};

// dlopen's the runtime of `type`: $FABPERF_GPU_RUNTIME when set (a runtime installed outside
// the loader's path), else the unversioned name, then the usual versioned ones.
// Unsupported: "GPU runtime for NVIDIA not found: libcudart.so: cannot open shared object file".
// A library that exports `int fabperf_hmem_iface` (the test runtime in tests/fake_gpu/) names
// the libfabric interface its memory registers under; real runtimes do not.
Result<std::unique_ptr<GpuRuntime>> load_gpu_runtime(GpuType type);

// Device `index` exists: Unsupported "no NVIDIA GPU 1: the runtime reports 1 device" otherwise.
Status check_gpu_device(GpuRuntime& runtime, int index);

// The runtime for `spec`, its device checked: the type (named or found), the runtime and the
// device, in that order, each missing piece named.
Result<std::unique_ptr<GpuRuntime>> open_gpu(const GpuSpec& spec);

}  // namespace fabperf
