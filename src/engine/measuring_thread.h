// A measured loop on a thread of its own, whose system calls borrow their files.
#pragma once

#include <functional>
#include <vector>

#include "core/status.h"
#include "engine/test_context.h"

namespace fabperf {

// Runs `body` on a new thread with a private copy of the descriptor table (core/private_fds.h)
// and returns its status once the thread has ended; an exception `body` throws is thrown here.
// While a thread shares its process's table each system call on a descriptor takes and drops
// a reference on the file; every fabperf process has threads beside its measuring one (the
// stall watchdog, the signal thread, a server's listener and other sessions), qperf's have
// none. A blocking loopback ping-pong over one CPU read 1.5% (tcp_lat 1 B) and 2% (udp_lat
// 1 B) faster on a private table (bench/results/latency-private-fds-cubic-62842a8/).
//
// The copy holds `descriptors` (the test's data links), the control channel's and the
// context's sink_fds (what the reporters fed from the loop write) alone: a process may run
// other sessions as threads (a server, a cluster rank), and the loop must never hold their
// sockets open. `body` must use no other descriptor and none another thread opens while it
// runs. Where the kernel gives no copy, `body` runs on the shared table.
Status run_measuring_thread(TestContext& ctx, std::vector<int> descriptors,
                            const std::function<Status()>& body);

}  // namespace fabperf
