// Parallel streams (--streams N): one measuring thread per data connection or endpoint, and a
// supervisor on the calling thread that watches the clock's end, ^C and the control channel.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/interval.h"
#include "engine/side_stats.h"
#include "engine/test_context.h"
#include "stats/host_noise.h"

namespace fabperf {

// What one stream's thread owns and sees. Its counters are its own: nothing is shared on the
// hot path, the engine sums them after the threads are joined.
struct StreamWorker {
  int index = 0;
  StreamCounters counters;
  uint64_t lost_msgs = 0;
  uint64_t send_errors = 0;
  double jitter_ns = -1;  // a paced UDP receiver's RFC 3550 jitter (-1: not measured)
  int64_t start_ns = 0;   // the common start of every stream (CLOCK_MONOTONIC_RAW), --omit's
                          // seconds included
  int64_t end_ns = 0;     // set by the body: its last send or receive; 0 means "when it returned"

  // The supervisor says end now: the peer failed, ^C, or another stream failed.
  bool stopping() const { return stop_->load(std::memory_order_relaxed); }
  // Server side: the client's end-of-test message is waiting on the control channel (the
  // end marker of an unreliable stream may have been lost).
  bool peer_said_done() const { return peer_done_->load(std::memory_order_relaxed); }

  // --interval: makes the counters readable by the supervisor, which sums every stream's at
  // an interval boundary. Relaxed stores by the one writer: plain moves, no system call. A run
  // without --interval has no reader, and its loops make no stores (run_streams says which):
  // five stores a message were measurable beside a 64-byte datagram's ~3 us (bench/README.md).
  // While --omit's first seconds run nothing is shown; after them, what was counted since.
  void publish() {
    if (!live_ || omitting()) return;
    shown_[0].store(counters.send_bytes - omitted.send_bytes, std::memory_order_relaxed);
    shown_[1].store(counters.send_msgs - omitted.send_msgs, std::memory_order_relaxed);
    shown_[2].store(counters.recv_bytes - omitted.recv_bytes, std::memory_order_relaxed);
    shown_[3].store(counters.recv_msgs - omitted.recv_msgs, std::memory_order_relaxed);
    shown_[4].store(lost_msgs - omitted_lost, std::memory_order_relaxed);
    shown_jitter_.store(static_cast<int64_t>(jitter_ns), std::memory_order_relaxed);
  }

  // --omit S (iperf3 -O): what the stream counted until its first clock read past
  // omit_until_ns is left out of its figures, and its measured span starts at that read
  // (measured_from_ns). The loops call pass_omit with the clock they already read.
  int64_t omit_until_ns = 0;  // 0: nothing omitted
  int64_t measured_from_ns = 0;
  StreamCounters omitted;
  uint64_t omitted_lost = 0;
  ThreadSched sched_at_omit;  // the thread's CPU and switches there (its figures start there)
  bool omitting() const { return omit_until_ns != 0 && measured_from_ns == 0; }
  void pass_omit(int64_t now) {
    if (omitting() && now >= omit_until_ns) {
      omitted = counters;
      omitted_lost = lost_msgs;
      measured_from_ns = now;
      sched_at_omit = ThreadSched::of_this_thread();
    }
  }
  IntervalCounts published() const {
    return {shown_[0].load(std::memory_order_relaxed),
            shown_[1].load(std::memory_order_relaxed),
            shown_[2].load(std::memory_order_relaxed),
            shown_[3].load(std::memory_order_relaxed),
            shown_[4].load(std::memory_order_relaxed),
            static_cast<double>(shown_jitter_.load(std::memory_order_relaxed))};
  }

  bool live_ = false;  // set by run_streams: --interval reads the published counters
  const std::atomic<bool>* stop_ = nullptr;
  const std::atomic<bool>* peer_done_ = nullptr;
  std::atomic<uint64_t> shown_[5] = {};
  std::atomic<int64_t> shown_jitter_{-1};
};

// One stream's measured loop. Set-up (connections, endpoints, buffers) is done before
// run_streams so every stream starts together; the body only moves data.
using StreamBody = std::function<Status(StreamWorker&)>;

// The --streams value of a parameter set (1 where the test does not take the option).
int stream_count(const RunOptions& opts);

// Runs body on `n` threads, one per stream. A thread is pinned to CPU c+i (modulo the CPUs
// online) when cpu_affinity is a number c, else it inherits the caller's CPU set ("any": all).
// Brackets the run with ctx.mark_start/mark_end (with --omit, mark_start again as its seconds
// end, and every stream's omitted counts subtracted) and fills ctx.stats: the summed counters,
// send/recv intervals from the common start to the last stream's end, the per-stream counters
// (when n > 1) and proc_cpus_* as the sum of the streams' threads. Returns the first failure.
// With --interval the supervisor closes each interval from the counters the bodies publish()
// (the sum of the streams), and the last one from the summed totals. (The socket tests use it;
// the fabric tests take no --streams.)
//
// `peer_message`: what a control message from the peer means while the streams run. A side
// that only sends takes it for the peer's failure and stops; a side that receives takes it for
// the sender's end-of-test message (peer_said_done). By role: the client sends, the server
// receives (a reversed or two-way socket test says which). Heartbeats are no message: a
// client's stop heartbeat (^C) ends the server's side as its time would, and a client whose
// run is stopped sends one.
//
// `descriptors`: where given, the descriptors stream i's body uses (its data link's). Each
// stream's thread then runs on a private copy of the descriptor table holding those alone
// (core/private_fds.h): its system calls borrow the socket's file rather than take a
// reference each time. The body must then use no descriptor but those, and open none that
// another thread uses.
enum class PeerMessage { kByRole, kFailure, kEndOfData };
using StreamDescriptors = std::function<std::vector<int>(int stream)>;
Status run_streams(TestContext& ctx, int n, const StreamBody& body,
                   PeerMessage peer_message = PeerMessage::kByRole,
                   const StreamDescriptors& descriptors = nullptr);

// --stream_sender: how a side sends its streams. kThreads: a thread per stream (run_streams).
// kRoundRobin: one thread writes a whole message to each stream in turn, as iperf3 3.12's
// sender does: while it blocks on one socket the others drain, and on one host the receiver's
// CPU carries part of the TCP path (ACK processing sends the queued data), where a thread per
// stream on one CPU keeps it on the sender's (bench/README.md).
enum class StreamSender { kThreads, kRoundRobin };
// The sender a run takes: --stream_sender's, or for "auto" round_robin where this side's
// sending threads would share CPUs (fewer CPUs in its affinity mask, or its -ca pin, than
// streams) and a thread per stream otherwise. `why` (if given) says which and why, for -v and
// JSON.
StreamSender stream_sender(const RunOptions& opts, int streams, std::string* why = nullptr);

// One thread for every stream: body(workers) moves every stream's data, counting into each
// worker's counters and setting its end_ns; the rest as run_streams (supervision, summing,
// per-stream figures). The thread's private descriptor table holds every stream's.
using RoundRobinBody = std::function<Status(std::vector<StreamWorker*>& workers)>;
Status run_streams_round_robin(TestContext& ctx, int n, const RoundRobinBody& body,
                               PeerMessage peer_message = PeerMessage::kByRole,
                               const StreamDescriptors& descriptors = nullptr);

}  // namespace fabperf
