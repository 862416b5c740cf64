// FabricSession: one side of a fabric test: endpoint, registered buffers, the peer, run control.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"
#include "engine/latency_loop.h"
#include "engine/run_limit.h"
#include "engine/stuck_call_watch.h"
#include "engine/test_context.h"
#include "fabric/cxi_controls.h"
#include "fabric/endpoint.h"
#include "fabric/memory.h"
#include "fabric/provider.h"
#include "fabric/test_buffer.h"
#include "fabric/window_defaults.h"

namespace fabperf {

// How often a passive side looks for the peer's end-of-test message.
inline constexpr int64_t kDoneCheckNs = 2'000'000;
// Blocking waits sleep at most this long, so the loops above stay responsive.
inline constexpr int kSliceMs = 10;

enum class OpKind : uint32_t { kTx, kRx };

// Per-operation context handed to libfabric; fi_context2 comes first because providers in
// FI_CONTEXT mode use that space.
struct OpContext {
  fi_context2 fi;
  OpKind kind;
  uint32_t slot;   // buffer slot the operation uses
  uint32_t index;  // position in its pool
};

// A fixed set of contexts, one per operation in flight; never allocates after init.
class ContextPool {
 public:
  void init(OpKind kind, size_t count);
  OpContext* acquire(uint32_t slot) {
    if (free_.empty()) return nullptr;
    OpContext* c = &contexts_[free_.back()];
    free_.pop_back();
    c->slot = slot;
    return c;
  }
  void release(OpContext* c) { free_.push_back(c->index); }
  size_t in_flight() const { return contexts_.size() - free_.size(); }
  size_t capacity() const { return contexts_.size(); }

 private:
  std::vector<OpContext> contexts_;
  std::vector<uint32_t> free_;
};

// How the rx slots start out: RMA targets are poisoned under --verify, so an unwritten byte is
// caught; read sources hold this side's pattern.
enum class RxInit { kZero, kPoison, kPattern };

// What a test needs: endpoint type, capabilities, buffers and operations in flight.
struct SessionNeeds {
  fi_ep_type ep_type = FI_EP_RDM;
  uint64_t caps = FI_MSG;
  bool delivery_complete = false;  // one-sided latency: completion means data at the target
  size_t tx_slots = 1;             // message-sized buffers for sending / RMA sources
  size_t rx_slots = 1;             // message-sized buffers for receiving / RMA targets
  size_t tx_window = 1;            // operations in flight
  size_t rx_window = 1;            // receives posted
  bool atomic = false;             // an atomic target and operand area
  RxInit rx_init = RxInit::kZero;
  // A bandwidth test of sends or writes: its window (tx_window, and the slots and receives
  // sized as it) and inject size follow the provider (window_choice) where --tx_depth is not
  // given; the client's choice goes to the server with its first exchange.
  std::optional<WindowedOp> windowed = std::nullopt;
};

// The buffer of a session: tx and rx slots of `stride` bytes (together under 1 MiB, or 1 GiB
// under --verify, halved until they fit: slots then serve several operations in flight, with
// the same pattern) and an atomic area. register_memory() allocates by it and admission counts
// by it.
struct BufferLayout {
  size_t tx_slots = 1, rx_slots = 1;
  size_t stride = 64;       // msg_size rounded up to 64
  size_t atomic_bytes = 0;  // per operation in flight: a target slot, operand, compare, result
  size_t atomic_slots = 1;
  size_t total() const { return (tx_slots + rx_slots) * stride + atomic_bytes; }
  static BufferLayout of(const SessionNeeds& needs, uint64_t msg_size, bool verify);
};

// What a session process holds beside its buffers over `provider` (the program, libfabric and
// the provider's own pools), the most it was measured to hold (fabric/session.cc); a provider
// not measured, or none named (the client's libfabric chooses), counts as the largest.
uint64_t provider_process_bytes(const std::string& provider);
// What the server's side of a fabric run holds: its buffer, and its session process beside it.
Needs fabric_needs(const SessionNeeds& needs, const RunOptions& opts);

// The cxi switches of a run of `spec` (fabric/cxi_controls.h): what the test does decides
// which IDC variable, HRP and restricted operations apply.
CxiControls cxi_controls_for(const TestSpec& spec, const SessionNeeds& needs,
                             const RunOptions& opts);

// One post's place in a --bw_method list, between run_window and the post function it calls
// (and FabricSession::post, which the post function hands it to). run_window says whether
// another operation of the same list follows this one at once: then the post may carry
// FI_MORE and leave the doorbell to the list's last, as the originals ring once a list. The
// post function says whether its post did carry FI_MORE: run_window counts a doorbell for
// each post that did not. A refused post (-FI_EAGAIN) rings: post() drops more_follows
// before the retry, and sets more_sent from it once the post goes through. Posts outside a
// list leave it as it starts, neither set.
struct PostList {
  bool more_follows = false;  // in: this post may carry FI_MORE
  bool more_sent = false;     // out: the post that went through carried FI_MORE
};

class FabricSession {
 public:
  // Chooses the provider (the client's choice is sent to the server), opens the endpoints,
  // connects (FI_EP_MSG) or fills the AV, registers memory and swaps region descriptors.
  static Result<std::unique_ptr<FabricSession>> establish(TestContext& ctx,
                                                          const SessionNeeds& needs);
  ~FabricSession();

  TestContext& ctx;
  size_t msg_size = 0;
  size_t stride = 0;  // distance between slots: the BufferLayout's, set with the buffer
  uint64_t warmup = 0;
  bool verify = false;
  bool access_recv = false;
  // A message fits the provider's inject size: fi_inject copies it at once and generates no
  // completion, the fastest small send the provider has (fi_pingpong uses it too; the CXI
  // tools call it IDC). Recorded in the run's info as "send".
  bool inject = false;
  // A windowed bandwidth test's window and inject size (SessionNeeds::windowed), and whether
  // its messages inject: msg_size fits both the choice's inject size and the provider's.
  WindowChoice window;
  bool inject_bw = false;
  uint8_t my_seed = 0, peer_seed = 0;  // patterns this side sends and expects

  FabricEndpoint& endpoint() { return *endpoint_; }
  fid_ep* ep() const { return endpoint_->ep(); }
  fi_addr_t peer() const { return peer_; }
  const FabricChoice& choice() const { return choice_; }
  void* desc() const { return mr_->desc(); }
  uint8_t* tx(size_t slot) const { return buffer_.data() + tx_offset_ + slot * stride; }
  uint8_t* rx(size_t slot) const { return buffer_.data() + rx_offset_ + slot * stride; }
  // The atomic area: atomic_slots() 64-byte targets (the originals spread a list over
  // 64-byte slots), then an operand, a compare operand and a result of 16 bytes per slot, so
  // operations in flight each have their own.
  size_t atomic_slots() const { return atomic_slots_; }
  uint8_t* atomic_target(size_t slot = 0) const {
    return buffer_.data() + atomic_offset_ + (slot % atomic_slots_) * 64;
  }
  uint8_t* atomic_operand(size_t slot = 0) const { return atomic_word(1, slot); }
  uint8_t* atomic_compare(size_t slot = 0) const { return atomic_word(2, slot); }
  uint8_t* atomic_result(size_t slot) const { return atomic_word(3, slot); }
  size_t tx_slots() const { return tx_slots_; }
  // Operations a windowed loop keeps in flight: the test's window, at most the provider's
  // transmit queue (a deeper window never fills, and posts spin on EAGAIN).
  size_t tx_window() const { return tx_pool.capacity(); }
  size_t rx_slots() const { return rx_slots_; }
  size_t peer_rx_slots() const { return peer_rx_slots_; }
  uint64_t remote_rx(size_t slot) const { return remote_->addr((slot % peer_rx_slots_) * stride); }
  uint64_t remote_atomic(size_t slot = 0) const {
    return remote_->addr(peer_atomic_offset_ + (slot % peer_atomic_slots_) * 64);
  }
  uint64_t remote_key() const { return remote_->key(); }
  bool has_remote_cq_data() const;

  ContextPool tx_pool;
  // Posts the provider refused (-FI_EAGAIN, then retried) while others of this side were in
  // flight, each counted once: where a windowed run's measured peak in flight stays below its
  // queue's size, these say the provider held back (a refusal with nothing in flight, as
  // while a connection sets up, is not counted).
  uint64_t posts_refused = 0;
  // The flags of a *msg post: the endpoint's own op_flags (what fi_write & co. use), and
  // FI_COMPLETION and FI_MORE.
  uint64_t more_flags() const {
    const fi_tx_attr* tx = endpoint_->info()->tx_attr;
    return (tx != nullptr ? tx->op_flags : 0) | FI_COMPLETION | FI_MORE;
  }
  ContextPool rx_pool;

  // Reads a batch of completions (blocking mode: sleeps up to slice_ms) and hands each to fn.
  // Returns false on an error completion (error() says which). The batch holds a whole
  // default window (tx_depth 128): a receiver that takes fewer per call than the provider
  // takes off the wire falls behind, and tcp;ofi_rxm then queues every message as unexpected
  // in a fresh buffer (a 64 B rdm_send_bw server grew 1 GB/s with 16 per call).
  static constexpr size_t kCqBatch = 128;
  template <typename Fn>
  bool progress(Fn&& fn, int slice_ms) {
    fi_cq_data_entry entries[kCqBatch];
    ssize_t n = watched([&] { return endpoint_->wait(entries, kCqBatch, slice_ms); });
    if (n < 0) {
      if (n == -FI_EAVAIL && endpoint_->discard_canceled()) return true;
      return fail(endpoint_->completion_error(n));
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
  // Runs post() until the provider accepts it, progressing through fn while it says EAGAIN.
  // A post of a --bw_method list hands its `list`: once refused, the retry must not carry
  // FI_MORE (it rings the doorbell), so its more_follows is dropped; post_op must carry
  // FI_MORE exactly where list->more_follows says, and more_sent says whether it did.
  template <typename Post, typename Fn>
  bool post(const char* what, Post&& post_op, Fn&& fn, PostList* list = nullptr) {
    bool refused = false;
    while (true) {
      ssize_t ret = watched(post_op);
      if (ret == 0) {
        // The post function posts with FI_MORE exactly where more_follows says it may.
        if (list != nullptr) list->more_sent = list->more_follows;
        return true;
      }
      if (ret != -FI_EAGAIN) return fail(fi_status(what, ret));
      if (!refused && tx_pool.in_flight() > 1) ++posts_refused;
      refused = true;
      if (list != nullptr) list->more_follows = false;
      if (!progress(fn, 0)) return false;
      // A post refused again and again must not outlive the peer or the deadline.
      int64_t now = now_ns();
      if (!not_stalled(now)) return false;
      if (!(ctx.role == Role::kClient ? periodic(now) : client_alive(now))) return false;
    }
  }
  // Sends tx slot `slot`: fi_inject where the message fits (then no completion will come, and
  // *completes is set false), else fi_send with a context from tx_pool, progressing through
  // fn until one is free. False on failure.
  template <typename Fn>
  bool send_slot(uint32_t slot, Fn&& fn, bool* completes) {
    *completes = !inject;
    if (inject) {
      return post(
          "fi_inject", [&] { return fi_inject(ep(), tx(slot), msg_size, peer_); }, fn);
    }
    OpContext* c = tx_pool.acquire(slot);
    while (c == nullptr) {
      if (!progress(fn, 0)) return false;
      c = tx_pool.acquire(slot);
    }
    return post(
        "fi_send", [&] { return fi_send(ep(), tx(slot), msg_size, desc(), peer_, c); }, fn);
  }
  // Posts a receive into rx slot `slot`, poisoned first under --verify unless the slot is an
  // RMA target (receives there only carry remote CQ data).
  template <typename Fn>
  bool post_recv(uint32_t slot, Fn&& fn, bool poison = true) {
    OpContext* c = rx_pool.acquire(slot);
    if (c == nullptr) return fail(Status::failed("internal: no receive context free"));
    if (verify && poison && !poison_rx(slot)) return false;
    return post(
        "fi_recv", [&] { return fi_recv(ep(), rx(slot), msg_size, desc(), peer_, c); }, fn);
  }

  // Measured-phase limits of the windowed loops: -n messages, else -t seconds from
  // start_clock() (latency loops keep theirs in run_latency_loop).
  void start_clock(int64_t now) { limit_.start(now); }
  bool limit_reached(uint64_t measured, int64_t now) const { return limit_.done(measured, now); }
  uint64_t count_limit() const { return limit_.count(); }
  // Client loops, every kPeerCheckNs: a failure the server reported, Ctrl-C (ends the
  // measured phase, not an error: stopped() turns true), and a heartbeat to the server, whose
  // passive side would otherwise not know the client still lives. False on failure.
  bool periodic(int64_t now);
  // periodic() as run_latency_loop's look at the peer.
  auto peer_check() {
    return [this](int64_t now) { return periodic(now) ? Status::success() : status(); };
  }
  // Server side, every wait on the client: sends this side's heartbeat when due, and fails
  // once nothing (a heartbeat included) has come from the client for the timeout: a stopped
  // or vanished client frees its slot.
  bool client_alive(int64_t now);
  // Either side's look at its peer where the peer owes heartbeats in every phase (a drain):
  // periodic() on the client, client_alive() on the server of a client that promised them.
  bool peer_alive(int64_t now);
  // A client waiting for the server's end message: its heartbeat when due, and the server's
  // silence, where it promised heartbeats (the message itself is left for the reader).
  bool waiting_on_server(int64_t now);
  bool stopped() const { return stopped_; }
  // False (and error() set) when operations are in flight but nothing completed for the
  // timeout.
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
  // Busy-polling (-cp1): a wait loop may look at the clock only every so many empty polls.
  bool busy_poll() const { return endpoint_->busy_poll(); }

  // End-of-test messages: each side sends its counts once its own operations are complete
  // and keeps serving completions until the peer's message arrives (see run_support.h).
  Status send_done(const nlohmann::json& counts);
  // Rate-limited, non-blocking: true once the peer's message is waiting.
  bool peer_message_waiting(int64_t now);
  Result<nlohmann::json> read_peer_done();
  // A message from the peer is waiting on the control connection (heartbeats aside), looked
  // at now (peer_message_waiting looks at most every kDoneCheckNs).
  bool control_message_waiting();

  bool fail(Status status) {
    if (error_.ok()) error_ = std::move(status);
    return false;
  }
  const Status& error() const { return error_; }
  // The first error, or Ok; the Status role functions return.
  Status status() const { return error_; }

  // The CPU's only ways into the buffers, which may be in GPU memory: memcpy in host memory,
  // the GPU runtime's copies otherwise. Each returns false (error() set) when a copy fails.
  bool put(uint8_t* at, const void* src, size_t len) {
    if (!on_gpu_) {
      std::memcpy(at, src, len);
      return true;
    }
    return gpu_copy(buffer_.write(at, src, len));
  }
  bool get(void* dst, const uint8_t* at, size_t len) {
    if (!on_gpu_) {
      std::memcpy(dst, at, len);
      return true;
    }
    return gpu_copy(buffer_.read(dst, at, len));
  }
  // [at, at + len) where the CPU can read it: `at` itself in host memory, else a copy (valid
  // until the next view). nullptr when the copy fails.
  const uint8_t* view(const uint8_t* at, size_t len) {
    if (!on_gpu_) return at;
    staging_.resize(std::max(staging_.size(), len));
    return get(staging_.data(), at, len) ? staging_.data() : nullptr;
  }
  bool on_gpu() const { return on_gpu_; }
  // tx slot `slot` gets this side's pattern; rx slot `slot` the complement of the peer's.
  bool fill_tx(size_t slot);
  bool poison_rx(size_t slot);
  bool poison_tx(size_t slot);  // a tx slot that receives (both sides reading)
  // Checks msg_size bytes at `data` (in the buffer) against the peer's pattern, skipping the
  // first `skip`; counts into verify_checked/verify_errors. False only when a copy fails.
  bool check_rx(const uint8_t* data, size_t len, size_t skip = 0);
  // True when rx slot `slot` holds the peer's pattern (false also when a copy fails).
  bool rx_holds_peer_pattern(size_t slot);
  // --access_recv: reads every received byte, as an application would.
  uint64_t touch(const uint8_t* data, size_t len);

 private:
  explicit FabricSession(TestContext& c) : ctx(c), limit_(c.opts) {}
  Status setup(const SessionNeeds& needs);
  // The steps of setup(), in its order.
  Status adopt_options();  // the run's options this session keeps, and the stuck-call watch
  // The provider both sides use (the server reads the client's first exchange into
  // `peer_hello`); the cxi switches cleared when it is not cxi.
  Status choose_provider(FabricRequest& request, const Status& cxi_env, nlohmann::json& peer_hello);
  // msg_size within the provider's limit (a default lowered to it, a given size refused).
  Status fit_message_size(const SessionNeeds& needs);
  void describe_choice(const SessionNeeds& needs, const std::string& cxi_note);  // stats info
  void choose_inject(const SessionNeeds& needs);  // inject and inject_bw
  void size_queues(const SessionNeeds& sized);    // tx_pool and rx_pool
  // A windowed test's needs at its chosen window (SessionNeeds::windowed); `needs` otherwise.
  SessionNeeds sized_needs(const SessionNeeds& needs, const nlohmann::json& peer_hello);
  // The client's window choice, for the server, added to its first exchange.
  void add_window(nlohmann::json& hello) const;
  Status open_connectionless(const FabricRequest& request, const SessionNeeds& needs,
                             nlohmann::json peer_hello);
  Status open_connected(const FabricRequest& request, const SessionNeeds& needs);
  Status register_memory(const SessionNeeds& needs);
  nlohmann::json describe_memory() const;
  Status adopt_peer_memory(const nlohmann::json& peer);
  Result<nlohmann::json> swap(const nlohmann::json& mine);
  bool gpu_copy(Status status) { return status.ok() || fail(std::move(status)); }
  // A call into the provider, under the client's stuck-call watch where there is one.
  template <typename Call>
  ssize_t watched(Call&& call) {
    if (!stuck_watch_) return call();
    stuck_watch_->enter();
    if (stuck_after_ > 0 && --stuck_after_ == 0) spin_for_good();
    ssize_t n = call();
    stuck_watch_->leave();
    return n;
  }
  // Test hook (tests/e2e/e2e_deadlines_test.cc): FABPERF_TEST_STUCK_CALL_AFTER=N makes the
  // client's Nth watched provider call spin for good, as libfabric shm did on a dead peer's
  // lock (review N4), which no run here reproduces on demand. Unset in normal use.
  [[noreturn]] static void spin_for_good();
  uint64_t stuck_after_ = 0;
  // msg_size bytes of a pattern (fill_pattern, poison_pattern) at `at`, through put().
  using PatternFn = void (*)(uint8_t*, size_t, uint8_t);
  bool write_pattern(uint8_t* at, PatternFn pattern, uint8_t seed);

  // A client's watch on its calls into the provider (review N4: a client spun for minutes in
  // fi_write on the lock of a server's killed session process); destroyed last.
  std::unique_ptr<StuckCallWatch> stuck_watch_;
  FabricChoice choice_;
  CxiControls cxi_;  // the cxi switches of this run (cleared of attributes off cxi)
  std::unique_ptr<FabricEndpoint> endpoint_;
  TestBuffer buffer_;
  bool on_gpu_ = false;
  std::vector<uint8_t> staging_;  // host copies of GPU memory, for view() and patterns
  std::unique_ptr<MemoryRegion> mr_;
  std::unique_ptr<RemoteRegion> remote_;
  fi_addr_t peer_ = FI_ADDR_UNSPEC;
  size_t tx_slots_ = 0, rx_slots_ = 0, peer_rx_slots_ = 1;
  size_t tx_offset_ = 0, rx_offset_ = 0, atomic_offset_ = 0, peer_atomic_offset_ = 0;
  size_t atomic_slots_ = 1, peer_atomic_slots_ = 1;
  uint8_t* atomic_word(size_t part, size_t slot) const {
    return buffer_.data() + atomic_offset_ + atomic_slots_ * 64 +
           ((part - 1) * atomic_slots_ + slot % atomic_slots_) * 16;
  }
  RunLimit limit_;
  int64_t next_check_ns_ = 0;
  int64_t next_done_check_ns_ = 0;
  int64_t next_alive_check_ns_ = 0;
  int64_t last_progress_ns_ = 0;
  int64_t batch_ns_ = 0;           // completion_ns() of the batch progress() hands out
  uint64_t completions_ = 0;       // completions served, ever
  uint64_t completions_seen_ = 0;  // as of last_progress_ns_
  bool stopped_ = false;
  Status error_;
};

}  // namespace fabperf
