// Serving one stock qperf client (0.4.9-0.4.11) on the fabperf server's port: its request, then
// conf, quit or a socket test, within the server's rules; every wait has a deadline.
#pragma once

#include "options/run_options.h"
#include "qperf_wire/wire.h"
#include "session/qperf_hooks.h"

namespace fabperf::qperf_wire {

// Serves the request waiting on lease.fd under the server's rules (the lease). Failures reach
// the client through qperf's error channel (as a stock server words them: "bad request index:
// 99", "upgrade qperf on client from 0.3.0 to 0.4.11", "unable to make SCTP socket: ..."); the
// Status returned says the same for the server's log, with the test's name in front once known.
Status serve_qperf(QperfLease& lease);

// A request's parameters as fabperf's options (msg_size, time, no_msgs, timeout,
// sock_buf_size, ip_port, access_recv, cpu_affinity), for the server's limits; what a request
// does not carry keeps its default (warmup 0: qperf's server loops have none).
RunOptions request_options(const Request& request);

}  // namespace fabperf::qperf_wire
