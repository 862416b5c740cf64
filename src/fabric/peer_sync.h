// The run clock and peer sync of a fabric session: the measured phase's limits (-n, -t), the
// looks at the peer (heartbeats, its failures, Ctrl-C, its silence) and the end-of-test
// messages on the control connection. No provider calls: what it knows of the peer comes over
// the control connection.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>

#include "core/status.h"
#include "engine/latency_loop.h"
#include "engine/run_limit.h"
#include "engine/test_context.h"
#include "fabric/session_error.h"

namespace fabperf {

// How often a passive side looks for the peer's end-of-test message.
inline constexpr int64_t kDoneCheckNs = 2'000'000;
// Blocking waits sleep at most this long, so the loops above stay responsive.
inline constexpr int kSliceMs = 10;

class PeerSync {
 public:
  PeerSync(TestContext& ctx, SessionError& error) : ctx_(ctx), error_(error), limit_(ctx.opts) {}
  PeerSync(const PeerSync&) = delete;
  PeerSync& operator=(const PeerSync&) = delete;

  uint64_t warmup = 0;  // operations before the measured phase

  // The session is up at `now`: the first look at the peer is due a period later.
  void start(int64_t now) { next_check_ns_ = now + kPeerCheckNs; }
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
    return [this](int64_t now) { return periodic(now) ? Status::success() : error_.status(); };
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
  // What a post refused again and again looks at: the client's periodic look, the server's
  // look at its client.
  bool while_refused(int64_t now) {
    return ctx_.role == Role::kClient ? periodic(now) : client_alive(now);
  }
  bool stopped() const { return stopped_; }
  // A run with a start barrier (bi-directional, --bw_method lists): the peer's word may come
  // whenever its warm-up ends, before this side looks for it (during its own warm-up, a post
  // refused, or between a loop's look at the control connection and periodic()). Until
  // read_peer_done() takes it, periodic() leaves a message waiting for the loop that reads it
  // (an ERROR among them: that reader reports it) and looks only at heartbeats and silence.
  void expect_word() { word_due_ = true; }

  // End-of-test messages: each side sends its counts once its own operations are complete
  // and keeps serving completions until the peer's message arrives (see run_support.h).
  Status send_done(const nlohmann::json& counts);
  // Rate-limited, non-blocking: true once the peer's message is waiting.
  bool peer_message_waiting(int64_t now);
  Result<nlohmann::json> read_peer_done();
  // A message from the peer is waiting on the control connection (heartbeats aside), looked
  // at now (peer_message_waiting looks at most every kDoneCheckNs).
  bool control_message_waiting();

 private:
  TestContext& ctx_;
  SessionError& error_;
  RunLimit limit_;
  int64_t next_check_ns_ = 0;
  int64_t next_done_check_ns_ = 0;
  int64_t next_alive_check_ns_ = 0;
  bool stopped_ = false;
  bool word_due_ = false;  // expect_word() until read_peer_done()
};

}  // namespace fabperf
