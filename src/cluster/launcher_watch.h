// A rank's tie to the process that launched it. A stopped rank (SIGSTOP, a node's hang) can
// notice nothing itself: it outlived `mpirun --enable-recovery` with its listening ports
// (security review N11). The kernel ends it instead when its parent goes.
#pragma once

#include "core/status.h"

namespace fabperf::cluster {

// From now on this process is SIGKILLed when its parent (the launcher's daemon, or a wrapper
// the launcher started) ends. Fails when the parent is already gone.
Status end_with_launcher();

}  // namespace fabperf::cluster
