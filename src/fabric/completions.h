// The completion engine of a fabric session: the contexts of the operations in flight, the
// posts (retried while the provider says EAGAIN), the completion queue read in batches and
// handed to the role's handler, and the watch for a provider that stops completing or a call
// that never returns. The engine is a template over the handler, so a handler the compiler
// sees is inlined; the roles' handlers are std::function where they repost through
// themselves. Inlining the ping-pong's instead took 11 of the client's 386 instructions a
// round trip over shm and no time 10 alternating rounds could show (bench/README.md, "The shm
// ping-pong's own work").
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "core/clock.h"
#include "core/signals.h"
#include "core/status.h"
#include "engine/stuck_call_watch.h"
#include "engine/test_context.h"
#include "fabric/endpoint.h"
#include "fabric/fi_util.h"
#include "fabric/peer_sync.h"
#include "fabric/session_error.h"

namespace fabperf {

enum class OpKind : uint32_t { kTx, kRx };

// Per-operation context handed to libfabric; fi_context2 comes first because providers in
// FI_CONTEXT mode use that space.
struct OpContext {
  fi_context2 fi;
  OpKind kind;
  uint32_t slot;   // buffer slot the operation uses
  uint32_t index;  // position in its pool
};

// A fixed set of contexts, one per operation in flight; never allocates after init. The free
// list is a stack of indexes with its own count: acquire and release are a load and a store
// (a post's own work shows in the rate of posts the provider serializes: bench/README.md,
// "rdm_atomic_bw over shm: fabperf's own work").
class ContextPool {
 public:
  void init(OpKind kind, size_t count);
  // The slot an operation takes that uses its context's own (c->index): operations in flight
  // at once then never share a buffer, whatever order the provider completes them in.
  static constexpr uint32_t kOwnSlot = UINT32_MAX;
  OpContext* acquire(uint32_t slot) {
    if (free_count_ == 0) return nullptr;
    OpContext* c = &contexts_[free_[--free_count_]];
    c->slot = slot == kOwnSlot ? c->index : slot;
    return c;
  }
  // A release with no context in flight (a context completed twice, a provider's fault) is
  // dropped: the free list never runs past the pool. One completed twice while others are in
  // flight is not caught here.
  void release(OpContext* c) {
    if (free_count_ < capacity_) free_[free_count_++] = c->index;
  }
  size_t in_flight() const { return capacity_ - free_count_; }
  size_t capacity() const { return capacity_; }
  // The most contexts in flight at once (JSON in_flight_max): noted where the count may be at
  // a peak, before completions release any (Completions::progress), not on every acquire.
  void note_peak() {
    if (in_flight() > peak_) peak_ = in_flight();
  }
  size_t peak() const { return peak_; }

 private:
  std::vector<OpContext> contexts_;
  std::vector<uint32_t> free_;  // free_[0, free_count_) are free
  size_t free_count_ = 0;
  size_t capacity_ = 0;
  size_t peak_ = 0;
};

// One post's place in a --bw_method list, between run_window and the post function it calls
// (and Completions::post, which the post function hands it to). Posts outside a list have
// none (nullptr): then the post function's FI_MORE form is never looked at, and the window
// loop for streams is compiled without it. run_window says whether another operation of the
// same list follows this one at once: then the post may carry FI_MORE and leave the doorbell
// to the list's last, as the originals ring once a list. Completions::post says whether the
// post that went through did carry FI_MORE: run_window counts a doorbell for each post that
// did not. A refused post (-FI_EAGAIN) rings: post() drops more_follows before the retry.
struct PostList {
  bool more_follows = false;  // in: this post may carry FI_MORE
  bool more_sent = false;     // out: the post that went through carried FI_MORE
};

class Completions {
 public:
  Completions(TestContext& ctx, SessionError& error, PeerSync& sync)
      : ctx_(ctx), error_(error), sync_(sync) {}
  Completions(const Completions&) = delete;
  Completions& operator=(const Completions&) = delete;

  // The client's watch on its calls into the provider (review N4), where the run has one.
  // Its thread and the signal thread leave the loop's descriptor table while the session
  // lives (core/signals.h SignalsOffTable): the loop is then alone on it, as the floor is.
  void watch_calls();
  // The endpoint whose queues this engine serves, its windows (no deeper than the provider's
  // queues: a deeper one never fills) and the time the session came up.
  void attach(FabricEndpoint& endpoint, const std::string& provider, size_t tx_window,
              size_t rx_window, int64_t now);

  ContextPool tx_pool;
  ContextPool rx_pool;
  // Posts the provider refused (-FI_EAGAIN, then retried) while others of this side were in
  // flight, each counted once: where a windowed run's measured peak in flight stays below its
  // queue's size, these say the provider held back (a refusal with nothing in flight, as
  // while a connection sets up, is not counted).
  uint64_t posts_refused = 0;
  // Operations a windowed loop keeps in flight: the test's window, at most the provider's
  // transmit queue (a deeper window never fills, and posts spin on EAGAIN).
  size_t tx_window() const { return tx_pool.capacity(); }
  // Busy-polling (-cp1): a wait loop may look at the clock only every so many empty polls.
  bool busy_poll() const { return endpoint_->busy_poll(); }

  // Reads a batch of completions (blocking mode: sleeps up to slice_ms) and hands each to fn.
  // Returns false on an error completion (the session's error says which). The batch holds a
  // whole default window (tx_depth 128): a receiver that takes fewer per call than the
  // provider takes off the wire falls behind, and tcp;ofi_rxm then queues every message as
  // unexpected in a fresh buffer (a 64 B rdm_send_bw server grew 1 GB/s with 16 per call).
  static constexpr size_t kCqBatch = 128;
  template <typename Fn>
  bool progress(Fn&& fn, int slice_ms) {
    fi_cq_data_entry entries[kCqBatch];
    tx_pool.note_peak();  // only completions lower it, and they come from here
    ssize_t n = watched([&] { return endpoint_->wait(entries, kCqBatch, slice_ms); });
    if (n < 0) {
      if (n == -FI_EAVAIL && endpoint_->discard_canceled()) return true;
      return error_.fail(endpoint_->completion_error(n));
    }
    completions_ += static_cast<uint64_t>(n > 0 ? n : 0);  // timed by the caller's next look
    batch_ns_ = 0;
    for (ssize_t i = 0; i < n; ++i) {
      if (!fn(entries[i])) return false;
    }
    return true;
  }
  // When the completions progress() is handing out arrived, for the bandwidth handlers: the
  // clock read once a batch, at its first use. A read per completion was a clock read per
  // message on each side (60-80 ns here, against 380 ns a 64-byte send over shm takes).
  int64_t completion_ns() {
    if (batch_ns_ == 0) batch_ns_ = now_ns();
    return batch_ns_;
  }
  // Runs post_op until the provider accepts it, progressing through fn while it says EAGAIN.
  // post_op takes whether this post may carry FI_MORE (a --bw_method list's `list` says; false
  // outside a list, with list nullptr), or nothing where it never does. Once refused, the
  // retry must not carry FI_MORE (it rings the doorbell): list->more_follows is dropped, and
  // list->more_sent says whether the post that went through carried it. The post that goes
  // through at once is inline; a refused one retries out of line, so the test's post function
  // stays small enough to inline into the window loop (bench/README.md, "The window loop's
  // own work").
  template <typename Post, typename Fn>
  [[gnu::always_inline]] bool post(const char* what, Post&& post_op, Fn&& fn,
                                   PostList* list = nullptr) {
    const ssize_t ret = watched([&] { return call_post(post_op, list); });
    if (ret != 0) [[unlikely]] {
      if (!post_refused(what, ret, post_op, fn, list)) return false;
    }
    if (list != nullptr) list->more_sent = list->more_follows;
    return true;
  }
  // An operation's context from `pool`, progressing through fn until one is free; nullptr
  // (the session's error set) when progress fails.
  template <typename Fn>
  [[gnu::always_inline]] OpContext* context(ContextPool& pool, uint32_t slot, Fn&& fn) {
    OpContext* c = pool.acquire(slot);
    if (c == nullptr) [[unlikely]] {
      return wait_for_context(pool, slot, fn);
    }
    return c;
  }

  // False (the session's error set) when operations are in flight but nothing completed for
  // the timeout.
  bool not_stalled(int64_t now);
  void note_progress(int64_t now) { last_progress_ns_ = now; }
  // When a completion was last seen, as of `now`: completions since the previous look count
  // as progress at `now`. The clock is read by the callers' loops, never per completion (on
  // shm a ping-pong's round trip is a few clock reads long).
  int64_t last_progress_ns(int64_t now) {
    if (completions_ != completions_seen_) {
      completions_seen_ = completions_;
      last_progress_ns_ = now;
    }
    return last_progress_ns_;
  }

  // A call into the provider, under the client's stuck-call watch where there is one.
  template <typename Call>
  [[gnu::always_inline]] ssize_t watched(Call&& call) {
    StuckCallWatch* const watch = stuck_watch_.get();  // in a register across the call
    if (watch == nullptr) return call();
    watch->enter();
    ssize_t n = call();
    watch->leave();
    return n;
  }
  // The watch around calls that are not posts (closing may block on a dead peer as a post
  // can); nullptr where there is none.
  StuckCallWatch* call_watch() const { return stuck_watch_.get(); }

 private:
  template <typename Post>
  [[gnu::always_inline]] static ssize_t call_post(Post& post_op, const PostList* list) {
    if constexpr (std::is_invocable_v<Post&, bool>) {
      return post_op(list != nullptr && list->more_follows);
    } else {
      return post_op();
    }
  }
  // post()'s refused post (first result `ret`): retried, with progress between, until the
  // provider takes it (true; post() notes the list's more_sent), the peer or the deadline
  // ends the run, or the provider fails it.
  template <typename Post, typename Fn>
  [[gnu::noinline]] bool post_refused(const char* what, ssize_t ret, Post& post_op, Fn& fn,
                                      PostList* list) {
    bool counted = false;
    while (ret != 0) {
      if (ret != -FI_EAGAIN) return error_.fail(fi_status(what, ret));
      if (!counted && tx_pool.in_flight() > 1) ++posts_refused;
      counted = true;
      if (list != nullptr) list->more_follows = false;
      if (!progress(fn, 0)) return false;
      // A post refused again and again must not outlive the peer or the deadline.
      int64_t now = now_ns();
      if (!not_stalled(now) || !sync_.while_refused(now)) return false;
      ret = watched([&] { return call_post(post_op, list); });
    }
    return true;
  }
  // context()'s wait: progress until `pool` has a free context.
  template <typename Fn>
  [[gnu::noinline]] OpContext* wait_for_context(ContextPool& pool, uint32_t slot, Fn& fn) {
    OpContext* c = nullptr;
    while (c == nullptr) {
      if (!progress(fn, 0)) return nullptr;
      c = pool.acquire(slot);
    }
    return c;
  }

  TestContext& ctx_;
  SessionError& error_;
  PeerSync& sync_;
  FabricEndpoint* endpoint_ = nullptr;
  std::string provider_;
  // A client's watch on its calls into the provider (review N4: a client spun for minutes in
  // fi_write on the lock of a server's killed session process).
  std::unique_ptr<StuckCallWatch> stuck_watch_;
  std::optional<SignalsOffTable> signals_off_table_;
  int64_t last_progress_ns_ = 0;
  int64_t batch_ns_ = 0;           // completion_ns() of the batch progress() hands out
  uint64_t completions_ = 0;       // completions served, ever
  uint64_t completions_seen_ = 0;  // as of last_progress_ns_
};

}  // namespace fabperf
