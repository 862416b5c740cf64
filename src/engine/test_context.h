// TestContext: what a test's client or server role gets from the engine.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/interval.h"
#include "engine/side_stats.h"
#include "engine/test_spec.h"
#include "net/peer_process.h"
#include "options/run_options.h"
#include "stats/latency.h"

namespace fabperf {

class ControlChannel;

// Everything a role function may use. One per side per test run.
struct TestContext {
  Role role;
  const TestSpec& spec;
  const RunOptions& opts;   // this side's effective options
  ControlChannel& control;  // the test's control connection, for mid-test exchanges
  std::string peer_host;    // numeric address of the peer's control connection
  ControlPeer peer;         // who that peer is (host, its processes), for fabric peer checks
  SideStats stats;          // filled by the role function
  LatencyRecorder latency;  // client of latency tests records every sample here
  const std::atomic<bool>* stop = nullptr;  // set on SIGINT: end the measured phase early
  CpuSnapshot start_snapshot{};
  NoiseSnapshot noise_snapshot{};  // the measuring thread's and the host's, at mark_start
  // --interval (client only): mark_start() starts it; the measuring loops tick it with the
  // clock they read and finish it with their final counts.
  IntervalMeter interval;
  // The descriptors the latency sink and the interval meter write while the loop runs (a
  // client's --json-stream file): a measuring thread with its own table keeps them
  // (engine/measuring_thread.h).
  std::vector<int> sink_fds;
  // Called by a role once its data path is set up (a fabric session established), where the
  // measured phase and the peer's heartbeats begin: a session process tells its server then
  // to watch the client's silence itself (session_child.h). May be empty.
  std::function<void()> on_established;
  // A client's last resort, run on a watch thread when one call into a provider has not
  // returned for the timeout (StuckCallWatch): it writes what the run has and ends the
  // process. Empty: no watch.
  std::function<void()> on_stuck;

  TestContext(Role r, const TestSpec& s, const RunOptions& o, ControlChannel& c, std::string peer);

  // Sends `mine` and returns the peer's object (client sends first). Deadline: the timeout.
  Result<nlohmann::json> exchange(const nlohmann::json& mine);
  // The same with the order chosen: `speak_first` sends first (a reversed stream's sender, the
  // server, tells the receiving client it is done).
  Result<nlohmann::json> exchange(const nlohmann::json& mine, bool speak_first);
  // A barrier through the control channel.
  Status sync();
  // Non-blocking: a failure the peer reported mid-test, as "server: ..." / "client: ...", or
  // a peer that promised heartbeats silent for the timeout (ControlChannel::alive).
  Status check_peer();
  // Bracket the measured phase: CPU use, real time and host noise (stats/host_noise.h) are
  // taken between these two calls, on the measuring thread; mark_start also starts the
  // interval meter from the counts of this moment.
  void mark_start();
  void mark_end();
  bool stop_requested() const { return stop != nullptr && stop->load(std::memory_order_relaxed); }
  double timeout_s() const { return opts.timeout; }  // -to for this side
};

}  // namespace fabperf
