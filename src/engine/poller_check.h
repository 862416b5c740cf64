// Before a run: busy-polling measuring threads (-cp1, --poll) that will share CPUs. Two
// pollers on one CPU take turns spinning, each waiting out the other's time slice, so the
// figures measure the scheduler: the client warns before the run starts.
#pragma once

#include <string>

#include "engine/test_spec.h"
#include "options/run_options.h"

namespace fabperf {

// Measuring threads one side of `spec` runs (streams, two-way tests' two).
int measuring_threads(const TestSpec& spec, const RunOptions& side);

// The CPUs online here, and those this process may run on.
int cpus_online();
int cpus_allowed();

// "2 busy-polling threads (client 1, server 1) on 1 CPU ..." or "" when each poller has a
// CPU. `same_host`: the server runs on this host (loopback, or its address is ours), so both
// sides' pollers share its CPUs. `allowed` is the CPUs an unpinned thread may use here.
std::string poller_warning(const TestSpec& spec, const RunOptions& loc, const RunOptions& rem,
                           bool same_host, int allowed);

}  // namespace fabperf
