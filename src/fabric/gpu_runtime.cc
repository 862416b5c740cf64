// GPU runtimes through dlopen: CUDA (libcudart), HIP (libamdhip64), Level Zero (libze_loader).
#include "fabric/gpu_runtime.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdint>
#include <cstdlib>
#include <type_traits>
#include <vector>

#include "core/environment.h"

namespace fabperf {

namespace {

// Everything fabperf knows of each GPU type, in one place.
struct GpuKind {
  GpuType type;
  const char* name;
  const char* library;               // the development package's unversioned name
  std::vector<const char*> sonames;  // then these, newest first
  const char* prefix;                // CUDA-shaped entry points: cudaMalloc, hipMalloc
  fi_hmem_iface iface;
};

const GpuKind& kind_of(GpuType type) {
  static const GpuKind kinds[] = {
      {GpuType::kNvidia,
       "NVIDIA",
       "libcudart.so",
       {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"},
       "cuda",
       FI_HMEM_CUDA},
      {GpuType::kAmd,
       "AMD",
       "libamdhip64.so",
       {"libamdhip64.so.7", "libamdhip64.so.6"},
       "hip",
       FI_HMEM_ROCR},
      {GpuType::kIntel, "INTEL", "libze_loader.so", {"libze_loader.so.1"}, "", FI_HMEM_ZE},
  };
  for (const GpuKind& k : kinds) {
    if (k.type == type) return k;
  }
  return kinds[0];
}

bool exists(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0;
}

bool has_render_node(const std::string& dev_root) {
  DIR* dir = opendir((dev_root + "/dri").c_str());
  if (dir == nullptr) return false;
  bool found = false;
  while (dirent* e = readdir(dir)) {
    if (std::string(e->d_name).rfind("renderD", 0) == 0) found = true;
  }
  closedir(dir);
  return found;
}

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

Status runtime_error(const std::string& what, int rc) {
  return Status::failed(what + " failed (GPU runtime error " + std::to_string(rc) + ")");
}

// CUDA and HIP share the shape of the calls fabperf needs: int-returning, 0 = success, and
// the same values for host-to-device (1) and device-to-host (2) copies.
struct CudaLikeCalls {
  int (*count)(int*) = nullptr;
  int (*set)(int) = nullptr;
  int (*malloc)(void**, size_t) = nullptr;
  int (*free)(void*) = nullptr;
  int (*memcpy)(void*, const void*, size_t, int) = nullptr;
  int (*memset)(void*, int, size_t) = nullptr;
  int (*synchronize)() = nullptr;
};
constexpr int kHostToDevice = 1;
constexpr int kDeviceToHost = 2;

class CudaLikeRuntime : public GpuRuntime {
 public:
  CudaLikeRuntime(GpuType type, void* lib, CudaLikeCalls calls, fi_hmem_iface iface)
      : type_(type), lib_(lib), calls_(calls), iface_(iface) {}
  ~CudaLikeRuntime() override { dlclose(lib_); }
  GpuType type() const override { return type_; }
  fi_hmem_iface hmem_iface() const override { return iface_; }
  Result<int> device_count() override {
    int n = 0;
    int rc = calls_.count(&n);
    if (rc != 0) {
      return Status::unsupported(std::string("no ") + gpu_type_name(type_) +
                                 " GPU: the runtime reports error " + std::to_string(rc) +
                                 " counting devices (no device or driver)");
    }
    return n;
  }
  Result<void*> allocate(int device, size_t size) override {
    FP_RETURN_IF_ERROR(select(device));
    void* p = nullptr;
    if (int rc = calls_.malloc(&p, size); rc != 0) {
      return runtime_error(
          "allocating " + std::to_string(size) + " bytes on GPU " + std::to_string(device), rc);
    }
    int rc = calls_.memset(p, 0, size);
    if (rc == 0) rc = calls_.synchronize();
    if (rc != 0) {
      calls_.free(p);
      return runtime_error("clearing GPU memory", rc);
    }
    return p;
  }
  void release(int device, void* ptr) override {
    if (select(device).ok()) calls_.free(ptr);
  }
  Status copy_to_device(int device, void* dst, const void* src, size_t len) override {
    FP_RETURN_IF_ERROR(select(device));
    int rc = calls_.memcpy(dst, src, len, kHostToDevice);
    // From pageable memory the copy may still be in flight on return; the NIC reads next.
    if (rc == 0) rc = calls_.synchronize();
    return rc == 0 ? Status::success() : runtime_error("copy to GPU memory", rc);
  }
  Status copy_from_device(int device, void* dst, const void* src, size_t len) override {
    FP_RETURN_IF_ERROR(select(device));
    int rc = calls_.memcpy(dst, src, len, kDeviceToHost);
    return rc == 0 ? Status::success() : runtime_error("copy from GPU memory", rc);
  }

 private:
  // The current device is per thread: every call names its device.
  Status select(int device) {
    int rc = calls_.set(device);
    return rc == 0 ? Status::success()
                   : runtime_error("selecting GPU " + std::to_string(device), rc);
  }
  GpuType type_;
  void* lib_;
  CudaLikeCalls calls_;
  fi_hmem_iface iface_;
};

// Level Zero, declared here (no headers needed): a context per driver, device allocations,
// and copies through a synchronous immediate command list per device.
namespace ze {
using Handle = void*;
constexpr uint32_t kContextDesc = 0xd;       // ZE_STRUCTURE_TYPE_CONTEXT_DESC
constexpr uint32_t kQueueDesc = 0xe;         // ZE_STRUCTURE_TYPE_COMMAND_QUEUE_DESC
constexpr uint32_t kDeviceAllocDesc = 0x15;  // ZE_STRUCTURE_TYPE_DEVICE_MEM_ALLOC_DESC
constexpr uint32_t kSynchronous = 1;         // ZE_COMMAND_QUEUE_MODE_SYNCHRONOUS
struct ContextDesc {
  uint32_t stype;
  const void* next;
  uint32_t flags;
};
struct DeviceAllocDesc {
  uint32_t stype;
  const void* next;
  uint32_t flags;
  uint32_t ordinal;
};
struct QueueDesc {
  uint32_t stype;
  const void* next;
  uint32_t ordinal, index, flags, mode, priority;
};
struct Calls {
  int (*init)(int) = nullptr;
  int (*driver_get)(uint32_t*, Handle*) = nullptr;
  int (*device_get)(Handle, uint32_t*, Handle*) = nullptr;
  int (*context_create)(Handle, const ContextDesc*, Handle*) = nullptr;
  int (*context_destroy)(Handle) = nullptr;
  int (*alloc_device)(Handle, const DeviceAllocDesc*, size_t, size_t, Handle, void**) = nullptr;
  int (*free)(Handle, void*) = nullptr;
  int (*list_create_immediate)(Handle, Handle, const QueueDesc*, Handle*) = nullptr;
  int (*list_destroy)(Handle) = nullptr;
  int (*append_copy)(Handle, void*, const void*, size_t, Handle, uint32_t, Handle*) = nullptr;
  int (*append_fill)(Handle, void*, const void*, size_t, size_t, Handle, uint32_t,
                     Handle*) = nullptr;
};
}  // namespace ze

class LevelZeroRuntime : public GpuRuntime {
 public:
  LevelZeroRuntime(void* lib, ze::Calls calls, fi_hmem_iface iface)
      : lib_(lib), calls_(calls), iface_(iface) {}
  ~LevelZeroRuntime() override {
    for (Device& d : devices_) {
      if (d.list != nullptr) calls_.list_destroy(d.list);
    }
    for (ze::Handle c : contexts_) calls_.context_destroy(c);
    dlclose(lib_);
  }
  GpuType type() const override { return GpuType::kIntel; }
  fi_hmem_iface hmem_iface() const override { return iface_; }
  Result<int> device_count() override {
    FP_RETURN_IF_ERROR(discover());
    return static_cast<int>(devices_.size());
  }
  Result<void*> allocate(int device, size_t size) override {
    auto d = open(device);
    if (!d.ok()) return d.status();
    ze::DeviceAllocDesc desc{ze::kDeviceAllocDesc, nullptr, 0, 0};
    void* p = nullptr;
    if (int rc = calls_.alloc_device((*d)->context, &desc, size, 64, (*d)->handle, &p); rc != 0) {
      return runtime_error(
          "allocating " + std::to_string(size) + " bytes on GPU " + std::to_string(device), rc);
    }
    const uint8_t zero = 0;
    if (int rc = calls_.append_fill((*d)->list, p, &zero, 1, size, nullptr, 0, nullptr); rc != 0) {
      calls_.free((*d)->context, p);
      return runtime_error("clearing GPU memory", rc);
    }
    return p;
  }
  void release(int device, void* ptr) override {
    auto d = open(device);
    if (d.ok()) calls_.free((*d)->context, ptr);
  }
  Status copy_to_device(int device, void* dst, const void* src, size_t len) override {
    return copy(device, dst, src, len, "copy to GPU memory");
  }
  Status copy_from_device(int device, void* dst, const void* src, size_t len) override {
    return copy(device, dst, src, len, "copy from GPU memory");
  }

 private:
  struct Device {
    ze::Handle handle = nullptr;
    ze::Handle context = nullptr;  // of its driver
    ze::Handle list = nullptr;     // created on first use
  };

  Status discover() {
    if (discovered_) return Status::success();
    if (int rc = calls_.init(0); rc != 0) {
      return Status::unsupported("no INTEL GPU: zeInit failed (error " + std::to_string(rc) + ")");
    }
    discovered_ = true;
    uint32_t ndrivers = 0;
    if (calls_.driver_get(&ndrivers, nullptr) != 0 || ndrivers == 0) return Status::success();
    std::vector<ze::Handle> drivers(ndrivers);
    if (calls_.driver_get(&ndrivers, drivers.data()) != 0) return Status::success();
    for (ze::Handle driver : drivers) {
      uint32_t n = 0;
      if (calls_.device_get(driver, &n, nullptr) != 0 || n == 0) continue;
      std::vector<ze::Handle> handles(n);
      if (calls_.device_get(driver, &n, handles.data()) != 0) continue;
      ze::ContextDesc desc{ze::kContextDesc, nullptr, 0};
      ze::Handle context = nullptr;
      if (int rc = calls_.context_create(driver, &desc, &context); rc != 0) {
        return runtime_error("creating a Level Zero context", rc);
      }
      contexts_.push_back(context);
      for (ze::Handle h : handles) devices_.push_back(Device{h, context, nullptr});
    }
    return Status::success();
  }
  Result<Device*> open(int device) {
    FP_RETURN_IF_ERROR(discover());
    if (device < 0 || device >= static_cast<int>(devices_.size())) {
      return Status::unsupported("no INTEL GPU " + std::to_string(device));
    }
    Device& d = devices_[static_cast<size_t>(device)];
    if (d.list == nullptr) {
      ze::QueueDesc desc{ze::kQueueDesc, nullptr, 0, 0, 0, ze::kSynchronous, 0};
      if (int rc = calls_.list_create_immediate(d.context, d.handle, &desc, &d.list); rc != 0) {
        return runtime_error("creating a Level Zero command list", rc);
      }
    }
    return &d;
  }
  Status copy(int device, void* dst, const void* src, size_t len, const char* what) {
    auto d = open(device);
    if (!d.ok()) return d.status();
    int rc = calls_.append_copy((*d)->list, dst, src, len, nullptr, 0, nullptr);
    return rc == 0 ? Status::success() : runtime_error(what, rc);
  }

  void* lib_;
  ze::Calls calls_;
  fi_hmem_iface iface_;
  bool discovered_ = false;
  std::vector<Device> devices_;
  std::vector<ze::Handle> contexts_;
};

void* open_library(GpuType type, std::string* error) {
  std::vector<std::string> names;
  if (const std::string& path = environment().gpu_runtime; !path.empty()) {
    names.push_back(path);
  } else {
    const GpuKind& kind = kind_of(type);
    names.push_back(kind.library);
    names.insert(names.end(), kind.sonames.begin(), kind.sonames.end());
  }
  for (const std::string& n : names) {
    if (void* lib = dlopen(n.c_str(), RTLD_NOW | RTLD_LOCAL)) return lib;
    if (error->empty()) {
      const char* e = dlerror();
      *error = e != nullptr ? e : n + ": cannot be loaded";
    }
  }
  return nullptr;
}

fi_hmem_iface iface_of(GpuType type, void* lib) {
  if (const int* declared = symbol<const int*>(lib, "fabperf_hmem_iface")) {
    return static_cast<fi_hmem_iface>(*declared);
  }
  return kind_of(type).iface;
}

}  // namespace

const char* gpu_type_name(GpuType type) { return kind_of(type).name; }

const char* gpu_runtime_library(GpuType type) { return kind_of(type).library; }

Result<GpuType> choose_gpu_type(const std::string& requested, const std::string& dev_root) {
  for (GpuType type : {GpuType::kNvidia, GpuType::kAmd, GpuType::kIntel}) {
    if (requested == kind_of(type).name) return type;
  }
  if (!requested.empty()) return Status::usage("Invalid GPU type: " + requested);
  if (exists(dev_root + "/nvidia0")) return GpuType::kNvidia;
  if (exists(dev_root + "/kfd")) return GpuType::kAmd;
  if (has_render_node(dev_root)) return GpuType::kIntel;
  return Status::unsupported("no GPU found: none of " + dev_root + "/nvidia0, " + dev_root +
                             "/kfd, " + dev_root +
                             "/dri/renderD* exists (name the type: --gpu "
                             "TYPE:N; in the fab_* tools -g TYPE)");
}

Result<std::unique_ptr<GpuRuntime>> load_gpu_runtime(GpuType type) {
  std::string error;
  void* lib = open_library(type, &error);
  if (lib == nullptr) {
    return Status::unsupported(std::string("GPU runtime for ") + gpu_type_name(type) +
                               " not found: " + error);
  }
  auto missing = [&](const std::string& name) -> Status {
    dlclose(lib);
    return Status::unsupported(std::string("GPU runtime ") + gpu_runtime_library(type) + " lacks " +
                               name);
  };
  fi_hmem_iface iface = iface_of(type, lib);
  std::string absent;
  auto find = [&](auto* fn, const std::string& name) {
    *fn = symbol<std::remove_reference_t<decltype(*fn)>>(lib, name.c_str());
    if (*fn == nullptr && absent.empty()) absent = name;
  };
  if (type == GpuType::kIntel) {
    ze::Calls c;
    find(&c.init, "zeInit");
    find(&c.driver_get, "zeDriverGet");
    find(&c.device_get, "zeDeviceGet");
    find(&c.context_create, "zeContextCreate");
    find(&c.context_destroy, "zeContextDestroy");
    find(&c.alloc_device, "zeMemAllocDevice");
    find(&c.free, "zeMemFree");
    find(&c.list_create_immediate, "zeCommandListCreateImmediate");
    find(&c.list_destroy, "zeCommandListDestroy");
    find(&c.append_copy, "zeCommandListAppendMemoryCopy");
    find(&c.append_fill, "zeCommandListAppendMemoryFill");
    if (!absent.empty()) return missing(absent);
    return std::unique_ptr<GpuRuntime>(new LevelZeroRuntime(lib, c, iface));
  }
  const std::string prefix = kind_of(type).prefix;
  CudaLikeCalls c;
  find(&c.count, prefix + "GetDeviceCount");
  find(&c.set, prefix + "SetDevice");
  find(&c.malloc, prefix + "Malloc");
  find(&c.free, prefix + "Free");
  find(&c.memcpy, prefix + "Memcpy");
  find(&c.memset, prefix + "Memset");
  find(&c.synchronize, prefix + "DeviceSynchronize");
  if (!absent.empty()) return missing(absent);
  return std::unique_ptr<GpuRuntime>(new CudaLikeRuntime(type, lib, c, iface));
}

Status check_gpu_device(GpuRuntime& runtime, int index) {
  auto n = runtime.device_count();
  if (!n.ok()) return n.status();
  if (index >= *n) {
    return Status::unsupported(std::string("no ") + gpu_type_name(runtime.type()) + " GPU " +
                               std::to_string(index) + ": the runtime reports " +
                               std::to_string(*n) + (*n == 1 ? " device" : " devices"));
  }
  return Status::success();
}

Result<std::unique_ptr<GpuRuntime>> open_gpu(const GpuSpec& spec) {
  auto type = choose_gpu_type(spec.type);
  if (!type.ok()) return type.status();
  auto runtime = load_gpu_runtime(*type);
  if (!runtime.ok()) return runtime.status();
  FP_RETURN_IF_ERROR(check_gpu_device(**runtime, spec.index));
  return runtime;
}

}  // namespace fabperf
