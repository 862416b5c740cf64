// TestSpec: one row of the test registry (what a test is, its options, its needs, its roles).
#pragma once

#include <cstdint>
#include <vector>

#include "core/status.h"
#include "options/run_options.h"

namespace fabperf {

// What one side of a run holds while it runs. The server admits a run by these numbers, sets
// its session process's limits from them, and the test allocates by the same ones.
struct Needs {
  uint64_t buffer_bytes = 0;  // test buffers (registered memory, for fabric tests)
  uint32_t threads = 1;       // measuring threads
  uint32_t descriptors = 1;   // sockets and endpoints
};

enum class Role { kClient, kServer };

// What a test measures; decides which figures the client derives and prints.
enum class TestKind { kLatency, kBandwidth, kBiBandwidth, kMsgRate, kVerify, kMisc };

// Transport families a test runs over (the engine checks these, never test names).
enum class TransportFamily { kSocket, kFabric, kNone };

// conf and quit are requests to the server, not measurements.
enum class MiscAction { kNone, kConf, kQuit };

struct TestContext;
using TestRole = Status (*)(TestContext&);

// One row of the test registry.
struct TestSpec {
  const char* name;  // e.g. "tcp_lat"
  TransportFamily family;
  TestKind kind;
  const char* transport;             // "tcp", "udp", "sctp", "rc", "ud", "rdm", ...
  const char* summary;               // one line for --help tests
  std::vector<const char*> options;  // option names this test uses (drives "set but not used")
  uint64_t default_msg_size;         // qperf's: bw 64K, lat 1, atomics 8
  TestRole client;
  TestRole server;
  const char* description = "";  // longer text for --help TESTNAME
  // False for datagram transports: what never arrives is counted as lost, not an error.
  bool reliable = true;
  // What the server's side of a run holds (nullptr: the family's default, needs_of()).
  Needs (*needs)(const RunOptions& server_side) = nullptr;
  MiscAction misc = MiscAction::kNone;  // kMisc tests: which request
  // Checks that involve several options at once (an atomic op that its type cannot take),
  // run when the command line is planned and again by the server on each RUN.
  Status (*check)(const RunOptions& opts) = nullptr;
};

// The message size a run of `spec` measures: -m, or when it is 0 ("not given"; a peer may
// also send 0) the test's default. Every side counts and lays out its buffers by this one.
uint64_t message_size_of(const TestSpec& spec, const RunOptions& opts);

// The resources of `spec`'s server side under `server_side` options.
Needs needs_of(const TestSpec& spec, const RunOptions& server_side);

}  // namespace fabperf
