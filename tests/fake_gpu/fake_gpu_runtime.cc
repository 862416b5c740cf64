// A stand-in CUDA runtime for machines without a GPU, loaded by fabperf through
// FABPERF_GPU_RUNTIME: the entry points fabperf uses, over host memory that plays the device.
//
// It proves that fabperf never touches "GPU memory" from the CPU: with FABPERF_FAKE_GPU_KEY
// set, the device keeps every byte XORed with the key, so only data written and read through
// cudaMemcpy/cudaMemset comes out right; a direct CPU access reads or leaves scrambled bytes,
// which --verify then counts as errors. Providers move the stored bytes as they are, so two
// fake devices with the same key talk correctly (atomics, which compute on the stored bytes,
// need key 0).
//
// It registers as host memory (fabperf_hmem_iface = FI_HMEM_SYSTEM): this libfabric has no
// CUDA support, so that is the only way its providers accept the buffer; everything else in
// fabperf's GPU path (dlopen, device checks, allocation, copies, fi_mr_regattr, FI_HMEM
// provider selection) runs as with a real GPU.
//
// Environment: FABPERF_FAKE_GPU_COUNT (devices, default 1), FABPERF_FAKE_GPU_KEY (0-255,
// default 0), FABPERF_FAKE_GPU_LOG (a file that gets "allocs N to_device N from_device N"
// appended when the last buffer is freed and at unload; the lines add up).
#include <sys/mman.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>

namespace {

constexpr int kSuccess = 0;
constexpr int kErrorMemoryAllocation = 2;
constexpr int kErrorInvalidValue = 1;
constexpr int kErrorInvalidDevice = 101;
constexpr int kHostToDevice = 1;
constexpr int kDeviceToHost = 2;

int env_int(const char* name, int fallback) {
  const char* v = std::getenv(name);
  return v != nullptr && *v != '\0' ? std::atoi(v) : fallback;
}

struct State {
  std::mutex mu;
  std::map<uintptr_t, size_t> allocations;  // start -> length
  std::atomic<uint64_t> allocs{0}, to_device{0}, from_device{0};
  int count = env_int("FABPERF_FAKE_GPU_COUNT", 1);
  uint8_t key = static_cast<uint8_t>(env_int("FABPERF_FAKE_GPU_KEY", 0));

  // True when [p, p + n) lies inside one allocation.
  bool on_device(const void* p, size_t n) {
    std::lock_guard<std::mutex> lock(mu);
    auto a = reinterpret_cast<uintptr_t>(p);
    auto it = allocations.upper_bound(a);
    if (it == allocations.begin()) return false;
    --it;
    return a >= it->first && a + n <= it->first + it->second;
  }
  // Appends the counts so far to FABPERF_FAKE_GPU_LOG and starts them again, so each event is
  // logged once. Called when the last allocation is freed and at unload: a sanitizer build may
  // keep this module loaded past dlclose (no destructor then), and a session child _exits.
  void flush() {
    uint64_t a = allocs.exchange(0), t = to_device.exchange(0), f = from_device.exchange(0);
    const char* log = std::getenv("FABPERF_FAKE_GPU_LOG");
    if (log == nullptr || *log == '\0' || (a == 0 && t == 0 && f == 0)) return;
    if (FILE* out = std::fopen(log, "a")) {
      std::fprintf(out, "allocs %llu to_device %llu from_device %llu\n",
                   static_cast<unsigned long long>(a), static_cast<unsigned long long>(t),
                   static_cast<unsigned long long>(f));
      std::fclose(out);
    }
  }
  ~State() { flush(); }
};

State& state() {
  static State s;
  return s;
}

thread_local int current_device = 0;

}  // namespace

extern "C" {

// FI_HMEM_SYSTEM: see above. The build's second copy (FABPERF_FAKE_GPU_CUDA_IFACE) leaves it
// out, so its memory registers as CUDA memory, which this libfabric refuses: the error path of a
// provider without CUDA support.
#ifndef FABPERF_FAKE_GPU_CUDA_IFACE
extern __attribute__((visibility("default"))) const int fabperf_hmem_iface = 0;
#endif

__attribute__((visibility("default"))) int cudaGetDeviceCount(int* n) {
  *n = state().count;
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaSetDevice(int device) {
  if (device < 0 || device >= state().count) return kErrorInvalidDevice;
  current_device = device;
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaMalloc(void** p, size_t n) {
  if (n == 0 || std::getenv("FABPERF_FAKE_GPU_OOM") != nullptr) return kErrorMemoryAllocation;
  void* m = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (m == MAP_FAILED) return kErrorMemoryAllocation;
  // Fresh device memory is garbage, not zeros: fabperf must clear it.
  std::memset(m, 0xa5, n);
  State& s = state();
  {
    std::lock_guard<std::mutex> lock(s.mu);
    s.allocations[reinterpret_cast<uintptr_t>(m)] = n;
  }
  s.allocs++;
  *p = m;
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaFree(void* p) {
  State& s = state();
  std::lock_guard<std::mutex> lock(s.mu);
  auto it = s.allocations.find(reinterpret_cast<uintptr_t>(p));
  if (it == s.allocations.end()) return kErrorInvalidValue;
  munmap(p, it->second);
  s.allocations.erase(it);
  if (s.allocations.empty()) s.flush();
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaMemcpy(void* dst, const void* src, size_t n,
                                                      int kind) {
  State& s = state();
  if (kind == kHostToDevice   ? !s.on_device(dst, n)
      : kind == kDeviceToHost ? !s.on_device(src, n)
                              : true) {
    return kErrorInvalidValue;
  }
  auto* d = static_cast<uint8_t*>(dst);
  const auto* from = static_cast<const uint8_t*>(src);
  for (size_t i = 0; i < n; ++i) d[i] = static_cast<uint8_t>(from[i] ^ s.key);
  (kind == kHostToDevice ? s.to_device : s.from_device)++;
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaMemset(void* p, int value, size_t n) {
  State& s = state();
  if (!s.on_device(p, n)) return kErrorInvalidValue;
  std::memset(p, (value & 0xff) ^ s.key, n);
  return kSuccess;
}

__attribute__((visibility("default"))) int cudaDeviceSynchronize() { return kSuccess; }

}  // extern "C"
