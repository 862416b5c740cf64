// CPU affinity: -ca/--cpu_affinity applied to the measuring threads, and what they may run on.
#pragma once

#include <string>

#include "core/status.h"

namespace fabperf {

// Pins the calling thread to CPU `spec` plus `offset` (streams spread over CPU N, N+1, ...,
// wrapping at the CPUs online). "" leaves the thread as it is; "any" frees it to every CPU.
// A CPU this host does not have is a usage error naming the CPUs it has.
Status apply_cpu_affinity(const std::string& spec, int offset = 0);

// How many CPUs `threads` measuring threads run on under -ca `spec`: a number pins thread i
// to CPU N+i (as many CPUs as threads, up to those online), "any" frees them to every CPU
// online, "" leaves them on the calling thread's affinity mask (taskset's).
int cpus_for_threads(const std::string& spec, int threads);

// The calling thread's CPU set as ranges ("0", "0-3,6"): what -ca actually did.
std::string allowed_cpus_text();

}  // namespace fabperf
