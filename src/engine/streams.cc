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
#include "engine/affinity.h"
#include "core/signals.h"
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

int64_t thread_cpu_ns(bool kernel) {
  rusage ru{};
  if (getrusage(RUSAGE_THREAD, &ru) != 0) return 0;
  const timeval& tv = kernel ? ru.ru_stime : ru.ru_utime;
  return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

struct StreamSlot {
  StreamWorker worker;
  Status status = Status::Ok();
  int64_t user_ns = 0, kernel_ns = 0;
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

// run_streams and run_streams_round_robin: `threads` measuring threads (n, or one for every
// stream), the supervisor on the calling thread, and the summing.
Status run_stream_threads(TestContext& ctx, int n, const StreamBody& body,
                          const RoundRobinBody& all, PeerMessage peer_message,
                          const StreamDescriptors& descriptors) {
  if (n < 1) n = 1;
  const bool one_thread = static_cast<bool>(all);
  const int thread_count = one_thread ? 1 : n;
  if (peer_message == PeerMessage::kByRole) {
    peer_message = ctx.role == Role::kClient ? PeerMessage::kFailure : PeerMessage::kEndOfData;
  }
  std::atomic<bool> stop{false}, peer_done{false};
  std::atomic<int> running{thread_count};
  // Without an eventfd (EMFILE) the supervisor still ends: its poll times out every period.
  // Shared with the signal callback, which the signal thread may run from its own copy after
  // remove_stop_callback: the descriptor stays open (not reused) while any copy exists.
  auto woken = std::make_shared<Fd>(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
  const int wake_fd = woken->get();
  const int on_signal = add_stop_callback([woken] { wake(woken->get()); });
  std::vector<StreamSlot> slots(static_cast<size_t>(n));
  ctx.mark_start();
  const int64_t start = now_ns();
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(thread_count));
  for (int i = 0; i < n; ++i) {
    StreamSlot& slot = slots[static_cast<size_t>(i)];
    slot.worker.index = i;
    slot.worker.start_ns = start;
    slot.worker.stop_ = &stop;
    slot.worker.peer_done_ = &peer_done;
    slot.worker.live_ = ctx.interval.enabled();
  }
  for (int i = 0; i < thread_count; ++i) {
    // Thread i serves stream i, or (one thread) every stream, whose figures it keeps in
    // stream 0's slot where they are not per stream (status, CPU time).
    threads.emplace_back([&, i, slot_ptr = &slots[static_cast<size_t>(i)]] {
      StreamSlot& s = *slot_ptr;
      std::optional<PrivateFds> own_fds;  // dropped as the thread ends, after its wake()
      if (descriptors) {
        std::vector<int> keep;
        for (int j = one_thread ? 0 : i; j < (one_thread ? n : i + 1); ++j) {
          std::vector<int> fds = descriptors(j);
          keep.insert(keep.end(), fds.begin(), fds.end());
        }
        keep.push_back(wake_fd);
        own_fds.emplace(std::move(keep));
      }
      s.status = apply_cpu_affinity(ctx.opts.cpu_affinity, i);
      int64_t user0 = thread_cpu_ns(false), kernel0 = thread_cpu_ns(true);
      if (s.status.ok()) {
        if (one_thread) {
          std::vector<StreamWorker*> workers;
          for (StreamSlot& each : slots) workers.push_back(&each.worker);
          s.status = all(workers);
        } else {
          s.status = body(s.worker);
        }
      }
      const int64_t end = now_ns();
      for (StreamSlot& each : slots) {
        if ((one_thread || &each == &s) && each.worker.end_ns == 0) each.worker.end_ns = end;
      }
      s.user_ns = thread_cpu_ns(false) - user0;
      s.kernel_ns = thread_cpu_ns(true) - kernel0;
      if (!s.status.ok()) stop.store(true);  // one stream failing ends the others
      running.fetch_sub(1);
      wake(wake_fd);
    });
  }
  // Supervise: ^C, and the control channel. To a sender anything the peer sends now is its
  // failure; to a receiver it is the sender's end-of-test message, left for the caller.
  Status peer_status = Status::Ok();
  bool watch_control = true;
  auto published = [&] {
    IntervalCounts sum;
    for (const StreamSlot& s : slots) {
      IntervalCounts c = s.worker.published();
      sum.send_bytes += c.send_bytes;
      sum.send_msgs += c.send_msgs;
      sum.recv_bytes += c.recv_bytes;
      sum.recv_msgs += c.recv_msgs;
      sum.lost += c.lost;
    }
    return sum;
  };
  bool told_peer = false;
  while (running.load() > 0) {
    if (ctx.stop_requested()) {
      stop.store(true);
      // A client stopped early (^C) tells the server, so a server that sends (-R, two-way)
      // stops too, rather than the client's receiver waiting out the server's -t.
      if (ctx.role == Role::kClient && !told_peer) {
        told_peer = true;
        ctx.control.send_stop().IgnoreError();  // a gone server: the streams find out
      }
    }
    int wait_ms = kSuperviseMs;
    if (ctx.interval.enabled()) {
      int64_t now = now_ns();
      if (ctx.interval.due(now)) ctx.interval.tick(now, published(), nullptr);
      int64_t until = ctx.interval.next_due_ns() - now;
      if (until < int64_t{kSuperviseMs} * 1000000) {
        wait_ms = static_cast<int>(std::max<int64_t>(0, (until + 999999) / 1000000));
      }
    }
    pollfd pfd[2] = {{wake_fd, POLLIN, 0}, {ctx.control.fd(), POLLIN, 0}};
    int ready = poll(pfd, watch_control ? 2 : 1, wait_ms);
    if (ready > 0 && (pfd[0].revents & POLLIN) != 0) {
      uint64_t count = 0;
      (void)!read(wake_fd, &count, sizeof count);
    }
    if (ready > 0 && watch_control && (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      // Heartbeats are taken here: the client's stop ends this side as its time would.
      const bool message = ctx.control.message_waiting();
      if (ctx.control.peer_stopped()) stop.store(true);
      if (message) {
        watch_control = false;
        if (peer_message == PeerMessage::kFailure) {
          peer_status = ctx.check_peer();
          stop.store(true);
        } else {
          peer_done.store(true);
        }
      }
    }
  }
  for (std::thread& t : threads) t.join();
  remove_stop_callback(on_signal);
  ctx.mark_end();

  SideStats& total = ctx.stats;
  int64_t last_end = start, user_ns = 0, kernel_ns = 0;
  for (const StreamSlot& s : slots) {
    const StreamCounters& c = s.worker.counters;
    total.send_bytes += c.send_bytes;
    total.send_msgs += c.send_msgs;
    total.recv_bytes += c.recv_bytes;
    total.recv_msgs += c.recv_msgs;
    total.lost_msgs += s.worker.lost_msgs;
    total.send_errors += s.worker.send_errors;
    last_end = std::max(last_end, s.worker.end_ns);
    user_ns += s.user_ns;
    kernel_ns += s.kernel_ns;
    if (n > 1) {
      StreamCounters timed = c;
      if (c.send_bytes > 0) timed.send_time_ns = s.worker.end_ns - start;
      if (c.recv_bytes > 0) timed.recv_time_ns = s.worker.end_ns - start;
      total.streams.push_back(timed);
    }
  }
  ctx.interval.finish(last_end, IntervalCounts::of(total), nullptr);
  if (total.send_bytes > 0) total.send_time_ns = last_end - start;
  if (total.recv_bytes > 0) total.recv_time_ns = last_end - start;
  // The measuring threads' own CPU, summed (percent of one CPU: N busy streams show N*100).
  if (total.real_time_ns > 0) {
    double real = static_cast<double>(total.real_time_ns);
    total.cpu.proc_user = static_cast<double>(user_ns) / real * 100;
    total.cpu.proc_kernel = static_cast<double>(kernel_ns) / real * 100;
    total.cpu.proc_used = total.cpu.proc_user + total.cpu.proc_kernel;
  }
  if (!peer_status.ok()) return peer_status;
  for (const StreamSlot& s : slots) {
    if (!s.status.ok()) {
      return n > 1 && !one_thread
                 ? s.status.Prefixed("stream " + std::to_string(s.worker.index))
                 : s.status;
    }
  }
  return Status::Ok();
}

}  // namespace

Status run_streams(TestContext& ctx, int n, const StreamBody& body, PeerMessage peer_message,
                   const StreamDescriptors& descriptors) {
  return run_stream_threads(ctx, n, body, nullptr, peer_message, descriptors);
}

Status run_streams_round_robin(TestContext& ctx, int n, const RoundRobinBody& body,
                               PeerMessage peer_message, const StreamDescriptors& descriptors) {
  return run_stream_threads(ctx, n, nullptr, body, peer_message, descriptors);
}

}  // namespace fabperf
