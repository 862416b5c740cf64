// libpmix's functions, bound with dlsym from the library loaded on first use.
#include "cluster/pmix_api.h"

#include <dlfcn.h>

#include <cstdlib>

#include "cluster/bootstrap.h"
#include "core/environment.h"

namespace fabperf::cluster {

namespace {

template <typename Fn>
void bind(void* lib, const char* name, Fn* fn, std::string* missing) {
  *fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (*fn == nullptr && missing->empty()) *missing = name;
}

struct Loaded {
  PmixApi api;
  std::string error;  // empty once every function is bound
};

Loaded load() {
  Loaded out;
  const std::string& path = environment().libpmix;
  out.api.name = !path.empty() ? path : "libpmix.so.2";
  // RTLD_GLOBAL: libpmix loads its own plug-ins (pmix_mca_*), which resolve its symbols.
  void* lib = dlopen(out.api.name.c_str(), RTLD_NOW | RTLD_GLOBAL);
  if (lib == nullptr) {
    const char* e = dlerror();
    out.error = "PMIx library not found: " + std::string(e != nullptr ? e : out.api.name) +
                " (--matrix needs it; install libpmix2, or set FABPERF_LIBPMIX to the "
                "libpmix.so your launcher uses)";
    return out;
  }
  std::string missing;
  bind(lib, "PMIx_Init", &out.api.init, &missing);
  bind(lib, "PMIx_Finalize", &out.api.finalize, &missing);
  bind(lib, "PMIx_Abort", &out.api.abort, &missing);
  bind(lib, "PMIx_Put", &out.api.put, &missing);
  bind(lib, "PMIx_Commit", &out.api.commit, &missing);
  bind(lib, "PMIx_Fence", &out.api.fence, &missing);
  bind(lib, "PMIx_Get", &out.api.get, &missing);
  bind(lib, "PMIx_Error_string", &out.api.error_string, &missing);
  if (!missing.empty()) {
    out.error = out.api.name + " lacks " + missing + ": is it libpmix?";
  }
  // PMIx 4 and later; before that a fetched string value is released by hand.
  out.api.value_destruct =
      reinterpret_cast<decltype(out.api.value_destruct)>(dlsym(lib, "PMIx_Value_destruct"));
  // Never closed: PMIx keeps threads of its own running until the process ends.
  return out;
}

}  // namespace

const PmixApi* pmix_api(std::string* error) {
  static const Loaded loaded = load();
  if (!loaded.error.empty()) {
    if (error != nullptr) *error = loaded.error;
    return nullptr;
  }
  return &loaded.api;
}

// LeakSanitizer's suppression of libpmix's own strings: src/sanitizer/lsan_suppressions.cc.

bool pmix_launched() {
  return environment().pmix_rank.has_value() || environment().pmix_namespace.has_value();
}

std::string non_pmix_launcher_hint() {
  const Environment& env = environment();
  if (env.pmi_rank.has_value() || env.pmi_fd.has_value()) {
    return "this launcher speaks PMI-1/PMI-2, not PMIx (MPICH's mpiexec, or srun --mpi=pmi2): "
           "use Open MPI's mpirun, or srun --mpi=pmix";
  }
  if (env.slurm_step_id.has_value()) {
    return "srun started this process without PMIx: add --mpi=pmix (srun --mpi=list shows "
           "what this Slurm offers)";
  }
  return "";
}

}  // namespace fabperf::cluster
