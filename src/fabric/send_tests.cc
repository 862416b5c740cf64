// Two-sided fabric tests: send/receive ping-pong latency and streaming (bi)bandwidth.
#include <algorithm>
#include <cstring>
#include <functional>
#include <optional>
#include <vector>

#include "engine/latency_loop.h"
#include "fabric/msg_route.h"
#include "fabric/pattern.h"
#include "fabric/roles.h"
#include "fabric/run_support.h"
#include "fabric/session.h"

namespace fabperf {

namespace {

// Datagram ping-pongs carry a sequence number in the first 8 bytes, so a late reply to a ping
// already counted lost is never timed as the current one.
constexpr size_t kSeqBytes = sizeof(uint64_t);
// How long a datagram ping waits for its reply before it counts as lost.
constexpr int64_t kMaxReplyWaitNs = 1'000'000'000;

bool carries_seq(fi_ep_type type, size_t size) { return type == FI_EP_DGRAM && size >= kSeqBytes; }

Status pingpong_client(TestContext& ctx, fi_ep_type type) {
  auto session = FabricSession::establish(ctx, pingpong_needs(Role::kClient, type));
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  ctx.stats.info["send"] = f.link.inject ? "fi_inject" : "fi_send";
  const bool seq_on = carries_seq(type, f.mem.msg_size);
  const int64_t reply_wait =
      std::min<int64_t>(kMaxReplyWaitNs, static_cast<int64_t>(ctx.timeout_s() * 1e9));
  if (!f.mem.fill_tx(0)) return f.status();
  const MsgRoute route(f, f.link.inject);
  const bool busy_poll = f.cq.busy_poll();
  ctx.latency.set_scale(0.5);  // one-way latency is half the round trip

  bool got_tx = false, got_rx = false;
  uint64_t seq = 0;
  volatile uint64_t sink = 0;
  // The reply's receive is posted again after the next send, not before it: two receives
  // are posted, so the other one takes the next reply, and the provider's receive path
  // (a post over shm takes its locks) is out of the round trip. A late datagram reply's
  // receive goes back at once: then the one still out takes the reply awaited.
  constexpr uint32_t kNoSlot = ~uint32_t{0};
  uint32_t repost = kNoSlot;
  std::function<bool(const fi_cq_data_entry&)> on;
  on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c->kind == OpKind::kTx) {
      f.cq.tx_pool.release(c);
      got_tx = true;
      return true;
    }
    f.cq.rx_pool.release(c);
    const uint8_t* data = route.rx[c->slot];
    uint64_t echoed = seq;
    if (seq_on && !f.mem.get(&echoed, data, kSeqBytes)) return false;
    if (echoed != seq) return recv_routed(f, route, c->slot, on);
    got_rx = true;
    ctx.stats.recv_msgs++;
    ctx.stats.recv_bytes += e.len;
    // The sequence number, where there is one, is not pattern.
    if (f.mem.verify && !f.mem.check_rx(data, e.len, seq_on ? kSeqBytes : 0)) return false;
    if (f.mem.access_recv) sink = sink + f.mem.touch(data, e.len);
    repost = c->slot;
    return true;
  };
  for (uint32_t slot = 0; slot < 2; ++slot) {
    if (!recv_routed(f, route, slot, on)) return f.status();
  }
  uint64_t sent = 0;
  auto once = [&](uint64_t, int64_t t0, const SampleClock& clock) -> Result<Sample> {
    got_tx = got_rx = false;
    ++seq;
    if (seq_on && !f.mem.put(route.tx[0], &seq, kSeqBytes)) return f.status();
    bool completes = true;
    if (!send_routed(f, route, 0, on, &completes)) return f.status();
    got_tx = !completes;  // an injected message was copied at once: no completion comes
    if (repost != kNoSlot) {
      const uint32_t slot = repost;
      repost = kNoSlot;  // before the post: a reply its retries take sets it again
      if (!recv_routed(f, route, slot, on)) return f.status();
    }
    bool lost = false;
    uint32_t empty_polls = 0;
    while (!got_tx || !got_rx) {
      if (!f.cq.progress(on, kSliceMs)) return f.status();
      // Busy-polling reads the clock every 64th empty poll only: a clock read costs a fifth
      // of a round trip over shm.
      if (busy_poll && ((got_tx && got_rx) || ++empty_polls % 64 != 0)) continue;
      int64_t now = clock.now();
      if (!got_rx && type == FI_EP_DGRAM && now - t0 > reply_wait) lost = true;
      if (lost && got_tx) break;
      if (!f.sync.periodic(now) || !f.cq.not_stalled(now)) return f.status();
    }
    int64_t t1 = clock.now();
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += f.mem.msg_size;
    if (lost) ctx.stats.lost_msgs++;
    ++sent;
    return Sample{t1 - t0, lost};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  auto done = finish_client(f, {{"sent", sent}}, on);
  return done.status();
}

Status pingpong_server(TestContext& ctx, fi_ep_type type) {
  auto session = FabricSession::establish(ctx, pingpong_needs(Role::kServer, type));
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  ctx.stats.info["send"] = f.link.inject ? "fi_inject" : "fi_send";
  const bool seq_on = carries_seq(type, f.mem.msg_size);
  for (uint32_t slot = 0; slot < f.mem.tx_slots(); ++slot) {
    if (!f.mem.fill_tx(slot)) return f.status();
  }
  const MsgRoute route(f, f.link.inject);
  const uint32_t tx_slots = static_cast<uint32_t>(route.tx.size());
  uint64_t echoed = 0;
  uint32_t next_tx = 0;
  volatile uint64_t sink = 0;
  std::function<bool(const fi_cq_data_entry&)> on;
  on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c->kind == OpKind::kTx) {
      f.cq.tx_pool.release(c);
      return true;
    }
    f.cq.rx_pool.release(c);
    const uint8_t* data = route.rx[c->slot];
    if (echoed == f.sync.warmup) ctx.mark_start();
    ctx.stats.recv_msgs++;
    ctx.stats.recv_bytes += e.len;
    if (f.mem.verify && !f.mem.check_rx(data, e.len, seq_on ? kSeqBytes : 0)) return false;
    if (f.mem.access_recv) sink = sink + f.mem.touch(data, e.len);
    uint32_t slot = next_tx;
    if (++next_tx == tx_slots) next_tx = 0;
    if (seq_on) {
      uint64_t seq = 0;
      if (!f.mem.get(&seq, data, kSeqBytes) || !f.mem.put(route.tx[slot], &seq, kSeqBytes))
        return false;
    }
    bool completes = true;
    if (!send_routed(f, route, slot, on, &completes)) return false;
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += route.size;
    ++echoed;
    return recv_routed(f, route, c->slot, on);
  };
  for (uint32_t slot = 0; slot < 2; ++slot) {
    if (!recv_routed(f, route, slot, on)) return f.status();
  }
  auto done = serve_until_peer_done(f, on);
  if (!done.ok()) return done.status();
  FP_RETURN_IF_ERROR(drain_until(
      f, on, [&] { return f.cq.tx_pool.in_flight() == 0; }, false));
  ctx.mark_end();
  return f.sync.send_done({{"echoed", echoed}});
}

// A stream's receives posted before it starts: a receiver's whole pool, or a list sender's
// one receive for its answers.
template <typename Fn>
Status post_stream_receives(FabricSession& f, const MsgRoute& route, const WindowRun& run,
                            bool receiving, Fn& on) {
  if (receiving) {
    const size_t slots = route.rx.size();
    for (uint32_t i = 0; i < f.cq.rx_pool.capacity(); ++i) {
      if (!recv_routed(f, route, static_cast<uint32_t>(i % slots), on)) return f.status();
    }
  } else if (run.list_answers && !recv_routed(f, route, 0, on)) {  // a sender's receive for answers
    return f.status();
  }
  return Status::success();
}

// A stream's sending: its window of sends (run_window), then this side's send counts, timed
// to its last send's completion (run.last_completion_ns).
template <typename Fn>
Status stream_sends(TestContext& ctx, FabricSession& f, const MsgRoute& route, size_t window,
                    bool receiving, WindowRun& run, Fn& on) {
  // Sends carry no FI_MORE: each post rings (a list's PostList stays unset).
  auto post_one = [&](uint64_t index, PostList*) {
    bool completes = true;
    if (!send_routed(f, route, route.tx_ring.wrap(index), on, &completes)) return false;
    // An injected send was copied at once and no completion comes: complete as posted.
    if (!completes) run.completed++;
    return true;
  };
  // Both ways (rdm_send_bi_bw, fab_send_bw -b): the sides meet at a start barrier after
  // their warm-ups, as the other bi-directional runs (run_both_ways) and the originals do;
  // the end exchange below is the end barrier.
  run.barrier = receiving || run.lists;
  // Injected sends complete as posted: the drain finds none in flight, and stamps its start.
  FP_RETURN_IF_ERROR(run_window(f, window, run, post_one, on));
  if (receiving) {
    ctx.stats.info["bidirectional"] =
        "start and end barriers; each side's sends timed from the start barrier to its last "
        "completion, its receives from the peer's first measured message to its last";
  }
  uint64_t measured = run.measured(f.sync.warmup);
  ctx.stats.send_msgs = measured;
  ctx.stats.send_bytes = measured * f.mem.msg_size;
  ctx.stats.send_time_ns = run.last_completion_ns - run.start_ns;
  return Status::success();
}

// The marks a stream's completion handler keeps of what it received.
struct StreamReceived {
  const uint64_t& count;
  const int64_t& first_ns;  // rx_start
  const int64_t& last_ns;   // rx_last
};

// A stream's end: the end-of-test exchange (the end barrier), then a receiver's counts of what
// arrived and was lost, and the server's counts to the client.
template <typename Fn>
Status end_stream(TestContext& ctx, FabricSession& f, const WindowRun& run, bool sending,
                  bool receiving, bool unreliable, StreamReceived rx, Fn& on) {
  const bool client = ctx.role == Role::kClient;
  const uint64_t& received = rx.count;
  const uint64_t posted = run.posted;
  bool peer_done = run.peer_done;
  nlohmann::json peer_counts = run.peer_msg;

  if (client) {
    auto server = finish_client(f, {{"sent", posted}}, on);
    if (!server.ok()) return server.status();
    peer_counts = *server;
    if (run.lists && !receiving) ctx.stats.send_time_ns = lists_time_ns(run, ctx);
  } else if (!peer_done) {
    auto msg = serve_until_peer_done(f, on);
    if (!msg.ok()) return msg.status();
    peer_counts = *msg;
  }
  if (receiving) {
    uint64_t peer_sent = peer_counts.value("sent", uint64_t{0});
    FP_RETURN_IF_ERROR(drain_until(
        f, on, [&] { return received >= peer_sent; }, unreliable));
    if (received < peer_sent && !unreliable) {
      return Status::failed("received " + std::to_string(received) + " of " +
                            std::to_string(peer_sent) + " messages");
    }
    ctx.stats.lost_msgs = peer_sent > received ? peer_sent - received : 0;
    ctx.stats.recv_time_ns = rx.last_ns - rx.first_ns;
    // A pure receiver of lists: from its start barrier to its end barrier (its answer below).
    if (run.lists && !sending) ctx.stats.recv_time_ns = lists_time_ns(run, ctx);
  }
  ctx.mark_end();
  if (!client) return f.sync.send_done({{"sent", posted}, {"received", received}});
  return Status::success();
}

// One side of a stream: sends when `sending`, receives when `receiving`. The client ends its
// sending by time or count; a sending server stops when the client's end message arrives.
Status stream_side(TestContext& ctx, fi_ep_type type, bool sending, bool receiving) {
  SessionNeeds needs = stream_side_needs(ctx.opts.tx_depth, type, sending, receiving);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  // Stream: the provider's default or --tx_depth (window_choice); lists: -l, the list posted
  // whole however few of it the provider's queue keeps in flight (run_window).
  const size_t window = ctx.opts.bw_method == "lists" ? ctx.opts.tx_depth : f.cq.tx_window();
  const bool unreliable = type == FI_EP_DGRAM;
  for (size_t slot = 0; slot < f.mem.tx_slots(); ++slot) {
    if (!f.mem.fill_tx(slot)) return f.status();
  }
  // The window's inject choice, not the ping-pong's (SessionLink::inject_bw).
  const MsgRoute route(f, f.link.inject_bw);

  WindowRun run;
  // --bw_method lists: a receiver answers each list with an empty message, and a sender
  // waits for that answer before its next list, as cxi_send_bw's response PUT.
  run.lists = ctx.opts.bw_method == "lists";
  run.list_answers = run.lists && !unreliable;  // a lost answer would stall the sender
  uint64_t received = 0;
  int64_t rx_start = 0, rx_last = 0;
  volatile uint64_t sink = 0;
  std::function<bool(const fi_cq_data_entry&)> on;
  static const char kAnswer = 0;  // never read: answers carry no bytes
  auto answer = [&] {
    return f.cq.post(
        "fi_inject", [&] { return fi_inject(f.link.ep(), &kAnswer, 0, f.link.peer); }, on);
  };
  on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c->kind == OpKind::kTx) {
      tx_completed(f, run, c);
      return true;
    }
    f.cq.rx_pool.release(c);
    if (run.list_answers && e.len == 0) {  // the peer's answer to one of this side's lists
      ++run.answers;
      return recv_routed(f, route, c->slot, on);
    }
    int64_t now = f.cq.completion_ns();
    ++received;
    if (received == 1 || received == f.sync.warmup) {
      rx_start = now;
      // A pure receiver's measured phase starts here (with lists: at the start barrier).
      if (!sending && !run.lists) ctx.mark_start();
    }
    rx_last = now;
    if (received > f.sync.warmup || f.sync.warmup == 0) {
      ctx.stats.recv_msgs++;
      ctx.stats.recv_bytes += e.len;
    }
    if (f.mem.verify && !f.mem.check_rx(route.rx[c->slot], e.len)) return false;
    if (f.mem.access_recv) sink = sink + f.mem.touch(route.rx[c->slot], e.len);
    // A whole list arrived: answer it (the sender's next list waits for this).
    if (run.list_answers && received % window == 0 && !answer()) return false;
    return recv_routed(f, route, c->slot, on);
  };
  // Both ways, or lists: the peer's start barrier may come while the receives are posted.
  if ((sending && receiving) || run.lists) expect_start_barrier(f, run);
  FP_RETURN_IF_ERROR(post_stream_receives(f, route, run, receiving, on));

  if (!sending) {
    FP_RETURN_IF_ERROR(passive_start(f, run, on));
    if (run.lists) rx_start = run.start_ns;
  }
  if (sending) FP_RETURN_IF_ERROR(stream_sends(ctx, f, route, window, receiving, run, on));
  return end_stream(ctx, f, run, sending, receiving, unreliable, {received, rx_start, rx_last}, on);
}

}  // namespace

SessionNeeds pingpong_needs(Role role, fi_ep_type type) {
  // Two receives posted. A datagram server alternates two send slots, so a send still in
  // flight never has its sequence number overwritten by the next echo; every other echo is
  // the same bytes, sent from one slot: a smaller working set (at 256 KiB, rc_lat over tcp
  // went from 50-54 us to 42 us, fi_pingpong's figure, which uses one buffer each way).
  const bool server = role == Role::kServer;
  const size_t tx_slots = server && type == FI_EP_DGRAM ? 2u : 1u;
  return {.ep_type = type,
          .caps = FI_MSG,
          .tx_slots = tx_slots,
          .rx_slots = 2,
          .tx_window = server ? 4u : 2u,
          .rx_window = 2};
}

SessionNeeds stream_side_needs(size_t window, fi_ep_type type, bool sending, bool receiving) {
  return {.ep_type = type,
          .caps = FI_MSG,
          .tx_slots = sending ? window : 1,
          .rx_slots = receiving ? window : 1,
          .tx_window = window,
          .rx_window = receiving ? window : 1,
          .windowed = WindowedOp::kSend};
}

SessionNeeds stream_needs(const RunOptions& opts, Role role, fi_ep_type type, bool bidirectional) {
  const bool client = role == Role::kClient;
  return stream_side_needs(opts.tx_depth, type, client || bidirectional, !client || bidirectional);
}

Status send_pingpong(TestContext& ctx, fi_ep_type type) {
  return ctx.role == Role::kClient ? pingpong_client(ctx, type) : pingpong_server(ctx, type);
}

Status send_stream(TestContext& ctx, fi_ep_type type, bool bidirectional) {
  bool client = ctx.role == Role::kClient;
  return stream_side(ctx, type, client || bidirectional, !client || bidirectional);
}

}  // namespace fabperf
