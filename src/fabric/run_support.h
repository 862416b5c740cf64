// Loop pieces shared by the fabric role functions: the end-of-test handshake and draining.
#pragma once

#include <sched.h>

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "core/status.h"
#include "fabric/drain_pace.h"
#include "fabric/session.h"
#include "fabric/window_defaults.h"

namespace fabperf {

// How long an unreliable receiver waits, with nothing arriving, before counting the rest lost.
inline constexpr int64_t kDatagramQuietNs = 200'000'000;

// The client's end of a test: sends its counts, then keeps serving completions (the server
// may still need this side's progress to finish) until the server's counts arrive.
template <typename Fn>
Result<nlohmann::json> finish_client(FabricSession& f, const nlohmann::json& mine, Fn&& on) {
  Status sent = f.sync.send_done(mine);
  if (!sent.ok()) return sent;
  // A server that sends heartbeats may take as long as its drain takes (each step bounded by
  // its own timeout); its silence for this side's -to ends the wait. An older server has
  // three timeouts.
  const bool beats = f.ctx.peer.sends_heartbeats;
  Deadline deadline = Deadline::after(3 * f.ctx.timeout_s());
  while (true) {
    if (!f.cq.progress(on, kSliceMs)) return f.status();
    int64_t now = now_ns();
    if (f.sync.peer_message_waiting(now)) return f.sync.read_peer_done();
    // This side's heartbeats go on too: the server watches for them until its end.
    if (!f.sync.waiting_on_server(now)) return f.status();
    if (!beats && deadline.expired()) {
      return Status::timeout("the server did not finish the test within the timeout");
    }
  }
}

// A passive side's loop: serves completions until the peer's end-of-test message arrives.
// A peer that vanishes shows up as a readable control channel and a failed read; one that
// stops (SIGSTOP, a host gone) as silence: its heartbeats stop, and the wait ends at the
// timeout. With manual data progress the target of one-sided operations must keep calling
// into the provider (nothing reaches its CQ to wake it), so it polls, yielding the CPU between.
//
// `gap_ns` (target_pace, fabric/window_defaults.h): the wait before each call into the
// provider, for a target whose every call contends with the initiator's posts (over shm each
// progress call and each post take the same lock in the target's region).
template <typename Fn>
Result<nlohmann::json> serve_until_peer_done(FabricSession& f, Fn&& on, int64_t gap_ns = 0) {
  const bool keep_polling = f.link.endpoint->manual_progress();
  const bool busy_poll = f.cq.busy_poll();
  uint32_t polls = 0;
  while (true) {
    if (gap_ns > 0) {
      const int64_t until = now_ns() + gap_ns;
      while (now_ns() < until) {
      }
    }
    if (!f.cq.progress(on, keep_polling ? 0 : kSliceMs)) return f.status();
    // Busy-polling (-cp1) never yields: a yield is a system call per poll (~5 a round trip
    // over shm), and on a loaded host it hands the CPU away between a message and its reply.
    if (keep_polling && !busy_poll) sched_yield();
    if (busy_poll && ++polls % 64 != 0) continue;  // the clock every 64th busy poll
    int64_t now = now_ns();
    if (f.sync.peer_message_waiting(now)) return f.sync.read_peer_done();
    if (!f.sync.client_alive(now)) return f.status();
  }
}

// A side that only serves (the target of one-sided operations and atomics): its run's time is
// from here to the client's end message, which it returns (serve_until_peer_done, at its pace).
template <typename Fn>
Result<nlohmann::json> serve_target(FabricSession& f, Fn&& on, int64_t gap_ns = 0) {
  f.ctx.mark_start();
  auto msg = serve_until_peer_done(f, on, gap_ns);
  f.ctx.mark_end();
  return msg;
}

// An active side's wait for its own operation in a latency loop: serves completions until
// done(), looking at the clock, the peer and the stall limit after every wait, or when
// busy-polling every 64th empty poll only (as the send ping-pong does): a clock read took
// 60-80 ns here, about a shm poll's length, and a read per poll doubled the poll period the
// completion is seen within (bench/README.md, the one-sided latency rows against their floor).
template <typename Done, typename Fn>
bool wait_for(FabricSession& f, Done&& done, Fn&& on) {
  const bool busy_poll = f.cq.busy_poll();  // read once, not through two pointers a poll
  for (uint32_t empty = 0; !done();) {
    if (!f.cq.progress(on, kSliceMs)) return false;
    if (done() || (busy_poll && ++empty % 64 != 0)) continue;
    int64_t now = now_ns();
    if (!f.sync.periodic(now) || !f.cq.not_stalled(now)) return false;
  }
  return true;
}

// Serves completions until enough() holds. Reliable endpoints give up after the timeout
// without progress; unreliable ones after a quiet period (the rest counts as lost). The peer
// is looked at meanwhile, heartbeats both ways included: a deep window on a slow provider
// (udp;ofi_rxd, 1024 x 64 KiB at ~8 MB/s) drains for longer than a timeout (review N5).
template <typename Fn, typename Enough>
Status drain_until(FabricSession& f, Fn&& on, Enough&& enough, bool unreliable) {
  f.cq.note_progress(now_ns());
  while (!enough()) {
    if (!f.cq.progress(on, kSliceMs)) return f.status();
    int64_t now = now_ns();
    if (!f.sync.peer_alive(now)) return f.status();
    if (unreliable) {
      if (now - f.cq.last_progress_ns(now) > kDatagramQuietNs) break;
      continue;
    }
    if (!f.cq.not_stalled(now)) return f.status();
  }
  return Status::success();
}

// The pace of a one-sided bandwidth run's target, named on both sides (-v, JSON: target_pace,
// and target_gap_ns, the floor's target_gap in bench/); the target waits gap_ns before each
// call into the provider (serve_until_peer_done).
inline TargetPace announce_target_pace(FabricSession& f, TargetPace pace) {
  f.ctx.stats.info["target_pace"] = pace.why;
  f.ctx.stats.info["target_gap_ns"] = pace.gap_ns;
  return pace;
}
// The provider's pace for `op` (target_pace), announced.
inline TargetPace announce_target_pace(FabricSession& f, WindowedOp op) {
  return announce_target_pace(f, target_pace(f.link.provider(), op));
}

// A reliable server side's end once the client's end message is waiting: reads it, lets its
// own operations in flight complete, marks the end and answers with `counts`.
template <typename Fn>
Status end_serving(FabricSession& f, Fn&& on, const nlohmann::json& counts) {
  auto msg = f.sync.read_peer_done();
  if (!msg.ok()) return msg.status();
  FP_RETURN_IF_ERROR(drain_until(
      f, on, [&] { return f.cq.tx_pool.in_flight() == 0; }, false));
  f.ctx.mark_end();
  return f.sync.send_done(counts);
}

// Counters of a windowed run; the caller's completion handler updates completed for its
// operations (tx_completed).
struct WindowRun {
  uint64_t posted = 0;  // including warm-up
  uint64_t completed = 0;
  int64_t start_ns = 0;  // when the measured phase began
  // When the run's own operations had all completed, as the drain (drain_window) first saw
  // it, a batch's handling after the last. Stamped there, not per completion (a load, a test and a
  // store on every completion: bench/README.md, "The window loop's own work").
  int64_t last_completion_ns = 0;
  bool peer_done = false;  // a server's run ended on the client's end message
  nlohmann::json peer_msg;
  // Bytes one operation moves, as the test counts send_bytes (0: the message size); the
  // interval meter (--interval) counts measured posts by it.
  uint64_t op_bytes = 0;
  bool barrier = false;     // meet the peer at a start barrier after the warm-up
  bool peer_ready = false;  // the peer's start barrier message has arrived
  // --bw_method lists (the CXI tools' method, their default): post a list of `window`
  // operations (fewer at once where the provider's queue is shallower), wait until all of it
  // has completed and, with `list_answers`, until the receiver has answered it, then post the
  // next; the run limit is looked at between lists only.
  bool lists = false;
  bool list_answers = false;  // each list waits for its answer (send: the receiver's word)
  uint64_t answers = 0;       // answers received (the caller's handler counts them)
  uint64_t lists_posted = 0;
  uint64_t doorbells = 0;  // lists: posts without FI_MORE (each rings the provider)

  uint64_t measured(uint64_t warmup) const { return posted > warmup ? posted - warmup : 0; }
  // Lists: the next one may start once the last has completed (and been answered).
  bool list_done(size_t in_flight) const {
    return in_flight == 0 && (!list_answers || answers >= lists_posted);
  }
};

// One of a windowed run's own operations completed: its context freed and counted (the
// bandwidth tests' handlers).
inline void tx_completed(FabricSession& f, WindowRun& run, OpContext* c) {
  f.cq.tx_pool.release(c);
  run.completed++;
}

// How a windowed run issued its operations, for the JSON (the two methods' figures differ).
// in_flight_max: the most operations in flight at once (ContextPool::peak), what the provider
// really took, not the window asked for; in_flight_cap what the provider's queue allows.
inline nlohmann::json window_method(const WindowRun& run, size_t list, size_t window,
                                    uint64_t warmup, size_t in_flight_max) {
  if (!run.lists) {
    return {{"method", "stream"},
            {"window", window},
            {"in_flight_max", in_flight_max},
            {"warmup", warmup}};
  }
  return {{"method", "lists"},
          {"list_size", list},
          {"lists", run.lists_posted},
          {"in_flight_max", in_flight_max},
          {"in_flight_cap", window},
          {"doorbells", run.doorbells},
          {"answered", run.list_answers},
          {"answers", run.answers},
          {"warmup", warmup}};
}

// A run with a start barrier, from before this side's first look at its peer (its receives
// posted, its warm-up): the peer's word may come first, and stays for the barrier's reader
// (PeerSync::expect_word).
inline void expect_start_barrier(FabricSession& f, const WindowRun& run) {
  if (!run.peer_ready) f.sync.expect_word();
}

// The start barrier of a bi-directional run: this side's warm-up is complete; tell the peer
// and wait for its word, serving completions meanwhile (the peer's warm-up may need this
// side's progress to complete).
template <typename Fn>
Status start_barrier(FabricSession& f, WindowRun& run, Fn&& on) {
  const bool client = f.ctx.role == Role::kClient;
  expect_start_barrier(f, run);
  FP_RETURN_IF_ERROR(f.sync.send_done({{"barrier", "start"}}));
  while (!run.peer_ready) {
    if (!f.cq.progress(on, kSliceMs)) return f.status();
    int64_t now = now_ns();
    // Looked at on every pass: the client's periodic peer check would take the peer's word
    // for an unexpected message.
    if (f.sync.control_message_waiting()) {
      auto msg = f.sync.read_peer_done();
      if (!msg.ok()) return msg.status();
      if (!msg->contains("barrier")) {
        return Status::failed("protocol error: the peer ended before the start barrier");
      }
      run.peer_ready = true;
    }
    if (client ? !f.sync.periodic(now) : !f.sync.client_alive(now)) return f.status();
  }
  return Status::success();
}

// The passive side of a unidirectional run: with --bw_method lists its half of the start
// barrier, before the initiator's first list, as the originals' run_bw_passive (the end
// barrier is the end-of-test exchange); then its measured phase starts.
template <typename Fn>
Status passive_start(FabricSession& f, WindowRun& run, Fn&& on) {
  if (run.lists) FP_RETURN_IF_ERROR(start_barrier(f, run, on));
  f.ctx.mark_start();
  run.start_ns = now_ns();
  return Status::success();
}

// A list run's time as the originals take it (run_bw_active): from the start barrier to now,
// just after the end barrier.
inline int64_t lists_time_ns(const WindowRun& run, TestContext& ctx) {
  ctx.stats.info["bw_timed"] =
      "from the start barrier to the end barrier (TCP), as the CXI tools time a run";
  return now_ns() - run.start_ns;
}

// run_window's pieces, inline for its loop.

// The start of a windowed run's measured phase, once the warm-up has completed (after the
// start barrier where there is one); `now` is its clock.
template <typename Fn>
Status begin_measured(FabricSession& f, WindowRun& run, Fn&& on, int64_t& now) {
  if (run.barrier) FP_RETURN_IF_ERROR(start_barrier(f, run, on));
  now = now_ns();
  f.ctx.mark_start();
  f.sync.start_clock(now);
  run.start_ns = now;
  return Status::success();
}

// Whether the client posts more: its time or count in the measured phase, the warm-up before.
inline bool client_wants_more(FabricSession& f, const WindowRun& run, bool measuring, int64_t now) {
  return measuring ? !f.sync.limit_reached(run.posted - f.sync.warmup, now) && !f.sync.stopped()
                   : run.posted < f.sync.warmup;
}

// A server's read of the client's message during its run: the start barrier, or the end.
inline Status take_client_message(FabricSession& f, WindowRun& run) {
  auto msg = f.sync.read_peer_done();
  if (!msg.ok()) return msg.status();
  if (run.barrier && !run.peer_ready && msg->contains("barrier")) {
    run.peer_ready = true;  // the client is at the start barrier first
  } else {
    run.peer_msg = std::move(*msg);
    run.peer_done = true;
  }
  return Status::success();
}

// Whether the server posts more.
inline bool server_wants_more(FabricSession& f, const WindowRun& run, bool measuring) {
  // With -n the server sends its own count (a fast client may finish before the server
  // has sent anything); with -t it sends until the client's end message.
  if (f.sync.count_limit() > 0) {
    return measuring ? run.posted - f.sync.warmup < f.sync.count_limit()
                     : run.posted < f.sync.warmup;
  }
  return !run.peer_done && (measuring || run.posted < f.sync.warmup);
}

// Posts until the window is full (`paced` in flight), the limit is reached, or a millisecond
// has passed (the outer loop's looks at the peer and the clock must not wait on a trickle of
// slots). False when a post fails. kLists: a --bw_method list's posts, each with its PostList;
// a stream's have none (nullptr), and this loop is compiled for them without the list's
// checks. What runs between two posts here decides how often the provider's lock goes to the
// target between them (shm reads: bench/README.md, "The window loop's own work"), so a
// stream's burst works out once how many it may post (the room in the window, the warm-up's
// or the count's rest) and then only counts; the clock is read every 16th post.
// Flattened: the test's post function, its context and its post are inlined into this loop
// (their cold paths, Completions::post_refused and wait_for_context, stay out of line).
template <bool kLists, typename PostOne>
[[gnu::flatten]] inline bool post_burst(FabricSession& f, WindowRun& run, PostOne&& post_one,
                                        size_t paced, bool more, bool measuring, bool client,
                                        uint64_t& list_left, int64_t now) {
  if (!more) return true;
  const size_t in_flight = f.cq.tx_pool.in_flight();
  uint64_t room = paced > in_flight ? paced - in_flight : 0;
  if constexpr (kLists) {
    PostList list_post;
    for (; room > 0; --room) {
      // A list's next operation follows at once while the list and the queue have room:
      // this one may carry FI_MORE (where the post function has a *msg form).
      list_post.more_follows = list_left > 1 && room > 1;
      list_post.more_sent = false;
      const bool posted = post_one(run.posted, &list_post);
      if (!list_post.more_sent) ++run.doorbells;
      if (!posted) return false;
      ++run.posted;
      if (--list_left == 0) break;  // the limit and the clock are looked at between lists only
    }
    return true;
  } else {
    const uint64_t warmup = f.sync.warmup;
    const bool timed = measuring && f.sync.count_limit() == 0;
    if (!measuring) {
      room = std::min(room, warmup > run.posted ? warmup - run.posted : 0);
    } else if (!timed) {
      const uint64_t last = warmup + f.sync.count_limit();
      room = std::min(room, last > run.posted ? last - run.posted : 0);
    }
    const int64_t look_again = now + 1'000'000;
    for (uint64_t posts = 0; posts < room; ++posts) {
      if (!post_one(run.posted, nullptr)) return false;
      ++run.posted;
      if (timed && posts % 16 == 15) {
        int64_t t = now_ns();
        if (client && (f.sync.limit_reached(run.posted - warmup, t) || f.sync.stopped())) break;
        if (t >= look_again) break;
      }
    }
    return true;
  }
}

// The client's read of the server's start barrier message, when the server reached the
// barrier first (this side is still warming up).
inline Status take_server_barrier(FabricSession& f, WindowRun& run) {
  auto msg = f.sync.read_peer_done();
  if (!msg.ok()) return msg.status();
  if (!msg->contains("barrier")) {
    return Status::failed("protocol error: the server ended before the start barrier");
  }
  run.peer_ready = true;
  return Status::success();
}

// The end of a windowed run, its loop over: what is in flight completes, the interval meter
// finishes, and the method goes in the JSON. run.last_completion_ns is stamped when this
// side's own operations are all complete, before a list's answer is waited for (a send list's
// time is its sends', not the peer's reply to them).
template <typename Fn, typename Counts, typename ListDone>
Status drain_window(FabricSession& f, WindowRun& run, size_t list, size_t window, Fn&& on,
                    Counts&& counts, ListDone&& list_done) {
  // The window still in flight completes: intervals go on through it (a deep window on a
  // slow provider takes long).
  const bool ticking = f.ctx.interval.enabled();
  run.last_completion_ns = 0;
  Status drained = drain_until(
      f, on,
      [&] {
        if (ticking) {
          int64_t t = now_ns();
          if (f.ctx.interval.due(t)) f.ctx.interval.tick(t, counts(false), nullptr);
        }
        if (run.last_completion_ns == 0 && f.cq.tx_pool.in_flight() == 0) {
          run.last_completion_ns = now_ns();
        }
        return run.lists ? list_done() : run.last_completion_ns != 0;
      },
      false);
  const int64_t end = now_ns();
  if (run.last_completion_ns == 0) run.last_completion_ns = end;  // the drain failed
  if (drained.ok()) f.ctx.interval.finish(end, counts(true), nullptr);
  f.ctx.stats.info["bw_method"] =
      window_method(run, list, window, f.sync.warmup, f.cq.tx_pool.peak());
  f.ctx.stats.info["bw_method"]["posts_refused"] = f.cq.posts_refused;
  return drained;
}

// Keeps up to `window` operations in flight through post_one(index, list) (which takes a tx
// context and posts; `list`, a PostList* (nullptr outside a --bw_method list), says whether
// the next operation of the list follows at once, and the post whether it carried FI_MORE;
// post_one is called with a constant nullptr for a stream), first the warm-up ones,
// then the measured phase. The client stops at its time or count; a server at its count (-n)
// or when the client's end message arrives (-t). The run limit is looked at between posts, not
// only once the window is full: a provider whose queue is shallower than the window frees one
// slot at a time, and the window would never fill (a --tx_depth 8192 run went on for minutes).
// Returns once every posted operation has completed. Ticks the interval meter (--interval)
// with the loop's clock and finishes it with the measured posts. With `run.lists` (the CXI
// tools' method) the same loop posts `window` operations as one list (as many in flight as the
// provider takes), waits for all of it (and its answer), and looks at the limit only between
// lists.
template <typename PostOne, typename Fn>
Status run_window(FabricSession& f, size_t window, WindowRun& run, PostOne&& post_one, Fn&& on) {
  const bool client = f.ctx.role == Role::kClient;
  const size_t list = window;  // -l: one list, whatever the provider keeps in flight
  window = std::min(window, f.cq.tx_window());
  f.ctx.stats.info["window"] = window;  // what was kept in flight (-v, JSON; the floor's pairing)
  bool measuring = false;
  uint64_t list_left = 0;  // operations of the current list still to post
  DrainPace pace(window);  // a stream's window at the completion rate of the last 0.25 s
  auto list_done = [&] { return run.list_done(f.cq.tx_pool.in_flight()); };
  // What --interval counts: the measured operations completed so far (posts run ahead of
  // completions by the window, and a provider that buffers takes a whole window at once),
  // and at the end the measured posts, every one of them completed by then: the test's send
  // counts. Received: what this side has counted so far.
  const uint64_t op_bytes = run.op_bytes > 0 ? run.op_bytes : f.mem.msg_size;
  auto counts = [&](bool at_end) {
    IntervalCounts c = IntervalCounts::of(f.ctx.stats);
    c.send_msgs = at_end ? run.measured(f.sync.warmup)
                         : (run.completed > f.sync.warmup ? run.completed - f.sync.warmup : 0);
    c.send_bytes = c.send_msgs * op_bytes;
    return c;
  };
  // Busy-polling with the window full, a pass is one poll: the clock every 16th pass (a read
  // took as long as a shm poll here, 60-80 ns), every pass otherwise and at the start.
  int64_t now = 0;
  const bool busy_poll = f.cq.busy_poll();
  if (run.barrier) expect_start_barrier(f, run);
  for (uint32_t passes = 0;; ++passes) {
    if (!busy_poll || passes % 16 == 0 || !measuring) now = now_ns();
    if (measuring && f.ctx.interval.due(now)) f.ctx.interval.tick(now, counts(false), nullptr);
    if (!measuring && run.completed >= f.sync.warmup) {
      FP_RETURN_IF_ERROR(begin_measured(f, run, on, now));
      measuring = true;
    }
    bool more;
    if (client) {
      more = client_wants_more(f, run, measuring, now);
    } else {
      if (!run.peer_done && f.sync.peer_message_waiting(now)) {
        FP_RETURN_IF_ERROR(take_client_message(f, run));
      }
      more = server_wants_more(f, run, measuring);
    }
    if (run.lists && list_left > 0) more = true;  // a list is posted whole
    if (!more && measuring) break;
    if (run.lists && more && list_left == 0) {
      if (list_done()) {
        list_left = list;
        ++run.lists_posted;
      } else {
        more = false;  // this list is still under way
      }
    }
    // A list is posted whole (as far as the provider's queue goes), as the originals post
    // theirs; the stream's window is what drains within DrainPace::kMaxDrainNs.
    const size_t paced = run.lists ? window : pace.window(now, run.completed);
    const bool posted =
        run.lists
            ? post_burst<true>(f, run, post_one, paced, more, measuring, client, list_left, now)
            : post_burst<false>(f, run, post_one, paced, more, measuring, client, list_left, now);
    if (!posted) return f.status();
    // Something to wait for: operations in flight, or (lists) the receiver's answer.
    const bool waiting = f.cq.tx_pool.in_flight() > 0 || (run.lists && !list_done());
    if (!f.cq.progress(on, waiting ? kSliceMs : 0)) return f.status();
    if (client && run.barrier && !run.peer_ready && f.sync.control_message_waiting()) {
      FP_RETURN_IF_ERROR(take_server_barrier(f, run));
    }
    if (client && !f.sync.periodic(now)) return f.status();
    if (!client && !f.sync.client_alive(now)) return f.status();
    if (waiting && !f.cq.not_stalled(now)) return f.status();
  }
  return drain_window(f, run, list, window, on, counts, list_done);
}

// A bi-directional run as the originals time one: each side's warm-up, a start barrier (both
// start measuring when they hold each other's word), each side's own window of operations
// (`post_one`, as run_window takes it), then the end
// barrier: each side has its own counts and the peer's. Each side's time runs from the start
// of its measured phase to the end barrier, so sides out of step under-report rather than
// over-report. Fills this side's stats: send_* its own operations (`op_bytes` each), recv_*
// the peer's count over this side's time.
template <typename PostOne, typename Fn>
Status run_both_ways(FabricSession& f, size_t window, WindowRun& run, uint64_t op_bytes,
                     PostOne&& post_one, Fn&& on, nlohmann::json* peer_out = nullptr) {
  const bool client = f.ctx.role == Role::kClient;
  run.barrier = true;
  run.op_bytes = op_bytes;
  FP_RETURN_IF_ERROR(run_window(f, window, run, post_one, on));
  const uint64_t measured = run.measured(f.sync.warmup);
  nlohmann::json mine = {{"sent", run.posted}, {"measured", measured}};
  nlohmann::json peer = run.peer_msg;
  if (client) {
    auto reply = finish_client(f, mine, on);
    if (!reply.ok()) return reply.status();
    peer = *reply;
  } else {
    if (!run.peer_done) {
      auto msg = serve_until_peer_done(f, on);
      if (!msg.ok()) return msg.status();
      peer = *msg;
    }
  }
  const int64_t end = now_ns();
  TestContext& ctx = f.ctx;
  ctx.mark_end();
  ctx.stats.send_msgs = measured;
  ctx.stats.send_bytes = measured * op_bytes;
  ctx.stats.send_time_ns = end - run.start_ns;
  ctx.stats.recv_msgs = peer.value("measured", uint64_t{0});
  ctx.stats.recv_bytes = ctx.stats.recv_msgs * op_bytes;
  ctx.stats.recv_time_ns = ctx.stats.send_time_ns;
  ctx.stats.info["bidirectional"] =
      "start and end barriers; each side's time from its first measured operation to the end "
      "barrier";
  if (peer_out != nullptr) *peer_out = peer;
  if (!client) return f.sync.send_done(mine);
  return Status::success();
}

}  // namespace fabperf
