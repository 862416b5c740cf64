// qperf_wire's entry points bundled for the sessions (session/qperf_hooks.h): the app installs
// them in SessionEnv so the session layer never includes this layer.
#pragma once

#include "session/qperf_hooks.h"

namespace fabperf::qperf_wire {

// The hooks, alive for the program's life.
const QperfHooks* hooks();

}  // namespace fabperf::qperf_wire
