// A CXI tool's client/server session over fabperf's control channel: hello with the tool's
// name and version, the client's options adopted by the server, then one fabperf test run per
// size (RUN/READY/roles/RESULT), each driving the same test roles as `fabperf`.
#pragma once

#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cli/command_line.h"
#include "engine/registry.h"
#include "engine/test_result.h"
#include "cxi/cxi_format.h"
#include "cxi/cxi_options.h"
#include "net/control.h"
#include "net/socket.h"

namespace fabperf::cxi {

inline constexpr const char* kNamesDiffer = "Client and server program names do not match!";
inline constexpr const char* kVersionsDiffer = "Client and server program versions do not match!";

// The registry the tools look their tests up in (set once by cxi_main).
void set_test_registry(const TestRegistry* tests);

// The fabperf test a tool runs for these options (-b picks the two-way test).
Result<const TestSpec*> test_for(const Tool& tool, const CxiOptions& o);

// The fabperf parameters of one run (one size) of a tool: the same option table as fabperf,
// so the server checks them as it checks any client's.
Result<RunParams> params_for(const Tool& tool, const CxiOptions& o, const TestSpec& test,
                             uint64_t size);

// Bytes of one element of an atomic type name (0 when unknown).
uint64_t atomic_type_bytes(const std::string& type);

// The server of one client: handshake, summary, every run the client asks for, goodbye.
// `out` receives what the original's server prints (nullptr: silent, as loopback's server).
Status serve_one_client(const Tool& tool, const CxiOptions& own, int listen_fd, std::FILE* out);

// The client's side of a session.
class PairClient {
 public:
  // Connects and greets; fills in o.provider when it was left to the default, so both sides
  // run with the same one.
  static Result<std::unique_ptr<PairClient>> connect(const Tool& tool, CxiOptions& o,
                                                     const std::string& host, uint16_t port);
  const Endpoints& endpoints() const { return endpoints_; }
  // One run. `sink` (may be null) sees every latency sample as it is measured.
  Result<TestResult> run(const TestSpec& test, const RunParams& params,
                         LatencyRecorder::SampleSink sink, void* sink_arg,
                         const std::vector<double>& percentiles);
  // Text the server prints too (bandwidth rows: both sides report).
  Status share(const std::string& text);
  void bye();

 private:
  PairClient(const Tool& tool, std::unique_ptr<ControlChannel> ch) : tool_(tool), ch_(std::move(ch)) {}
  const Tool& tool_;
  std::unique_ptr<ControlChannel> ch_;
  Endpoints endpoints_;
};

// A server thread on 127.0.0.1 (ephemeral port) and a client connected to it, in one process:
// fab_loopback_bw and each fab_heatsink_check worker.
class LoopbackPair {
 public:
  static Result<std::unique_ptr<LoopbackPair>> start(const Tool& tool, CxiOptions& o);
  ~LoopbackPair();
  PairClient& client() { return *client_; }

 private:
  LoopbackPair() = default;
  std::unique_ptr<PairClient> client_;
  std::thread server_;
  Status server_status_;
};

}  // namespace fabperf::cxi
