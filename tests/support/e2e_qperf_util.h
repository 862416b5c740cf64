// Helpers for the end-to-end tests against stock qperf: its server as a process, reading its
// text output, and speaking its request from this process.
#pragma once

#include <memory>
#include <string>

#include "e2e_robust_util.h"
#include "qperf_wire/wire.h"

namespace fabperf::testing {

// The stock qperf program ("" when it is not installed: the tests skip, saying so).
std::string qperf_program();

// A stock `qperf -lp PORT` server on a free port, killed at destruction. It prints nothing
// when ready, and a probe connection would hold it for its 5 s request timeout, so clients
// rely on their own retries (-ws, fabperf's wait_server) until it listens.
class QperfServer {
 public:
  QperfServer();
  int port() const { return port_; }
  std::string port_arg() const { return std::to_string(port_); }
  Proc& proc() { return *proc_; }

 private:
  int port_ = 0;
  std::unique_ptr<Proc> proc_;
};

// A figure of qperf's text output ("    latency  =  12.3 us" in the block "tcp_lat:"), in
// base units (seconds, bytes/sec, /sec), or -1 when the block or the line is missing.
double qperf_figure(const std::string& out, const std::string& test, const std::string& name);

// Whether this kernel opens sockets of a family, type and protocol (SCTP, RDS, SDP).
bool kernel_has(int family, int type, int protocol);

// Sends `request` to a server on 127.0.0.1:port as a qperf client would, then returns what the
// server said on qperf's error channel ("server: ..."), or "" when it said nothing within
// timeout_s. `bytes` 0 sends the whole request; fewer send a truncated one.
std::string qperf_request_error(int port, const qperf_wire::Request& request, double timeout_s,
                                size_t bytes = 0);

}  // namespace fabperf::testing
