// TestContext: what a test's client or server role gets from the engine, and the test registry row.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "options/params.h"
#include "engine/side_stats.h"
#include "core/status.h"
#include "stats/latency.h"

namespace fabperf {

class ControlChannel;

enum class Role { kClient, kServer };

// What a test measures; decides which figures the client derives and prints.
enum class TestKind { kLatency, kBandwidth, kBiBandwidth, kMsgRate, kVerify, kMisc };

// Transport families a test runs over (the engine checks these, never test names).
enum class TransportFamily { kSocket, kFabric, kNone };

struct TestContext;
using TestRole = Status (*)(TestContext&);

// One row of the test registry.
struct TestSpec {
  const char* name;                 // e.g. "tcp_lat"
  TransportFamily family;
  TestKind kind;
  const char* transport;            // "tcp", "udp", "sctp", "rc", "ud", "rdm", ...
  const char* summary;              // one line for --help tests
  std::vector<const char*> options; // option names this test uses (drives "set but not used")
  uint64_t default_msg_size;        // qperf's: bw 64K, lat 1, atomics 8
  TestRole client;
  TestRole server;
  const char* description = "";     // longer text for --help TESTNAME
  // False for datagram transports: what never arrives is counted as lost, not an error.
  bool reliable = true;
};

// Everything a role function may use. One per side per test run.
struct TestContext {
  Role role;
  const TestSpec& spec;
  const ParamSet& params;      // this side's effective parameters
  ControlChannel& control;     // the test's control connection, for mid-test exchanges
  std::string peer_host;       // numeric address of the peer's control connection
  SideStats stats;             // filled by the role function
  LatencyRecorder latency;     // client of latency tests records every sample here
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT: end the measured phase early
  CpuSnapshot start_snapshot{};

  TestContext(Role r, const TestSpec& s, const ParamSet& p, ControlChannel& c, std::string peer);

  // Sends `mine` and returns the peer's object (client sends first). Deadline: the timeout.
  Result<nlohmann::json> exchange(const nlohmann::json& mine);
  // A barrier through the control channel.
  Status sync();
  // Non-blocking: a failure the peer reported mid-test, as "server: ..." / "client: ...".
  Status check_peer();
  // Bracket the measured phase: CPU use and real time are taken between these two calls.
  void mark_start();
  void mark_end();
  bool stop_requested() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
  double timeout_s() const;  // -to for this side
};

}  // namespace fabperf
