// libfabric's exported functions, forwarded to the library loaded on first use.
#include "fabric/libfabric_loader.h"

#include <dlfcn.h>
#include <rdma/fabric.h>
#include <rdma/fi_errno.h>

#include <atomic>
#include <cstdlib>
#include <string>

#include "core/environment.h"

namespace fabperf {

namespace {

struct Api {
  std::string name;
  std::string error;  // empty once loaded
  decltype(&::fi_getinfo) getinfo = nullptr;
  decltype(&::fi_freeinfo) freeinfo = nullptr;
  decltype(&::fi_dupinfo) dupinfo = nullptr;
  decltype(&::fi_fabric) fabric = nullptr;
  decltype(&::fi_version) version = nullptr;
  decltype(&::fi_strerror) strerror = nullptr;
};

template <typename Fn>
void bind(void* lib, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
}

Api load() {
  Api api;
  const std::string& path = environment().libfabric;
  api.name = !path.empty() ? path : "libfabric.so.1";
  // RTLD_GLOBAL: providers loaded as plugins by libfabric resolve its symbols.
  void* lib = dlopen(api.name.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    api.error = "libfabric not found: " + std::string(e != nullptr ? e : api.name) +
                " (the fabric tests need it; install libfabric1 or set FABPERF_LIBFABRIC)";
    return api;
  }
  std::string missing;
  bind(lib, "fi_getinfo", &api.getinfo, &missing);
  bind(lib, "fi_freeinfo", &api.freeinfo, &missing);
  bind(lib, "fi_dupinfo", &api.dupinfo, &missing);
  bind(lib, "fi_fabric", &api.fabric, &missing);
  bind(lib, "fi_version", &api.version, &missing);
  bind(lib, "fi_strerror", &api.strerror, &missing);
  if (!missing.empty()) {
    api.error = api.name + " is not libfabric: it lacks " + missing;
    api.getinfo = nullptr;  // nothing is called through a half-bound table
  }
  // Never closed: the providers and objects it made live as long as the process.
  return api;
}

std::atomic<bool> g_listed{false};

const Api& api() {
  static const Api loaded = load();
  return loaded;
}

}  // namespace

Status libfabric_status() {
  const Api& a = api();
  return a.error.empty() ? Status::success() : Status::unsupported(a.error);
}

bool libfabric_providers_initialised() { return g_listed.load(); }

}  // namespace fabperf

// The six symbols, as libfabric's headers declare them. Without the library every call fails
// as "not implemented" (or returns nothing); callers check libfabric_status() first to say why.
extern "C" {

int fi_getinfo(uint32_t version, const char* node, const char* service, uint64_t flags,
               const struct fi_info* hints, struct fi_info** info) {
  const auto& a = fabperf::api();
  if (a.getinfo == nullptr) return -FI_ENOSYS;
  fabperf::g_listed.store(true);
  return a.getinfo(version, node, service, flags, hints, info);
}

void fi_freeinfo(struct fi_info* info) {
  const auto& a = fabperf::api();
  if (a.getinfo != nullptr && info != nullptr) a.freeinfo(info);
}

struct fi_info* fi_dupinfo(const struct fi_info* info) {
  const auto& a = fabperf::api();
  return a.getinfo != nullptr ? a.dupinfo(info) : nullptr;
}

int fi_fabric(struct fi_fabric_attr* attr, struct fid_fabric** fabric, void* context) {
  const auto& a = fabperf::api();
  if (a.getinfo == nullptr) return -FI_ENOSYS;
  return a.fabric(attr, fabric, context);
}

uint32_t fi_version(void) {
  const auto& a = fabperf::api();
  return a.getinfo != nullptr ? a.version() : 0;
}

const char* fi_strerror(int errnum) {
  const auto& a = fabperf::api();
  return a.getinfo != nullptr ? a.strerror(errnum) : "libfabric not loaded";
}

}  // extern "C"
