// Before a run: busy-polling measuring threads (-cp1, --poll) that will share CPUs. Two
// pollers on one CPU take turns spinning, each waiting out the other's time slice, so the
// figures measure the scheduler: the client warns before the run starts.
#pragma once

#include <set>
#include <string>
#include <string_view>

#include "engine/test_spec.h"
#include "options/run_options.h"

namespace fabperf {

// Measuring threads one side of `spec` runs (streams, two-way tests' two).
int measuring_threads(const TestSpec& spec, const RunOptions& side);

// The CPUs online here, and those this process may run on (their count, and which).
using CpuSet = std::set<int>;
int cpus_online();
int cpus_allowed();
CpuSet cpus_allowed_set();

// A set of CPUs as Linux writes a CPU list ("0-3,8"), and read back: empty for text that is
// not one (or names a CPU above 65535), so a peer's word can at worst be ignored.
std::string cpu_list_text(const CpuSet& cpus);
CpuSet parse_cpu_list(std::string_view text);

// "2 busy-polling threads (client 1, server 1) on 1 CPU ..." or "" when each poller has a
// CPU. `same_host`: the server runs on this host (loopback, or its address is ours), so both
// sides' pollers share its CPUs. `loc_allowed` is the CPUs an unpinned thread may use here,
// `rem_allowed` those of the server's, as its WELCOME said (empty: not said, taken to be this
// side's): two sides kept apart by taskset share no CPU.
std::string poller_warning(const TestSpec& spec, const RunOptions& loc, const RunOptions& rem,
                           bool same_host, const CpuSet& loc_allowed, const CpuSet& rem_allowed);

}  // namespace fabperf
