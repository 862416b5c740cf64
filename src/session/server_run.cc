// A run's server side on the calling thread.
#include "session/server_run.h"

#include "engine/affinity.h"
#include "engine/test_context.h"

namespace fabperf {

nlohmann::json RunRecord::to_json() const {
  nlohmann::json j = {{"stats", stats.to_json()}};
  if (!latency.is_null()) j["latency"] = latency;
  return j;
}

Result<RunRecord> RunRecord::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Failed("malformed run record");
  RunRecord out;
  out.stats = SideStats::from_json(j.value("stats", nlohmann::json::object()));
  if (j.contains("latency")) out.latency = j["latency"];
  return out;
}

Result<RunRecord> serve_run(ControlChannel& ch, const TestSpec& spec, const RunOptions& opts,
                            const ControlPeer& peer, const std::atomic<bool>* stop,
                            std::function<void()> on_established) {
  TestContext ctx(Role::kServer, spec, opts, ch, ch.peer_host());
  ctx.peer = peer;
  ctx.stop = stop;
  ctx.on_established = std::move(on_established);
  Status s = apply_cpu_affinity(opts.cpu_affinity);
  // The promise (docs/protocol.md): a heartbeat at least every 0.5 s until RESULT, so the
  // client can tell a stopped server from a slow one within its own -to (review N8).
  if (s.ok()) s = ch.send(MsgType::kReady, {{"timeout", opts.timeout}, {"heartbeats", true}});
  if (s.ok()) s = spec.server(ctx);
  if (!s.ok()) return s;
  RunRecord record;
  record.stats = ctx.stats;
  if (ctx.latency.count() > 0) record.latency = ctx.latency.to_json();
  return record;
}

}  // namespace fabperf
