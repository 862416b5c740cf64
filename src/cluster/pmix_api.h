// libpmix, loaded with dlopen when --matrix first needs it, so one fabperf binary runs on hosts
// with or without it (as libfabric is: fabric/libfabric_loader.h).
#pragma once

// Included only by pmix_*.cc, the two files built with libpmix-dev's include directory.
#include <pmix.h>

#include <string>

namespace fabperf::cluster {

// The few PMIx calls --matrix makes, bound from the library. Only the functions are taken from
// it; the structures come from libpmix-dev's headers (the PMIx standard fixes their layout).
struct PmixApi {
  decltype(&::PMIx_Init) init = nullptr;
  decltype(&::PMIx_Finalize) finalize = nullptr;
  decltype(&::PMIx_Abort) abort = nullptr;
  decltype(&::PMIx_Put) put = nullptr;
  decltype(&::PMIx_Commit) commit = nullptr;
  decltype(&::PMIx_Fence) fence = nullptr;
  decltype(&::PMIx_Get) get = nullptr;
  decltype(&::PMIx_Error_string) error_string = nullptr;
  decltype(&::PMIx_Value_destruct) value_destruct = nullptr;  // nullptr before PMIx 4
  std::string name;                                           // the library loaded
};

// The library: $FABPERF_LIBPMIX when set, else libpmix.so.2. nullptr when it cannot be loaded or
// lacks a function; `error` then says which and what to install.
const PmixApi* pmix_api(std::string* error);

}  // namespace fabperf::cluster
