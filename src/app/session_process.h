// Fabric runs' server sides in a session process of their own (session_child.h): this build's
// IsolatedRunner, and the entry point the session process starts at.
#pragma once

#include <string>
#include <vector>

#include "session/server.h"

namespace fabperf {

IsolatedRunner session_process_runner();

// Registers the entry a session process runs; call before session_child_main().
void register_session_entry();

}  // namespace fabperf
