// Parallel streams: threads, pinning, supervision and the summing of per-stream counters.
#include "engine/streams.h"

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "core/private_fds.h"
#include "core/signals.h"
#include "engine/affinity.h"
#include "net/control.h"
#include "net/socket.h"

namespace fabperf {

namespace {

// The supervisor sleeps in poll() on the control channel and a wake-up eventfd, which each
// stream writes when it ends and the signal thread writes at ^C; it wakes on its own only at an
// --interval boundary and every kSuperviseMs, for a stop request that comes without a wake-up
// (a server's slot deadline, a cluster agent's stop). Under taskset it shares the measuring
// threads' CPU: a wake-up every 2 ms, as it was, is 500 preemptions a second of the loop it
// supervises.
constexpr int kSuperviseMs = 50;

// Writes to an eventfd never block or fail but for a full counter, which a few writes never
// reach.
void wake(int fd) {
  uint64_t one = 1;
  if (fd >= 0) (void)!write(fd, &one, sizeof one);
}

struct StreamSlot {
  StreamWorker worker;
  Status status = Status::success();
  // The stream thread's CPU time and switches as it started and ended (getrusage).
  ThreadSched sched_start, sched_end;
  // Where its measured figures start: its start, or where --omit's seconds ended for it.
  const ThreadSched& sched_from() const {
    return worker.measured_from_ns != 0 ? worker.sched_at_omit : sched_start;
  }
};

}  // namespace

int stream_count(const RunOptions& opts) {
  return static_cast<int>(std::max<uint64_t>(1, opts.streams));
}

StreamSender stream_sender(const RunOptions& opts, int streams, std::string* why) {
  const std::string& mode = opts.stream_sender;
  auto say = [&](StreamSender s, const std::string& text) {
    if (why != nullptr) *why = text;
    return s;
  };
  if (mode == "threads") return say(StreamSender::kThreads, "threads (--stream_sender)");
  if (mode == "round_robin") {
    return say(StreamSender::kRoundRobin, "round_robin (--stream_sender)");
  }
  if (streams < 2) return say(StreamSender::kThreads, "threads (one stream)");
  const int cpus = cpus_for_threads(opts.cpu_affinity, streams);
  std::string text = std::to_string(streams) + " streams on " + std::to_string(cpus) + " CPU" +
                     (cpus == 1 ? "" : "s");
  if (cpus < streams) return say(StreamSender::kRoundRobin, "round_robin (auto: " + text + ")");
  return say(StreamSender::kThreads, "threads (auto: " + text + ")");
}

namespace {

// Jitter, a gauge, is the streams' mean.
double mean_jitter(double sum, int measured) { return measured > 0 ? sum / measured : -1.0; }

// One run of run_streams or run_streams_round_robin: `thread_count` measuring threads (n, or
// one for every stream), the supervisor on the calling thread, and the summing.
class StreamRun {
 public:
  StreamRun(TestContext& ctx, int n, const StreamBody& body, const RoundRobinBody& all,
            PeerMessage peer_message, const StreamDescriptors& descriptors)
      : ctx_(ctx),
        n_(std::max(n, 1)),
        one_thread_(static_cast<bool>(all)),
        thread_count_(one_thread_ ? 1 : n_),
        body_(body),
        all_(all),
        descriptors_(descriptors),
        running_(thread_count_),
        // Without an eventfd (EMFILE) the supervisor still ends: its poll times out every
        // period. Shared with the signal callback, which the signal thread may run from its own
        // copy after remove_stop_callback: the descriptor stays open (not reused) while any
        // copy exists.
        woken_(std::make_shared<Fd>(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK))),
        wake_fd_(woken_->get()),
        slots_(static_cast<size_t>(n_)) {
    peer_message_ = peer_message;
    if (peer_message_ == PeerMessage::kByRole) {
      peer_message_ = ctx.role == Role::kClient ? PeerMessage::kFailure : PeerMessage::kEndOfData;
    }
  }

  Status run() {
    const int on_signal = add_stop_callback([woken = woken_] { wake(woken->get()); });
    ctx_.mark_start();
    start_ = now_ns();
    // --omit S: the first S seconds run but are not measured; the supervisor marks the
    // measured phase's start (CPU, host noise, intervals) as they end.
    omit_until_ = ctx_.opts.omit > 0 ? start_ + static_cast<int64_t>(ctx_.opts.omit * 1e9) : 0;
    omit_pending_ = omit_until_ != 0;
    launch();
    supervise();
    for (std::thread& t : threads_) t.join();
    remove_stop_callback(on_signal);
    ctx_.mark_end();
    sum_counts();
    sum_noise();
    return outcome();
  }

 private:
  void launch() {
    for (int i = 0; i < n_; ++i) {
      StreamWorker& w = slots_[static_cast<size_t>(i)].worker;
      w.index = i;
      w.start_ns = start_;
      w.stop_ = &stop_;
      w.peer_done_ = &peer_done_;
      w.live_ = ctx_.interval.enabled();
      w.omit_until_ns = omit_until_;
    }
    threads_.reserve(static_cast<size_t>(thread_count_));
    for (int i = 0; i < thread_count_; ++i) threads_.emplace_back([this, i] { measure(i); });
  }

  // Thread i serves stream i, or (one thread) every stream, whose figures it keeps in stream
  // 0's slot where they are not per stream (status, CPU time).
  void measure(int i) {
    StreamSlot& s = slots_[static_cast<size_t>(i)];
    std::optional<PrivateFds> own_fds;  // dropped as the thread ends, after its wake()
    if (descriptors_) {
      std::vector<int> keep;
      for (int j = one_thread_ ? 0 : i; j < (one_thread_ ? n_ : i + 1); ++j) {
        std::vector<int> fds = descriptors_(j);
        keep.insert(keep.end(), fds.begin(), fds.end());
      }
      keep.push_back(wake_fd_);
      own_fds.emplace(std::move(keep));
    }
    s.status = apply_cpu_affinity(ctx_.opts.cpu_affinity, i);
    s.sched_start = ThreadSched::of_this_thread();
    if (s.status.ok()) {
      if (one_thread_) {
        std::vector<StreamWorker*> workers;
        for (StreamSlot& each : slots_) workers.push_back(&each.worker);
        s.status = all_(workers);
      } else {
        s.status = body_(s.worker);
      }
    }
    const int64_t end = now_ns();
    for (StreamSlot& each : slots_) {
      if ((one_thread_ || &each == &s) && each.worker.end_ns == 0) each.worker.end_ns = end;
    }
    s.sched_end = ThreadSched::of_this_thread();
    if (!s.status.ok()) stop_.store(true);  // one stream failing ends the others
    running_.fetch_sub(1);
    wake(wake_fd_);
  }

  // What the streams have published so far, for an --interval line.
  IntervalCounts published() const {
    IntervalCounts sum;
    double jitter = 0;
    int jittered = 0;
    for (const StreamSlot& s : slots_) {
      IntervalCounts c = s.worker.published();
      sum.send_bytes += c.send_bytes;
      sum.send_msgs += c.send_msgs;
      sum.recv_bytes += c.recv_bytes;
      sum.recv_msgs += c.recv_msgs;
      sum.lost += c.lost;
      if (c.jitter_ns >= 0) {
        jitter += c.jitter_ns;
        ++jittered;
      }
    }
    sum.jitter_ns = mean_jitter(jitter, jittered);
    return sum;
  }

  // Supervises until every thread ended: ^C, --omit's end, the intervals, and the control
  // channel. To a sender anything the peer sends now is its failure; to a receiver it is the
  // sender's end-of-test message, left for the caller.
  void supervise() {
    while (running_.load() > 0) {
      if (ctx_.stop_requested()) {
        stop_.store(true);
        // A client stopped early (^C) tells the server, so a server that sends (-R, two-way)
        // stops too, rather than the client's receiver waiting out the server's -t.
        if (ctx_.role == Role::kClient && !told_peer_) {
          told_peer_ = true;
          ctx_.control.send_stop().ignore_error();  // a gone server: the streams find out
        }
      }
      const int wait_ms = until_next_event();
      // The server's heartbeats tell the client it still runs (a stopped server's client ends
      // its run within its -to, review N8); the client gives up on a silent one.
      if (ctx_.role == Role::kServer) {
        ctx_.control.heartbeat(now_ns()).ignore_error();  // a gone client: the streams find out
      } else if (watch_control_ && peer_status_.ok()) {
        peer_status_ = ctx_.control.alive(now_ns());
        if (!peer_status_.ok()) {
          stop_.store(true);
          watch_control_ = false;
        }
      }
      wait_and_read(wait_ms);
    }
  }

  // Ends --omit's seconds and ticks the intervals that are due; the wait until the next.
  int until_next_event() {
    int64_t next_event = INT64_MAX;
    const int64_t now = now_ns();
    if (omit_pending_) {
      if (now >= omit_until_) {
        // The streams start their figures at their next clock read; the intervals from 0.
        omit_pending_ = false;
        ctx_.mark_start();
      } else {
        next_event = omit_until_;
      }
    }
    if (ctx_.interval.enabled() && !omit_pending_) {
      if (ctx_.interval.due(now)) ctx_.interval.tick(now, published(), nullptr);
      next_event = ctx_.interval.next_due_ns();
    }
    if (next_event - now >= int64_t{kSuperviseMs} * 1000000) return kSuperviseMs;
    return static_cast<int>(std::max<int64_t>(0, (next_event - now + 999999) / 1000000));
  }

  void wait_and_read(int wait_ms) {
    pollfd pfd[2] = {{wake_fd_, POLLIN, 0}, {ctx_.control.fd(), POLLIN, 0}};
    const int ready = poll(pfd, watch_control_ ? 2 : 1, wait_ms);
    if (ready > 0 && (pfd[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      (void)!read(wake_fd_, &count, sizeof count);
    }
    if (ready > 0 && watch_control_ && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      // Heartbeats are taken here: the client's stop ends this side as its time would.
      const bool message = ctx_.control.message_waiting();
      if (ctx_.control.peer_stopped()) stop_.store(true);
      if (message) {
        watch_control_ = false;
        if (peer_message_ == PeerMessage::kFailure) {
          peer_status_ = ctx_.check_peer();
          stop_.store(true);
        } else {
          peer_done_.store(true);
        }
      }
    }
  }

  // The slots whose thread's CPU time and switches were taken: every stream's, or (one thread
  // for every stream) stream 0's.
  bool threaded(const StreamSlot& s) const { return !one_thread_ || &s == &slots_.front(); }

  // What a stream counted after --omit's seconds (all of it without --omit; nothing for a
  // stream that ended inside them), with its lost messages.
  StreamCounters measured(const StreamSlot& s, uint64_t* lost) const {
    StreamCounters c = s.worker.counters;
    *lost = s.worker.lost_msgs;
    if (omit_until_ == 0) return c;
    const StreamCounters& o = s.worker.omitted;
    const bool passed = s.worker.measured_from_ns != 0;
    c.send_bytes = passed ? c.send_bytes - o.send_bytes : 0;
    c.send_msgs = passed ? c.send_msgs - o.send_msgs : 0;
    c.recv_bytes = passed ? c.recv_bytes - o.recv_bytes : 0;
    c.recv_msgs = passed ? c.recv_msgs - o.recv_msgs : 0;
    *lost = passed ? *lost - s.worker.omitted_lost : 0;
    return c;
  }

  // The streams' counters, times and CPU into the run's figures.
  void sum_counts() {
    SideStats& total = ctx_.stats;
    // The measured phase starts at the common start, or where --omit's seconds ended.
    const int64_t measured_start = omit_until_ != 0 ? omit_until_ : start_;
    int64_t last_end = measured_start, user_ns = 0, kernel_ns = 0;
    double jitter = 0;
    int jittered = 0;
    for (const StreamSlot& s : slots_) {
      if (s.worker.jitter_ns >= 0) {
        jitter += s.worker.jitter_ns;
        ++jittered;
      }
      uint64_t lost = 0;
      const StreamCounters c = measured(s, &lost);
      total.send_bytes += c.send_bytes;
      total.send_msgs += c.send_msgs;
      total.recv_bytes += c.recv_bytes;
      total.recv_msgs += c.recv_msgs;
      total.lost_msgs += lost;
      total.send_errors += s.worker.send_errors;
      last_end = std::max(last_end, s.worker.end_ns);
      if (threaded(s)) {
        user_ns += s.sched_end.user_ns - s.sched_from().user_ns;
        kernel_ns += s.sched_end.sys_ns - s.sched_from().sys_ns;
      }
      if (n_ > 1) {
        StreamCounters timed = c;
        if (c.send_bytes > 0) timed.send_time_ns = s.worker.end_ns - measured_start;
        if (c.recv_bytes > 0) timed.recv_time_ns = s.worker.end_ns - measured_start;
        total.streams.push_back(timed);
      }
    }
    total.jitter_ns = mean_jitter(jitter, jittered);
    ctx_.interval.finish(last_end, IntervalCounts::of(total), nullptr);
    if (total.send_bytes > 0) total.send_time_ns = last_end - measured_start;
    if (total.recv_bytes > 0) total.recv_time_ns = last_end - measured_start;
    // The measuring threads' own CPU, summed (percent of one CPU: N busy streams show N*100).
    if (total.real_time_ns > 0) {
      const double real = static_cast<double>(total.real_time_ns);
      total.cpu.proc_user = static_cast<double>(user_ns) / real * 100;
      total.cpu.proc_kernel = static_cast<double>(kernel_ns) / real * 100;
      total.cpu.proc_used = total.cpu.proc_user + total.cpu.proc_kernel;
    }
  }

  // Host noise: the measuring threads' own switches and CPU waits, summed (the supervisor's
  // are not the measurement's); every stream spins with -cp1.
  void sum_noise() {
    HostNoise& noise = ctx_.stats.noise;
    noise.threads = static_cast<uint32_t>(thread_count_);
    noise.involuntary = noise.voluntary = 0;
    double wait_s = 0;
    bool wait_known = true;
    for (const StreamSlot& s : slots_) {
      if (!threaded(s)) continue;
      const ThreadSched& from = s.sched_from();
      noise.involuntary += s.sched_end.involuntary - from.involuntary;
      noise.voluntary += s.sched_end.voluntary - from.voluntary;
      if (from.wait_ns < 0 || s.sched_end.wait_ns < from.wait_ns) {
        wait_known = false;
      } else {
        wait_s += static_cast<double>(s.sched_end.wait_ns - from.wait_ns) * 1e-9;
      }
    }
    noise.wait_s = wait_known ? wait_s : -1;
    noise.pollers = ctx_.opts.cq_poll ? static_cast<uint32_t>(thread_count_) : 0;
    // Pinned with -ca N, stream i runs on CPU N+i alone: the streams have n CPUs (at most the
    // host's); unpinned, the supervisor's set.
    if (!ctx_.opts.cpu_affinity.empty() && ctx_.opts.cpu_affinity != "any") {
      noise.cpus_allowed = std::min<uint32_t>(static_cast<uint32_t>(thread_count_),
                                              std::max<uint32_t>(noise.cpus_online, 1));
    }
  }

  Status outcome() const {
    if (!peer_status_.ok()) return peer_status_;
    for (const StreamSlot& s : slots_) {
      if (s.status.ok()) continue;
      return n_ > 1 && !one_thread_ ? s.status.prefixed("stream " + std::to_string(s.worker.index))
                                    : s.status;
    }
    return Status::success();
  }

  TestContext& ctx_;
  const int n_;
  const bool one_thread_;
  const int thread_count_;
  const StreamBody body_;
  const RoundRobinBody all_;
  const StreamDescriptors descriptors_;
  PeerMessage peer_message_;
  std::atomic<bool> stop_{false}, peer_done_{false};
  std::atomic<int> running_;
  std::shared_ptr<Fd> woken_;
  const int wake_fd_;
  std::vector<StreamSlot> slots_;
  std::vector<std::thread> threads_;
  int64_t start_ = 0, omit_until_ = 0;
  bool omit_pending_ = false;
  Status peer_status_ = Status::success();
  bool watch_control_ = true;
  bool told_peer_ = false;
};

}  // namespace

Status run_streams(TestContext& ctx, int n, const StreamBody& body, PeerMessage peer_message,
                   const StreamDescriptors& descriptors) {
  return StreamRun(ctx, n, body, nullptr, peer_message, descriptors).run();
}

Status run_streams_round_robin(TestContext& ctx, int n, const RoundRobinBody& body,
                               PeerMessage peer_message, const StreamDescriptors& descriptors) {
  return StreamRun(ctx, n, nullptr, body, peer_message, descriptors).run();
}

}  // namespace fabperf
