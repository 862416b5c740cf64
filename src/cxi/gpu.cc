// GPU runtimes through dlopen: CUDA (libcudart), HIP (libamdhip64), Level Zero (libze_loader).
#include "cxi/gpu.h"

#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <cstdint>

namespace fabperf::cxi {

namespace {

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

// CUDA and HIP share the shape of the calls fabperf needs: int-returning, 0 = success.
class CudaLikeRuntime : public GpuRuntime {
 public:
  using CountFn = int (*)(int*);
  using SetFn = int (*)(int);
  using MallocFn = int (*)(void**, size_t);
  using FreeFn = int (*)(void*);

  CudaLikeRuntime(GpuType type, void* lib, CountFn count, SetFn set, MallocFn alloc, FreeFn release)
      : type_(type), lib_(lib), count_(count), set_(set), malloc_(alloc), free_(release) {}
  ~CudaLikeRuntime() override { dlclose(lib_); }
  GpuType type() const override { return type_; }
  Result<int> device_count() override {
    int n = 0;
    int rc = count_(&n);
    if (rc != 0) {
      return Status::Unsupported(std::string("no ") + gpu_type_name(type_) +
                              " GPU: the runtime reports error " + std::to_string(rc) +
                              " counting devices (no device or driver)");
    }
    return n;
  }
  Result<void*> allocate(int device, size_t size) override {
    void* p = nullptr;
    if (int rc = set_(device); rc != 0) {
      return Status::Failed("selecting GPU " + std::to_string(device) + " failed (error " +
                            std::to_string(rc) + ")");
    }
    if (int rc = malloc_(&p, size); rc != 0) {
      return Status::Failed("GPU allocation of " + std::to_string(size) + " bytes failed (error " +
                            std::to_string(rc) + ")");
    }
    return p;
  }
  void release(void* ptr) override { free_(ptr); }

 private:
  GpuType type_;
  void* lib_;
  CountFn count_;
  SetFn set_;
  MallocFn malloc_;
  FreeFn free_;
};

// Level Zero: devices are counted through the drivers; fabperf only counts them here.
class LevelZeroRuntime : public GpuRuntime {
 public:
  using InitFn = int (*)(int);
  using DriverGetFn = int (*)(uint32_t*, void**);
  using DeviceGetFn = int (*)(void*, uint32_t*, void**);
  LevelZeroRuntime(void* lib, InitFn init, DriverGetFn drivers, DeviceGetFn devices)
      : lib_(lib), init_(init), drivers_(drivers), devices_(devices) {}
  ~LevelZeroRuntime() override { dlclose(lib_); }
  GpuType type() const override { return GpuType::kIntel; }
  Result<int> device_count() override {
    if (int rc = init_(0); rc != 0) {
      return Status::Unsupported("no INTEL GPU: zeInit failed (error " + std::to_string(rc) + ")");
    }
    uint32_t ndrivers = 0;
    if (drivers_(&ndrivers, nullptr) != 0 || ndrivers == 0) return 0;
    std::vector<void*> handles(ndrivers);
    drivers_(&ndrivers, handles.data());
    int total = 0;
    for (void* d : handles) {
      uint32_t n = 0;
      if (devices_(d, &n, nullptr) == 0) total += static_cast<int>(n);
    }
    return total;
  }
  Result<void*> allocate(int, size_t) override {
    return Status::Unsupported("Level Zero device allocation needs a context per device, "
                               "which fabperf does not create yet");
  }
  void release(void*) override {}

 private:
  void* lib_;
  InitFn init_;
  DriverGetFn drivers_;
  DeviceGetFn devices_;
};

void* open_library(GpuType type, std::string* error) {
  std::vector<std::string> names = {gpu_runtime_library(type)};
  switch (type) {
    // The unversioned name comes with the development package only: try the runtimes' sonames.
    case GpuType::kNvidia:
      names.insert(names.end(), {"libcudart.so.13", "libcudart.so.12", "libcudart.so.11.0"});
      break;
    case GpuType::kAmd: names.insert(names.end(), {"libamdhip64.so.7", "libamdhip64.so.6"}); break;
    case GpuType::kIntel: names.push_back("libze_loader.so.1"); break;
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

template <typename Fn>
Fn symbol(void* lib, const char* name) {
  return reinterpret_cast<Fn>(dlsym(lib, name));
}

}  // namespace

const char* gpu_type_name(GpuType type) {
  switch (type) {
    case GpuType::kNvidia: return "NVIDIA";
    case GpuType::kAmd: return "AMD";
    case GpuType::kIntel: return "INTEL";
  }
  return "?";
}

const char* gpu_runtime_library(GpuType type) {
  switch (type) {
    case GpuType::kNvidia: return "libcudart.so";
    case GpuType::kAmd: return "libamdhip64.so";
    case GpuType::kIntel: return "libze_loader.so";
  }
  return "";
}

Result<GpuType> choose_gpu_type(const std::string& requested, const std::string& dev_root) {
  if (requested == "NVIDIA") return GpuType::kNvidia;
  if (requested == "AMD") return GpuType::kAmd;
  if (requested == "INTEL") return GpuType::kIntel;
  if (!requested.empty()) return Status::Usage("Invalid GPU type: " + requested);
  if (exists(dev_root + "/nvidia0")) return GpuType::kNvidia;
  if (exists(dev_root + "/kfd")) return GpuType::kAmd;
  if (has_render_node(dev_root)) return GpuType::kIntel;
  return Status::Unsupported("no GPU found: none of " + dev_root + "/nvidia0, " + dev_root +
                          "/kfd, " + dev_root + "/dri/renderD* exists (use -g to name the type)");
}

Result<std::unique_ptr<GpuRuntime>> load_gpu_runtime(GpuType type) {
  std::string error;
  void* lib = open_library(type, &error);
  if (lib == nullptr) {
    return Status::Unsupported(std::string("GPU runtime for ") + gpu_type_name(type) +
                            " not found: " + error);
  }
  auto missing = [&](const char* name) -> Status {
    dlclose(lib);
    return Status::Unsupported(std::string("GPU runtime ") + gpu_runtime_library(type) +
                            " lacks " + name);
  };
  if (type == GpuType::kIntel) {
    auto init = symbol<LevelZeroRuntime::InitFn>(lib, "zeInit");
    auto drivers = symbol<LevelZeroRuntime::DriverGetFn>(lib, "zeDriverGet");
    auto devices = symbol<LevelZeroRuntime::DeviceGetFn>(lib, "zeDeviceGet");
    if (!init || !drivers || !devices) return missing("zeInit/zeDriverGet/zeDeviceGet");
    return std::unique_ptr<GpuRuntime>(new LevelZeroRuntime(lib, init, drivers, devices));
  }
  const char* prefix = type == GpuType::kNvidia ? "cuda" : "hip";
  auto name = [&](const char* suffix) { return std::string(prefix) + suffix; };
  auto count = symbol<CudaLikeRuntime::CountFn>(lib, name("GetDeviceCount").c_str());
  auto set = symbol<CudaLikeRuntime::SetFn>(lib, name("SetDevice").c_str());
  auto alloc = symbol<CudaLikeRuntime::MallocFn>(lib, name("Malloc").c_str());
  auto release = symbol<CudaLikeRuntime::FreeFn>(lib, name("Free").c_str());
  if (!count || !set || !alloc || !release) return missing((name("GetDeviceCount") + "...").c_str());
  return std::unique_ptr<GpuRuntime>(new CudaLikeRuntime(type, lib, count, set, alloc, release));
}

Status check_gpu_device(GpuRuntime& runtime, int index) {
  auto n = runtime.device_count();
  if (!n.ok()) return n.status();
  if (index >= *n) {
    return Status::Unsupported(std::string("no ") + gpu_type_name(runtime.type()) + " GPU " +
                            std::to_string(index) + ": the runtime reports " + std::to_string(*n) +
                            (*n == 1 ? " device" : " devices"));
  }
  return Status::Ok();
}

Status check_gpu_buffers(const std::string& gpu_type, int index, const std::string& provider,
                         const std::string& domain, Needs needs) {
  auto type = choose_gpu_type(gpu_type);
  if (!type.ok()) return type.status();
  auto runtime = load_gpu_runtime(*type);
  if (!runtime.ok()) return runtime.status();
  FP_RETURN_IF_ERROR(check_gpu_device(**runtime, index));
  FP_RETURN_IF_ERROR(check_hmem(provider, domain, needs));
  // Everything needed exists; the fabric tests place their buffers in host memory only.
  return Status::Unsupported(std::string(gpu_type_name(*type)) + " GPU " + std::to_string(index) +
                             " and FI_HMEM are available, but fabperf's fabric tests do not yet "
                             "place their buffers in GPU memory");
}

}  // namespace fabperf::cxi
