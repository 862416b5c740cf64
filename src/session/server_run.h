// One run's server side: READY, the test's server role, and what it measured. The server
// calls it on the session's thread (socket tests) or in a session process of its own (fabric
// tests, session_child.h); RESULT is sent by the server afterwards, with what only it knows.
#pragma once

#include <atomic>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "core/status.h"
#include "engine/interval.h"
#include "engine/side_stats.h"
#include "engine/test_spec.h"
#include "net/control.h"
#include "net/peer_process.h"

namespace fabperf {

// What a run's server side measured.
struct RunRecord {
  SideStats stats;
  nlohmann::json latency;       // the latency record, when this side measured one (else null)
  uint64_t peak_rss_bytes = 0;  // a session process's peak resident memory (0: in-thread run)
  // The server's own --interval records, where the client asked for them (interval_s): what
  // a receiving server counted (a paced UDP stream's loss and jitter) per interval.
  nlohmann::json intervals;

  nlohmann::json to_json() const;
  static Result<RunRecord> from_json(const nlohmann::json& j);
};

// Applies -ca, sends READY, runs spec.server. `stop` ends the measured phase early. `peer` is
// the control connection's peer as the server knows it (its processes, its trust, its
// promise of heartbeats). `interval_s` > 0: the client's --interval, so the server keeps its
// own records too. `on_established` becomes the context's (TestContext).
Result<RunRecord> serve_run(ControlChannel& ch, const TestSpec& spec, const RunOptions& opts,
                            const ControlPeer& peer, const std::atomic<bool>* stop,
                            double interval_s = 0, std::function<void()> on_established = nullptr);

// One of the server's interval records as RunRecord::intervals holds it.
nlohmann::json server_interval_json(const IntervalRecord& record);

}  // namespace fabperf
