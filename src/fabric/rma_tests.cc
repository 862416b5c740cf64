// One-sided fabric tests: RDMA write and read bandwidth and latency, and write-poll latency.
#include <rdma/fi_rma.h>
#include <sys/uio.h>

#include <algorithm>
#include <functional>
#include <optional>

#include "engine/latency_loop.h"
#include "fabric/msg_route.h"
#include "fabric/pattern.h"
#include "fabric/roles.h"
#include "fabric/run_support.h"
#include "fabric/session.h"
#include "fabric/slot_ring.h"

namespace fabperf {

namespace {

using Handler = std::function<bool(const fi_cq_data_entry&)>;

// How long a target keeps looking for the last writes to land before it calls them missing.
constexpr int64_t kLandingGraceNs = 1'000'000'000;

// The RMA target's end check: every slot the peer wrote holds its pattern. Progress continues
// while looking, since some providers place data only when the target polls.
// A plain write gives the target no notice, so without `each_write_checked` (writes with data,
// checked as each lands) this is all --verify sees of the writes: the slots' final contents,
// once. The run's info says so (verify_checks), beside the honest count.
template <typename On>
Status check_written_slots(FabricSession& f, On&& on, uint64_t peer_posted,
                           bool each_write_checked) {
  if (!f.mem.verify) return Status::success();
  size_t touched = std::min<uint64_t>(f.mem.rx_slots(), peer_posted);
  int64_t give_up = now_ns() + kLandingGraceNs;
  size_t bad = 0;
  while (true) {
    bad = 0;
    for (size_t slot = 0; slot < touched; ++slot) {
      if (!f.mem.rx_holds_peer_pattern(slot)) {
        if (!f.error().ok()) return f.status();
        ++bad;
      }
    }
    if (bad == 0 || now_ns() > give_up) break;
    if (!f.cq.progress(on, 1)) return f.status();
  }
  f.ctx.stats.verify_checked += touched;
  f.ctx.stats.verify_errors += bad;
  f.ctx.stats.info["verify_checks"] =
      each_write_checked ? "each write as it landed, and the buffers at the end"
                         : "final contents of " + std::to_string(touched) +
                               " target buffer(s), once (a plain write: no notice per write)";
  return Status::success();
}

// Handler pieces every RMA test shares: tx completions release their context; remote-data
// completions (write with data) are counted and, where they used a posted receive, reposted.
struct RmaCounters {
  uint64_t remote_writes = 0;
  int64_t first_remote_ns = 0, last_remote_ns = 0;
};

Handler rma_handler(FabricSession& f, const MsgRoute& data_rx, WindowRun& run,
                    RmaCounters& counters, Handler* self) {
  return [&f, &data_rx, &run, &counters, self](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c != nullptr && c->kind == OpKind::kTx) {
      tx_completed(f, run, c);
      return true;
    }
    if (c != nullptr) f.cq.rx_pool.release(c);
    if (e.flags & FI_REMOTE_CQ_DATA) {
      int64_t now = f.cq.completion_ns();
      if (++counters.remote_writes == 1 || counters.remote_writes == f.sync.warmup) {
        counters.first_remote_ns = now;
      }
      counters.last_remote_ns = now;
      if (counters.remote_writes > f.sync.warmup || f.sync.warmup == 0) {
        f.ctx.stats.recv_msgs++;
        f.ctx.stats.recv_bytes += f.mem.msg_size;
      }
      if (f.mem.verify && !f.mem.check_rx(f.mem.rx(e.data % f.mem.rx_slots()), f.mem.msg_size))
        return false;
    }
    return c == nullptr || recv_routed(f, data_rx, c->slot, *self);
  };
}

// Where one test's RMA operations go, looked up once when it starts: the endpoint, the peer,
// the key, the descriptor, the size, a list's flags, each local slot's address and each of the
// peer's slots'. A post then loads what it passes and wraps its index in a SlotRing. Looked up
// through the session's layers for every post, a 4 KiB write over shm took 230 instructions
// of fabperf's own a post, 161 routed; the bare floor takes 80 (bench/README.md, "The RMA
// rows' own work").
struct RmaRoute {
  // `local`: the slots operations read from or land in (tx slots for writes and for reads
  // into tx, rx slots for reads).
  RmaRoute(FabricSession& f, bool local_is_tx)
      : ep(f.link.ep()),
        peer(f.link.peer),
        key(f.mem.remote_key()),
        desc(f.mem.desc()),
        size(f.mem.msg_size),
        more_flags(f.link.more_flags()),
        verify(f.mem.verify) {
    const size_t locals = local_is_tx ? f.mem.tx_slots() : f.mem.rx_slots();
    for (size_t i = 0; i < locals; ++i) local.push_back(local_is_tx ? f.mem.tx(i) : f.mem.rx(i));
    for (size_t i = 0; i < f.mem.peer_rx_slots(); ++i) remote.push_back(f.mem.remote_rx(i));
    if (local.empty()) local.push_back(local_is_tx ? f.mem.tx(0) : f.mem.rx(0));
    if (remote.empty()) remote.push_back(f.mem.remote_rx(0));
    local_ring = SlotRing::of(local.size());
    remote_ring = SlotRing::of(remote.size());
    paired = local.size() == remote.size();
  }
  uint32_t local_slot(uint64_t index) const { return local_ring.wrap(index); }
  uint64_t remote_at(uint64_t index) const { return remote[remote_ring.wrap(index)]; }
  // The peer's slot of `index`, whose local slot is `slot` (local_slot(index)): the same
  // slot where both sides have as many (one wrap a post, not two).
  uint64_t remote_for(uint64_t index, uint32_t slot) const {
    return paired ? remote[slot] : remote_at(index);
  }

  ssize_t write(uint8_t* buf, uint64_t to, OpContext* c, bool with_data, uint64_t data) const {
    if (with_data) return fi_writedata(ep, buf, size, desc, data, peer, to, key, c);
    return fi_write(ep, buf, size, desc, peer, to, key, c);
  }
  ssize_t read(uint8_t* into, uint64_t from, OpContext* c) const {
    return fi_read(ep, into, size, desc, peer, from, key, c);
  }
  // One operation through fi_writemsg/fi_readmsg with FI_MORE: a list's operation that
  // another follows at once (run_window's list.more_follows), so the provider may wait for the
  // list's last to ring. Out of line: inlined, the compiler built its message on every post,
  // FI_MORE or not (a dozen stores a post, counted by bench/probes/post_instructions.py).
  [[gnu::noinline]] ssize_t post_more(bool is_read, uint8_t* buf, uint64_t remote_addr,
                                      OpContext* c, bool with_data, uint64_t data) const {
    iovec iov{buf, size};
    void* d = desc;
    fi_rma_iov rma{remote_addr, size, key};
    fi_msg_rma msg{};
    address_one_sided_msg(msg, &iov, &d, peer, &rma, c);
    uint64_t flags = more_flags;
    if (with_data) {
      msg.data = data;
      flags |= FI_REMOTE_CQ_DATA;
    }
    return is_read ? fi_readmsg(ep, &msg, flags) : fi_writemsg(ep, &msg, flags);
  }

  fid_ep* ep;
  fi_addr_t peer;
  uint64_t key;
  void* desc;
  size_t size;
  uint64_t more_flags;  // a *msg post's (SessionLink::more_flags)
  bool verify;          // --verify: reads poison their slot first
  std::vector<uint8_t*> local;
  std::vector<uint64_t> remote;
  SlotRing local_ring, remote_ring;
  bool paired = false;  // as many local slots as the peer's
};

// Write `index` from its tx slot to the peer's rx slot of the same index (with the index as
// remote CQ data when `with_data`). `list`: the post's place in a --bw_method list
// (run_window's PostList; nullptr outside one). `on` is the test's completion handler,
// inlined into the retry loop (a template, as everywhere on the hot path). Inlined into the
// window loop: a call and the registers it saves were 20 instructions a post (bench/README.md,
// "The window loop's own work").
template <typename On>
[[gnu::always_inline]] inline bool post_write(FabricSession& f, const RmaRoute& route,
                                              uint64_t index, bool with_data, On&& on,
                                              PostList* list) {
  const uint32_t slot = route.local_slot(index);
  // A window never asks for more contexts than the pool holds; should one ever, the post
  // waits for a completion rather than post without a context.
  OpContext* c = f.cq.context(f.cq.tx_pool, slot, on);
  if (c == nullptr) return false;
  uint8_t* buf = route.local[slot];
  const uint64_t to = route.remote_for(index, slot);
  return f.cq.post(
      "fi_write",
      // By value: the out-of-line retry takes the lambda by reference, and captured
      // references would keep these in memory on every post.
      [=, &route](bool more) -> ssize_t {
        return more ? route.post_more(false, buf, to, c, with_data, index)
                    : route.write(buf, to, c, with_data, index);
      },
      on, list);
}

// Reads the peer's rx slot of `index` into the route's local slot (rx slots; or, both sides
// reading, when the rx slots are the peer's source, tx slots: `own_slot`), poisoned first
// under --verify.
template <typename On>
[[gnu::always_inline]] inline bool post_read(FabricSession& f, const RmaRoute& route,
                                             uint64_t index, On&& on, PostList* list,
                                             bool own_slot = false) {
  // Into tx slots: the context's own slot, so no read lands where one still in flight (a
  // provider may complete them out of order) is about to be checked.
  const uint32_t wanted = own_slot ? ContextPool::kOwnSlot : route.local_slot(index);
  OpContext* c = f.cq.context(f.cq.tx_pool, wanted, on);
  if (c == nullptr) return false;
  uint32_t slot = wanted;
  if (own_slot) {
    slot = route.local_slot(c->slot);
    c->slot = slot;
  }
  if (route.verify && !(own_slot ? f.mem.poison_tx(slot) : f.mem.poison_rx(slot))) return false;
  uint8_t* into = route.local[slot];
  const uint64_t from = own_slot ? route.remote_at(index) : route.remote_for(index, slot);
  return f.cq.post(
      "fi_read",
      [=, &route](bool more) -> ssize_t {  // by value, as post_write's
        return more ? route.post_more(true, into, from, c, false, 0) : route.read(into, from, c);
      },
      on, list);
}

bool fill_tx(FabricSession& f) {
  for (size_t slot = 0; slot < f.mem.tx_slots(); ++slot) {
    if (!f.mem.fill_tx(slot)) return false;
  }
  return true;
}

}  // namespace

SessionNeeds rma_write_bw_needs(const RunOptions& opts, fi_ep_type type, bool count_at_target) {
  const size_t window = opts.tx_depth;
  return {.ep_type = type,
          .caps = FI_RMA | (count_at_target ? FI_MSG : 0),
          .tx_slots = window,
          .rx_slots = window,
          .tx_window = window,
          .rx_window = window,
          .rx_init = RxInit::kPoison,
          .windowed = WindowedOp::kWrite};
}

SessionNeeds rma_read_bw_needs(const RunOptions& opts, fi_ep_type type, bool bidirectional) {
  const size_t window = std::min(opts.tx_depth, opts.rd_atomic);
  return {.ep_type = type,
          .caps = FI_RMA,
          .tx_slots = bidirectional ? window : 1,
          .rx_slots = window,
          .tx_window = window,
          .rx_init = RxInit::kPattern};
}

SessionNeeds one_sided_needs(fi_ep_type type, bool read) {
  return {.ep_type = type,
          .caps = FI_RMA,
          .delivery_complete = !read,
          .tx_window = 2,
          .rx_init = read ? RxInit::kPattern : RxInit::kPoison};
}

SessionNeeds rma_pingpong_needs(fi_ep_type type) {
  return {.ep_type = type,
          .caps = FI_RMA | FI_MSG,
          .tx_window = 2,
          .rx_window = 2,
          .rx_init = RxInit::kPoison};
}

Status rma_write_bw(TestContext& ctx, fi_ep_type type, bool bidirectional, bool count_at_target) {
  const bool client = ctx.role == Role::kClient;
  const bool writing = client || bidirectional;
  const bool target = !client || bidirectional;
  SessionNeeds needs = rma_write_bw_needs(ctx.opts, type, count_at_target);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  // Stream: the provider's default or --tx_depth (window_choice); lists: -l, the list posted
  // whole however few of it the provider's queue keeps in flight (run_window).
  const size_t window = ctx.opts.bw_method == "lists" ? ctx.opts.tx_depth : f.cq.tx_window();
  const bool with_data = count_at_target && f.link.has_remote_cq_data();
  ctx.stats.info["recv_counted_by"] = with_data       ? "target (remote CQ data)"
                                      : bidirectional ? "peer (its completed writes)"
                                                      : "writer (completed writes)";
  if (!fill_tx(f)) return f.status();
  WindowRun run;
  run.lists = ctx.opts.bw_method == "lists";
  RmaCounters counters;
  const MsgRoute data_rx = MsgRoute::remote_data_receives(f);
  Handler on;
  on = rma_handler(f, data_rx, run, counters, &on);
  // The writer's own completions, inline in the window loop; the rest (remote data, the
  // receives that carry it) through the handler above, which reposts them.
  auto on_tx_first = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c == nullptr || c->kind != OpKind::kTx) return on(e);
    tx_completed(f, run, c);
    return true;
  };
  const RmaRoute route(f, true);
  // Both ways, or lists: the peer's start barrier may come while the receives are posted.
  if (bidirectional || run.lists) expect_start_barrier(f, run);
  if (with_data && target) {
    // Providers in FI_RX_CQ_DATA mode deliver remote data through posted receives.
    for (uint32_t i = 0; i < f.cq.rx_pool.capacity(); ++i) {
      if (!recv_routed(f, data_rx, static_cast<uint32_t>(i % data_rx.rx.size()), on)) {
        return f.status();
      }
    }
  }
  if (bidirectional && !with_data) {
    nlohmann::json peer;
    FP_RETURN_IF_ERROR(run_both_ways(
        f, window, run, f.mem.msg_size,
        [&](uint64_t index, PostList* list) {
          return post_write(f, route, index, false, on_tx_first, list);
        },
        on_tx_first, &peer));
    return check_written_slots(f, on, peer.value("sent", uint64_t{0}), false);
  }
  // A one-way run's target paces its progress calls where the provider's row says so (both
  // sides name it); not where each write brings remote CQ data the target has to take (its
  // receives, the provider's slower path), which was not measured paced.
  const TargetPace pace =
      with_data ? announce_target_pace(f, {0, "progress calls without pause (remote CQ data)"})
                : announce_target_pace(f, WindowedOp::kWrite);
  if (writing) {
    run.barrier = run.lists;  // the lists' start barrier (-b: both sides', above)
    FP_RETURN_IF_ERROR(run_window(
        f, window, run,
        [&](uint64_t index, PostList* list) {
          return post_write(f, route, index, with_data, on_tx_first, list);
        },
        on_tx_first));
    uint64_t measured = run.measured(f.sync.warmup);
    ctx.stats.send_msgs = measured;
    ctx.stats.send_bytes = measured * f.mem.msg_size;
    ctx.stats.send_time_ns = run.last_completion_ns - run.start_ns;
  } else {
    FP_RETURN_IF_ERROR(passive_start(f, run, on));
  }
  nlohmann::json mine = {{"sent", run.posted},
                         {"measured", run.measured(f.sync.warmup)},
                         {"time_ns", ctx.stats.send_time_ns}};
  nlohmann::json peer = run.peer_msg;
  if (client) {
    auto reply = finish_client(f, mine, on);
    if (!reply.ok()) return reply.status();
    peer = *reply;
    if (run.lists) ctx.stats.send_time_ns = lists_time_ns(run, ctx);
  } else if (!run.peer_done) {
    auto msg = serve_until_peer_done(f, on, pace.gap_ns);
    if (!msg.ok()) return msg.status();
    peer = *msg;
  }
  if (target) {
    uint64_t peer_sent = peer.value("sent", uint64_t{0});
    if (with_data) {
      FP_RETURN_IF_ERROR(drain_until(
          f, on, [&] { return counters.remote_writes >= peer_sent; }, false));
      ctx.stats.recv_time_ns = counters.last_remote_ns - counters.first_remote_ns;
    } else if (bidirectional) {
      ctx.stats.recv_msgs = peer.value("measured", uint64_t{0});
      ctx.stats.recv_bytes = ctx.stats.recv_msgs * f.mem.msg_size;
      ctx.stats.recv_time_ns = peer.value("time_ns", int64_t{0});
    }
    FP_RETURN_IF_ERROR(check_written_slots(f, on, peer_sent, with_data));
  }
  ctx.mark_end();
  if (!client) return f.sync.send_done(mine);
  return Status::success();
}

Status rma_read_bw(TestContext& ctx, fi_ep_type type, bool bidirectional) {
  const size_t window = std::min(ctx.opts.tx_depth, ctx.opts.rd_atomic);
  SessionNeeds needs = rma_read_bw_needs(ctx.opts, type, bidirectional);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  WindowRun run;
  run.lists = ctx.opts.bw_method == "lists";
  // Reads land in rx slots; both sides reading, in tx slots (the rx slots are the peer's source).
  const RmaRoute route(f, bidirectional);
  auto on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c == nullptr) return true;
    tx_completed(f, run, c);
    // Where the read landed is worked out under --verify only: a dozen instructions a
    // completion otherwise (bench/README.md, "The window loop's own work").
    if (f.mem.verify) [[unlikely]] {
      const uint8_t* landed = bidirectional ? f.mem.tx(c->slot) : f.mem.rx(c->slot);
      if (!f.mem.check_rx(landed, f.mem.msg_size)) return false;
    }
    return true;
  };
  if (bidirectional) {
    // Both sides read the peer's rx slots (its pattern) into their own tx slots.
    return run_both_ways(
        f, window, run, f.mem.msg_size,
        [&](uint64_t index, PostList* list) { return post_read(f, route, index, on, list, true); },
        on);
  }
  // Both sides name the target's pace (-v, JSON); the server keeps it.
  const TargetPace pace = announce_target_pace(f, WindowedOp::kRead);
  if (ctx.role == Role::kServer) {
    FP_RETURN_IF_ERROR(passive_start(f, run, on));
    auto done = serve_target(f, on, pace.gap_ns);
    if (!done.ok()) return done.status();
    return f.sync.send_done({{"served", true}});
  }
  run.barrier = run.lists;
  FP_RETURN_IF_ERROR(run_window(
      f, window, run,
      [&](uint64_t index, PostList* list) { return post_read(f, route, index, on, list); }, on));
  ctx.mark_end();
  uint64_t measured = run.measured(f.sync.warmup);
  ctx.stats.send_msgs = measured;
  ctx.stats.send_bytes = measured * f.mem.msg_size;
  ctx.stats.send_time_ns = run.last_completion_ns - run.start_ns;
  FP_RETURN_IF_ERROR(finish_client(f, {{"sent", run.posted}}, on).status());
  if (run.lists) ctx.stats.send_time_ns = lists_time_ns(run, ctx);
  return Status::success();
}

namespace {

// Issue-to-completion latency of one operation at a time (the CXI tools' definition).
Status one_sided_latency(TestContext& ctx, fi_ep_type type, bool read) {
  SessionNeeds needs = one_sided_needs(type, read);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  if (!fill_tx(f)) return f.status();
  bool done_op = false;
  auto on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c == nullptr) return true;
    f.cq.tx_pool.release(c);
    done_op = true;
    return true;
  };
  if (ctx.role == Role::kServer) {
    auto done = serve_target(f, on);
    if (!done.ok()) return done.status();
    if (!read)
      FP_RETURN_IF_ERROR(check_written_slots(f, on, done->value("sent", uint64_t{0}), false));
    return f.sync.send_done({{"served", true}});
  }
  ctx.latency.set_scale(1.0);
  uint64_t sent = 0;
  const RmaRoute route(f, !read);  // reads land in rx slots, writes go from tx slots
  // The sample starts with a clock read of its own, just before the post. Timed from the loop's
  // t0 instead (read before its limit check), saving a read an operation, a 64-byte read over
  // shm read 4% longer in alternating rounds (bench/README.md, "The RMA rows' own work").
  auto once = [&](uint64_t iter, int64_t, const SampleClock& clock) -> Result<Sample> {
    done_op = false;
    int64_t t0 = clock.now();
    // One operation at a time: no list.
    bool posted = read ? post_read(f, route, iter, on, nullptr)
                       : post_write(f, route, iter, false, on, nullptr);
    if (!posted || !wait_for(
                       f, [&] { return done_op; }, on))
      return f.status();
    int64_t t1 = clock.now();
    if (read && f.mem.verify &&
        !f.mem.check_rx(route.local[route.local_slot(iter)], f.mem.msg_size))
      return f.status();
    if (iter >= f.sync.warmup) {
      ctx.stats.send_msgs++;
      ctx.stats.send_bytes += f.mem.msg_size;
    }
    ++sent;
    return Sample{t1 - t0, false};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  return finish_client(f, {{"sent", sent}}, on).status();
}

}  // namespace

Status rma_write_lat(TestContext& ctx, fi_ep_type type) {
  return one_sided_latency(ctx, type, false);
}

Status rma_read_lat(TestContext& ctx, fi_ep_type type) {
  return one_sided_latency(ctx, type, true);
}

namespace {

// The server's side of the write ping-pong: every arriving write (`remote` counts them, in
// the handler) echoed with one of its own through write_once, until the client's end message.
template <typename WriteOnce, typename Fn>
Status echo_writes(TestContext& ctx, FabricSession& f, const uint64_t& remote,
                   WriteOnce&& write_once, Fn&& on) {
  // Echo every arriving write with one of our own.
  ctx.mark_start();
  uint64_t answered = 0;
  const bool busy_poll = f.cq.busy_poll();
  for (uint32_t polls = 0;;) {
    if (!f.cq.progress(on, kSliceMs)) return f.status();
    while (answered < remote) {
      if (!write_once(answered++)) return f.status();
    }
    if (busy_poll && ++polls % 64 != 0) continue;  // the clock every 64th busy poll
    int64_t now = now_ns();
    if (f.sync.peer_message_waiting(now)) break;
    if (!f.sync.client_alive(now)) return f.status();
  }
  return end_serving(f, on, {{"echoed", answered}});
}

// The client's side of the write ping-pong: each sample a write and the server's echo (the
// handler sets got_tx and got_remote).
template <typename WriteOnce, typename Fn>
Status time_write_echoes(TestContext& ctx, FabricSession& f, bool& got_tx, bool& got_remote,
                         WriteOnce&& write_once, Fn&& on) {
  ctx.latency.set_scale(0.5);
  uint64_t sent = 0;
  auto once = [&](uint64_t iter, int64_t t0, const SampleClock& clock) -> Result<Sample> {
    got_tx = got_remote = false;
    if (!write_once(iter) || !wait_for(
                                 f, [&] { return got_tx && got_remote; }, on)) {
      return f.status();
    }
    ++sent;
    return Sample{clock.now() - t0, false};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  return finish_client(f, {{"sent", sent}}, on).status();
}

}  // namespace

Status rma_write_pingpong(TestContext& ctx, fi_ep_type type) {
  SessionNeeds needs = rma_pingpong_needs(type);
  auto session = FabricSession::establish(ctx, needs);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  if (!f.link.has_remote_cq_data()) {
    return Status::unsupported("provider " + f.link.provider() +
                               " has no remote CQ data (write with immediate), which this test "
                               "needs; rc_rdma_write_poll_lat measures writes without it");
  }
  if (!fill_tx(f)) return f.status();
  const bool client = ctx.role == Role::kClient;
  bool got_tx = false, got_remote = false;
  uint64_t remote = 0;
  const MsgRoute data_rx = MsgRoute::remote_data_receives(f);
  Handler on;
  on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c != nullptr && c->kind == OpKind::kTx) {
      f.cq.tx_pool.release(c);
      got_tx = true;
      return true;
    }
    if (c != nullptr) f.cq.rx_pool.release(c);
    if (e.flags & FI_REMOTE_CQ_DATA) {
      got_remote = true;
      ++remote;
      ctx.stats.recv_msgs++;
      ctx.stats.recv_bytes += f.mem.msg_size;
      if (f.mem.verify) {
        // The peer writes again only after our answer.
        if (!f.mem.check_rx(f.mem.rx(0), f.mem.msg_size) || !f.mem.poison_rx(0)) return false;
      }
    }
    return c == nullptr || recv_routed(f, data_rx, c->slot, on);
  };
  for (uint32_t i = 0; i < 2; ++i) {
    if (!recv_routed(f, data_rx, 0, on)) return f.status();
  }
  auto write_once = [&](uint64_t index) {
    OpContext* c = f.cq.context(f.cq.tx_pool, 0, on);
    if (c == nullptr) return false;
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += f.mem.msg_size;
    return f.cq.post(
        "fi_writedata",
        [&] {
          return fi_writedata(f.link.ep(), f.mem.tx(0), f.mem.msg_size, f.mem.desc(), index,
                              f.link.peer, f.mem.remote_rx(0), f.mem.remote_key(), c);
        },
        on);
  };
  if (!client) return echo_writes(ctx, f, remote, write_once, on);
  return time_write_echoes(ctx, f, got_tx, got_remote, write_once, on);
}

}  // namespace fabperf
