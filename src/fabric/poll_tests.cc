// Write-poll latency: RDMA writes into the peer's buffer while it spins on the first and last
// byte (qperf's rc_rdma_write_poll_lat); no completion is waited for on the receiving side.
#include <rdma/fi_rma.h>
#include <sched.h>

#include <functional>

#include "engine/latency_loop.h"
#include "fabric/pattern.h"
#include "fabric/roles.h"
#include "fabric/run_support.h"
#include "fabric/session.h"

namespace fabperf {

namespace {

// Iteration i writes marker (i % 255) + 1 into the first and last byte; the slot starts zeroed
// and consecutive markers differ, so a marker seen means this iteration's write landed.
// A spin longer than this starts yielding the CPU between polls.
constexpr int64_t kYieldAfterNs = 20'000;

uint8_t marker(uint64_t iteration) { return static_cast<uint8_t>(iteration % 255 + 1); }

bool landed(const uint8_t* slot, size_t len, uint8_t mark) {
  const volatile uint8_t* p = slot;
  return p[0] == mark && p[len - 1] == mark;
}

// The bytes between the markers carry the pattern.
void check_between(FabricSession& f) {
  if (f.mem.msg_size <= 2) return;
  f.ctx.stats.verify_checked++;
  const uint8_t* data = f.mem.rx(0);
  for (size_t i = 1; i + 1 < f.mem.msg_size; ++i) {
    if (data[i] != pattern_byte(i, f.mem.peer_seed)) {
      f.ctx.stats.verify_errors++;
      return;
    }
  }
}

// The server's side: each client write waited for in memory and answered with its own,
// until the client's end message.
template <typename WaitLanded, typename WriteMarked, typename Fn>
Status answer_landed_writes(TestContext& ctx, FabricSession& f, WaitLanded&& wait_landed,
                            WriteMarked&& write_marked, Fn&& on) {
  ctx.mark_start();
  bool peer_done = false;
  for (uint64_t iteration = 0;; ++iteration) {
    if (!wait_landed(iteration, &peer_done)) return f.status();
    if (peer_done) break;
    if (!write_marked(iteration)) return f.status();
  }
  return end_serving(f, on, {{"served", true}});
}

// The client's side: each sample a marked write and the server's answer seen in memory.
template <typename WaitLanded, typename WriteMarked, typename Fn>
Status time_landed_writes(TestContext& ctx, FabricSession& f, WaitLanded&& wait_landed,
                          WriteMarked&& write_marked, Fn&& on) {
  ctx.latency.set_scale(0.5);
  uint64_t sent = 0;
  auto once = [&](uint64_t iteration, int64_t t0, const SampleClock& clock) -> Result<Sample> {
    if (!write_marked(iteration) || !wait_landed(iteration, nullptr)) return f.status();
    ++sent;
    return Sample{clock.now() - t0, false};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  return finish_client(f, {{"sent", sent}}, on).status();
}

}  // namespace

SessionNeeds poll_needs(fi_ep_type type) {
  return {.ep_type = type, .caps = FI_RMA, .tx_window = 2};
}

Status rma_write_poll_lat(TestContext& ctx, fi_ep_type type) {
  SessionNeeds needs = poll_needs(type);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  if (f.mem.on_gpu()) {
    return Status::unsupported(
        "write-poll latency spins on the buffer from the CPU, which "
        "cannot read GPU memory; rc_rdma_write_lat (fab_write_lat) "
        "measures writes into GPU memory");
  }
  const bool client = ctx.role == Role::kClient;
  fill_pattern(f.mem.tx(0), f.mem.msg_size, f.mem.my_seed);
  std::function<bool(const fi_cq_data_entry&)> on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c != nullptr && c->kind == OpKind::kTx) f.cq.tx_pool.release(c);
    return true;
  };
  auto write_marked = [&](uint64_t iteration) {
    OpContext* c = f.cq.context(f.cq.tx_pool, 0, on);
    if (c == nullptr) return false;
    f.mem.tx(0)[0] = f.mem.tx(0)[f.mem.msg_size - 1] = marker(iteration);
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += f.mem.msg_size;
    return f.cq.post(
        "fi_write",
        [&] {
          return fi_write(f.link.ep(), f.mem.tx(0), f.mem.msg_size, f.mem.desc(), f.link.peer,
                          f.mem.remote_rx(0), f.mem.remote_key(), c);
        },
        on);
  };
  // Spinning on memory, the CQ is still polled: providers with manual progress only place
  // incoming data while the target calls into them.
  auto wait_landed = [&](uint64_t iteration, bool* peer_done) {
    uint8_t mark = marker(iteration);
    int64_t since = now_ns();
    while (!landed(f.mem.rx(0), f.mem.msg_size, mark)) {
      FabricEndpoint& ep = *f.link.endpoint;
      fi_cq_data_entry entries[4];
      ssize_t n = ep.poll(entries, 4);
      if (n < 0 && !(n == -FI_EAVAIL && ep.discard_canceled())) {
        return f.fail(ep.completion_error(n));
      }
      for (ssize_t i = 0; i < n; ++i) on(entries[i]);
      int64_t now = now_ns();
      // Providers with progress threads (sockets) need a CPU too when cores are few.
      if (now - since > kYieldAfterNs) sched_yield();
      if (client) {
        if (!f.sync.periodic(now)) return false;
        if (now - since > static_cast<int64_t>(ctx.timeout_s() * 1e9)) {
          return f.fail(Status::timeout("the server's write did not arrive within the timeout"));
        }
      } else if (f.sync.peer_message_waiting(now)) {
        *peer_done = true;
        return true;
      } else if (!f.sync.client_alive(now)) {
        return false;
      }
    }
    ctx.stats.recv_msgs++;
    ctx.stats.recv_bytes += f.mem.msg_size;
    if (f.mem.verify) check_between(f);
    return true;
  };

  if (!client) return answer_landed_writes(ctx, f, wait_landed, write_marked, on);
  return time_landed_writes(ctx, f, wait_landed, write_marked, on);
}

}  // namespace fabperf
