// libfabric, loaded when a fabric test first needs it rather than at program start.
//
// Debian's libfabric1 pulls in libpsm-infinipath, whose constructor sleeps about 110 ms, so
// every fabperf process (--help and socket tests included) paid that when fabperf linked
// libfabric. fabperf calls six libfabric functions by symbol (fi_getinfo, fi_freeinfo,
// fi_dupinfo, fi_fabric, fi_version, fi_strerror); libfabric_loader.cc defines them and
// forwards each to the library, dlopen'ed on first use. The rest of the API is inline and
// reaches the providers through the objects these return. A new libfabric call that is not
// inline fails to link until it is added there.
#pragma once

#include "core/status.h"

namespace fabperf {

// The library loaded: $FABPERF_LIBFABRIC when set (a libfabric built elsewhere, e.g. with GPU
// support), else libfabric.so.1. Ok, or Unsupported "libfabric not found: ...".
Status libfabric_status();

// True once fi_getinfo has been called in this process: libfabric has initialised its
// providers, which read their environment (FI_<PROV>_*) then and never again.
bool libfabric_providers_initialised();

}  // namespace fabperf
