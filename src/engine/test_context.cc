// TestContext: mid-test exchanges with the peer over the control channel.
#include "engine/test_context.h"

#include "core/clock.h"
#include "engine/affinity.h"
#include "net/control.h"

namespace fabperf {

TestContext::TestContext(Role r, const TestSpec& s, const RunOptions& o, ControlChannel& c,
                         std::string peer)
    : role(r),
      spec(s),
      opts(o),
      control(c),
      peer_host(std::move(peer)),
      peer(ControlPeer::of_connection(c.fd())) {}

void TestContext::mark_start() {
  stats.cpus = allowed_cpus_text();
  start_snapshot = CpuSnapshot::take();
  noise_snapshot = NoiseSnapshot::take(start_snapshot);
  interval.start(now_ns(), IntervalCounts::of(stats), &latency);
}

void TestContext::mark_end() {
  CpuSnapshot end = CpuSnapshot::take();
  stats.cpu = cpu_between(start_snapshot, end);
  stats.real_time_ns = end.wall_ns - start_snapshot.wall_ns;
  stats.noise = noise_between(noise_snapshot, NoiseSnapshot::take(end));
  // One measuring thread, spinning with -cp1 (run_streams says otherwise for its threads).
  stats.noise.pollers = opts.cq_poll ? 1 : 0;
}

Result<nlohmann::json> TestContext::exchange(const nlohmann::json& mine) {
  return exchange(mine, role == Role::kClient);
}

Result<nlohmann::json> TestContext::exchange(const nlohmann::json& mine, bool speak_first) {
  if (speak_first) {
    FP_RETURN_IF_ERROR(control.send(MsgType::kExchange, mine));
    return control.expect(MsgType::kExchange, timeout_s());
  }
  auto theirs = control.expect(MsgType::kExchange, timeout_s());
  if (!theirs.ok()) return theirs;
  FP_RETURN_IF_ERROR(control.send(MsgType::kExchange, mine));
  return theirs;
}

Status TestContext::sync() {
  if (role == Role::kClient) {
    FP_RETURN_IF_ERROR(control.send(MsgType::kSync, nlohmann::json::object()));
    return control.expect(MsgType::kSync, timeout_s()).status();
  }
  auto theirs = control.expect(MsgType::kSync, timeout_s());
  if (!theirs.ok()) return theirs.status();
  return control.send(MsgType::kSync, nlohmann::json::object());
}

Status TestContext::check_peer() {
  // Heartbeats (a client's stop among them) are taken and noted; anything else is unexpected.
  while (control.message_waiting()) {
    auto frame = control.recv_frame(timeout_s());
    if (!frame.ok()) return frame.status();
    if (frame->type == MsgType::kHeartbeat) continue;
    return Status::failed(std::string("protocol error: unexpected ") + msg_type_name(frame->type) +
                          " from " + control.peer_label() + " during the test");
  }
  // A peer that promised heartbeats and sent nothing for the timeout is stopped or gone.
  return control.alive(now_ns());
}

}  // namespace fabperf
