// A run's server side on the calling thread.
#include "session/server_run.h"

#include "engine/affinity.h"
#include "engine/test_context.h"

namespace fabperf {

nlohmann::json RunRecord::to_json() const {
  nlohmann::json j = {{"stats", stats.to_json()}};
  if (!latency.is_null()) j["latency"] = latency;
  if (intervals.is_array() && !intervals.empty()) j["intervals"] = intervals;
  return j;
}

Result<RunRecord> RunRecord::from_json(const nlohmann::json& j) {
  if (!j.is_object()) return Status::failed("malformed run record");
  RunRecord out;
  out.stats = SideStats::from_json(j.value("stats", nlohmann::json::object()));
  if (j.contains("latency")) out.latency = j["latency"];
  if (auto it = j.find("intervals"); it != j.end() && it->is_array()) out.intervals = *it;
  return out;
}

nlohmann::json server_interval_json(const IntervalRecord& r) {
  const IntervalCounts& c = r.counts;
  nlohmann::json j = {{"start_s", r.start_s},
                      {"end_s", r.end_s},
                      {"send_bytes", c.send_bytes},
                      {"send_msgs", c.send_msgs},
                      {"recv_bytes", c.recv_bytes},
                      {"recv_msgs", c.recv_msgs},
                      {"lost", c.lost}};
  if (c.jitter_ns >= 0) j["jitter_ns"] = c.jitter_ns;
  return j;
}

Result<RunRecord> serve_run(ControlChannel& ch, const TestSpec& spec, const RunOptions& opts,
                            const ControlPeer& peer, const std::atomic<bool>* stop,
                            double interval_s, std::function<void()> on_established) {
  TestContext ctx(Role::kServer, spec, opts, ch, ch.peer_host());
  ctx.peer = peer;
  ctx.stop = stop;
  ctx.on_established = std::move(on_established);
  // The client's --interval: the server's own view of each interval, returned with the run
  // (at most 100,000 of them: a bounded reply whatever the client asked).
  nlohmann::json intervals = nlohmann::json::array();
  if (interval_s > 0) {
    ctx.interval.configure(interval_s, [&intervals](const IntervalRecord& r) {
      if (intervals.size() < 100000) intervals.push_back(server_interval_json(r));
    });
  }
  Status s = apply_cpu_affinity(opts.cpu_affinity);
  // The promise (docs/protocol.md): a heartbeat at least every 0.5 s until RESULT, so the
  // client can tell a stopped server from a slow one within its own -to (review N8).
  if (s.ok()) s = ch.send(MsgType::kReady, {{"timeout", opts.timeout}, {"heartbeats", true}});
  if (s.ok()) s = spec.server(ctx);
  if (!s.ok()) return s;
  RunRecord record;
  record.stats = ctx.stats;
  record.intervals = std::move(intervals);
  if (ctx.latency.count() > 0) record.latency = ctx.latency.to_json();
  return record;
}

}  // namespace fabperf
