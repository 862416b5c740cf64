// One run's server side: READY, the test's server role, and what it measured. The server
// calls it on the session's thread (socket tests) or in a session process of its own (fabric
// tests, session_child.h); RESULT is sent by the server afterwards, with what only it knows.
#pragma once

#include <atomic>
#include <functional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"
#include "engine/side_stats.h"
#include "engine/test_spec.h"
#include "net/control.h"
#include "net/peer_process.h"

namespace fabperf {

// What a run's server side measured.
struct RunRecord {
  SideStats stats;
  nlohmann::json latency;  // the latency record, when this side measured one (else null)
  uint64_t peak_rss_bytes = 0;  // a session process's peak resident memory (0: in-thread run)

  nlohmann::json to_json() const;
  static Result<RunRecord> from_json(const nlohmann::json& j);
};

// Applies -ca, sends READY, runs spec.server. `stop` ends the measured phase early. `peer` is
// the control connection's peer as the server knows it (its processes, its trust, its
// promise of heartbeats). `on_established` becomes the context's (TestContext).
Result<RunRecord> serve_run(ControlChannel& ch, const TestSpec& spec, const RunOptions& opts,
                            const ControlPeer& peer, const std::atomic<bool>* stop,
                            std::function<void()> on_established = nullptr);

}  // namespace fabperf
