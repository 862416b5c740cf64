// Socket ping-pong latency and streaming bandwidth, over any protocol of the socket table.
#include "socket/socket_tests.h"

#include <errno.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <vector>

#include "core/clock.h"
#include "core/environment.h"
#include "core/host_buffer.h"
#include "engine/latency_loop.h"
#include "engine/measuring_thread.h"
#include "engine/run_limit.h"
#include "engine/streams.h"
#include "net/control.h"
#include "net/socket.h"
#include "net/sys_io.h"
#include "net/tcp_info.h"
#include "socket/socket_link.h"
#include "socket/udp_pacing.h"

namespace fabperf {

namespace {

// A datagram receiver's blocking wait ends after this long without a datagram (within 100 ms
// more: the stall watchdog looks no more often), to look for the client's end-of-test message.
constexpr double kDatagramWaitS = 0.1;
// How long a ping-pong over an unreliable protocol waits for a reply before counting it lost.
constexpr double kMaxReplyWaitS = 1.0;

const SocketProtocol& protocol_of(const TestContext& ctx) {
  return *find_socket_protocol(ctx.spec.transport);
}

uint64_t touch(const char* buf, size_t len) {
  return touch_bytes(reinterpret_cast<const uint8_t*>(buf), len);
}

// Message buffers start on a page of their own. The kernel's copies into and out of them
// (rep movsb) slow down when the user address is off a 64-byte boundary, and std::vector's
// large allocations start 16 bytes into a page: tcp_bw at 1 MiB ran ~10% behind iperf3, whose
// buffer is mmap()ed. `letters` fills it with what a sender sends, else it is zeroed.
Result<HostBuffer> message_buffer(size_t size, bool letters = false) {
  auto buf = HostBuffer::allocate(size, "");
  if (!buf.ok()) return buf.status().prefixed("message buffer");
  if (letters) fill_letters(buf->data(), size);
  return buf;
}
char* bytes(const HostBuffer& buf) { return reinterpret_cast<char*>(buf.data()); }

// A ping-pong's or a two-way run's buffers: one to send from (letters), one to receive into.
struct MessagePair {
  HostBuffer out_buf, in_buf;
  char* out() const { return bytes(out_buf); }
  char* in() const { return bytes(in_buf); }
};
Result<MessagePair> message_pair(size_t size) {
  auto out = message_buffer(size, true);
  if (!out.ok()) return out.status();
  auto in = message_buffer(size);
  if (!in.ok()) return in.status();
  return MessagePair{std::move(*out), std::move(*in)};
}

// TCP's own counters (TCP_INFO) of a test's data connections: read at each --interval
// boundary (where the kernel has them: TCP, not UDP or SCTP) and once at the end of the run.
void watch_tcp(TestContext& ctx, std::vector<int> fds) {
  if (fds.empty() || !read_tcp_counters(fds.front())) return;
  ctx.interval.set_tcp_probe([fds] { return read_tcp_counters(fds); });
}
void record_tcp(TestContext& ctx, const std::vector<int>& fds) {
  ctx.stats.tcp = read_tcp_counters(fds);
}
std::vector<int> fds_of(const std::vector<DataLink>& links) {
  std::vector<int> fds;
  for (const DataLink& link : links) fds.push_back(link.fd());
  return fds;
}

// Datagram tests carry a sequence number so a late reply is never timed as a new one.
bool carries_seq(const SocketProtocol& proto, size_t size) {
  return !proto.reliable && size >= sizeof(uint64_t);
}

// Most messages an open loop has in flight (sent, reply not yet taken): at most this many, and
// no more than kOpenLoopMaxBytes of them. Above the path's capacity the schedule falls behind
// instead of filling socket buffers, so the run ends at -t and its drain is short.
constexpr uint64_t kOpenLoopMaxInFlight = 1024;
constexpr uint64_t kOpenLoopMaxBytes = 4 << 20;

// The open loop's backlog bound for messages of `size` bytes (kOpenLoopMaxInFlight).
uint64_t open_loop_max_in_flight(size_t size) {
  return std::clamp<uint64_t>(kOpenLoopMaxBytes / std::max<size_t>(size, 1), 16,
                              kOpenLoopMaxInFlight);
}

// How long the open loop waits for a reply: -to, and no more than kMaxReplyWaitS over an
// unreliable protocol.
int64_t open_loop_reply_wait_ns(const TestContext& ctx, const SocketProtocol& proto) {
  return static_cast<int64_t>(
      (proto.reliable ? ctx.timeout_s() : std::min(ctx.timeout_s(), kMaxReplyWaitS)) * 1e9);
}

// Sleeps until a reply comes on `fd` or the clock reaches `wake`.
void await_reply_until(int fd, int64_t wake) {
  int64_t left = wake - now_ns();
  if (left <= 0) return;
  timespec ts{static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
  pollfd pfd{fd, POLLIN, 0};
  ppoll(&pfd, 1, &ts, nullptr);
}

// The open loop's end, every reply taken or counted lost: the last interval, the end mark,
// and (datagrams) the end-of-test word to the server.
Status end_open_loop(TestContext& ctx, DataLink& link, const SocketProtocol& proto) {
  ctx.interval.finish(now_ns(), IntervalCounts::of(ctx.stats), &ctx.latency);
  ctx.mark_end();
  link.finish_sending();
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::success();
}

// Open loop (--rate): message k is due at start + k/rate whatever the replies do, and its
// latency runs from that due time to its reply. A stall then delays every message due during
// it, and the percentiles show it; a closed loop would wait and record it once (coordinated
// omission). Replies are matched by sequence number (datagrams) or by order (streams).
// The backlog is bounded (kOpenLoopMaxInFlight) and a timed run stops sending at -t by the
// clock: above capacity a message waits for room and its latency, from its due time, shows
// the wait; the achieved rate is reported beside the asked one (engine/test_result.cc).
// The open loop's schedule and replies: message k is due at start + k * interval, and a reply
// is matched to it by sequence number (datagrams) or by order (streams). Its member functions
// are the loop's steps, inlined into it.
struct OpenLoop {
  TestContext& ctx;
  DataLink& link;
  const SocketProtocol& proto;
  size_t size;
  bool seq_on;
  double interval_ns;
  uint64_t warmup, count;
  char* out;
  char* in;
  int64_t start = 0, send_until = 0;
  uint64_t next = 0, replies = 0;  // messages sent; replies taken (streams: in order)
  size_t have = 0;                 // bytes of the reply being assembled (streams)
  bool sending = true;
  int64_t drain_deadline = 0;
  uint64_t max_in_flight = 0;
  uint64_t written_off = 0;  // datagrams below this number were counted lost (a full window)
  int64_t last_reply = 0;
  int64_t max_wait_ns = 0;
  SampleClock clock{};  // --clock: the schedule's and the replies' times

  int64_t due(uint64_t k) const {
    return start + static_cast<int64_t>(static_cast<double>(k) * interval_ns);
  }
  bool window_full() const { return next - replies >= max_in_flight; }

  // Sends every message due by `now` while the window has room; at the end of the run (-n
  // messages, -t by the clock, or Ctrl-C) stops sending and starts the drain.
  Status send_due(int64_t now) {
    while (sending && due(next) <= now) {
      bool enough =
          count > 0 ? next >= warmup + count : due(next) >= send_until || now >= send_until;
      if (enough || ctx.stop_requested()) {
        sending = false;
        drain_deadline = now + max_wait_ns;
        break;
      }
      if (window_full()) {
        // The window is full: wait for replies. Datagram replies missing for the reply wait
        // are counted lost, and the window opens again.
        if (!proto.reliable && now - last_reply > max_wait_ns) {
          ctx.stats.lost_msgs += next - replies;
          replies = next;
          written_off = next;
          continue;
        }
        break;
      }
      if (seq_on) memcpy(out, &next, sizeof next);
      FP_RETURN_IF_ERROR(link.send_msg(out, size));
      ctx.stats.send_msgs++;
      ctx.stats.send_bytes += size;
      ++next;
    }
    return Status::success();
  }

  // n bytes of a reply arrived: a whole one is matched to its message and timed from its due
  // time (a stream's reply may come in parts).
  void take_reply(size_t n) {
    if (proto.byte_stream) {
      have += n;
      if (have < size) return;
      have = 0;
    }
    int64_t t1 = clock.now();
    uint64_t k = replies;
    if (seq_on) memcpy(&k, in, sizeof k);
    if (k < next && (!seq_on || k >= written_off)) {  // anything else is not a reply to us
      ++replies;
      last_reply = t1;
      ctx.stats.recv_msgs++;
      ctx.stats.recv_bytes += size;
      if (k >= warmup) ctx.latency.record(static_cast<uint64_t>(t1 - due(k)));
    }
  }

  // When to wake with nothing received: the next message's due time, the reply wait where the
  // window is full, the drain's end; the peer check's time at the latest.
  int64_t wake_at(int64_t now, int64_t next_check) const {
    int64_t wake = sending ? std::min(due(next), next_check) : std::min(drain_deadline, next_check);
    if (sending && window_full()) wake = std::min(now + max_wait_ns, next_check);
    return wake;
  }
};

Status lat_client_open_loop(TestContext& ctx, DataLink& link, const SocketProtocol& proto) {
  const size_t size = ctx.opts.msg_size;
  auto buffers = message_pair(size);
  if (!buffers.ok()) return buffers.status();
  OpenLoop loop{ctx,
                link,
                proto,
                size,
                carries_seq(proto, size),
                1e9 / static_cast<double>(ctx.opts.rate),
                ctx.opts.warmup,
                ctx.opts.no_msgs,
                buffers->out(),
                buffers->in()};
  loop.max_in_flight = open_loop_max_in_flight(size);
  loop.max_wait_ns = open_loop_reply_wait_ns(ctx, proto);
  auto clock = run_clock(ctx);
  if (!clock.ok()) return clock.status();
  loop.clock = *clock;
  const bool poll_mode = ctx.opts.cq_poll;
  ctx.latency.set_scale(0.5);              // one-way, as in the closed loop: half the round trip
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);  // waits between sends end on time, not 50 us late
  ctx.mark_start();
  loop.start = loop.last_reply = loop.clock.now();
  loop.send_until = loop.due(loop.warmup) + static_cast<int64_t>(ctx.opts.time * 1e9);
  int64_t next_check = loop.start + kPeerCheckNs;
  const int fd = link.fd();
  for (;;) {
    int64_t now = loop.clock.now();
    ctx.interval.tick(now, IntervalCounts::of(ctx.stats), &ctx.latency);
    FP_RETURN_IF_ERROR(loop.send_due(now));
    ssize_t n = sys_recv(fd, loop.in + loop.have, size - loop.have, MSG_DONTWAIT);
    if (n > 0) {
      loop.take_reply(static_cast<size_t>(n));
      continue;
    }
    if (n == 0) return Status::failed("server ended the test early");
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR && errno != ECONNREFUSED) {
      return Status::failed(errno_text("recv"));
    }
    if (!loop.sending && loop.replies >= loop.next) break;
    if (!loop.sending && now >= loop.drain_deadline) {
      if (proto.reliable) return Status::timeout("replies missing at the end of the test");
      ctx.stats.lost_msgs += loop.next - loop.replies;
      break;
    }
    if (now >= next_check) {
      FP_RETURN_IF_ERROR(ctx.check_peer());
      next_check = now + kPeerCheckNs;
    }
    if (poll_mode) continue;
    // Sleep until a reply comes or the next message is due.
    await_reply_until(fd, loop.wake_at(now, next_check));
  }
  return end_open_loop(ctx, link, proto);
}

// The closed loop: one message out, its reply back, timed.
Status lat_client_closed_loop(TestContext& ctx, DataLink* link, const SocketProtocol& proto) {
  size_t size = ctx.opts.msg_size;
  auto buffers = message_pair(size);
  if (!buffers.ok()) return buffers.status();
  char* out = buffers->out();
  char* in = buffers->in();
  bool seq_on = carries_seq(proto, size);
  double reply_wait = proto.reliable ? -1 : std::min(ctx.timeout_s(), kMaxReplyWaitS);
  if (reply_wait >= 0) FP_RETURN_IF_ERROR(link->set_recv_wait(reply_wait));
  ctx.latency.set_scale(0.5);  // one-way latency is half the round trip
  uint64_t seq = 0;
  const bool access = ctx.opts.access_recv;
  volatile uint64_t sink = 0;
  auto once = [&](uint64_t, int64_t t0, const SampleClock& clock) -> Result<Sample> {
    ++seq;
    if (seq_on) memcpy(out, &seq, sizeof seq);
    FP_RETURN_IF_ERROR(link->send_msg(out, size));
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += size;
    for (;;) {
      auto got = link->recv_msg(in, size, reply_wait);
      if (!got.ok()) {
        if (got.status().code() == Code::kTimeout && !proto.reliable) {
          ctx.stats.lost_msgs++;
          // A missing reply is also what a dead server looks like: ask the control channel
          // now rather than after another full reply wait.
          FP_RETURN_IF_ERROR(ctx.check_peer());
          return Sample{clock.now() - t0, true};
        }
        return got.status();
      }
      if (*got == 0) return Status::failed("server ended the test early");
      uint64_t echoed = 0;
      if (seq_on) memcpy(&echoed, in, sizeof echoed);
      if (seq_on && echoed != seq) continue;  // a late reply to an earlier, counted-lost ping
      int64_t t1 = clock.now();
      ctx.stats.recv_msgs++;
      ctx.stats.recv_bytes += *got;
      if (access) sink = sink + touch(in, *got);
      return Sample{t1 - t0, false};
    }
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, [&](int64_t) { return ctx.check_peer(); }));
  link->finish_sending();
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::success();
}

// Both loops run on a measuring thread of their own (engine/measuring_thread.h).
Status lat_client(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  bool open_loop = ctx.opts.rate > 0;
  if (open_loop && !carries_seq(proto, ctx.opts.msg_size) && !proto.reliable) {
    return Status::usage(std::string(proto.display) +
                         " open-loop latency (--rate) needs -m 8 "
                         "or more: each message carries its sequence number");
  }
  auto link = open_client_link(ctx, proto);
  if (!link.ok()) return link.status();
  watch_tcp(ctx, {link->fd()});
  Status s = run_measuring_thread(ctx, {link->fd()}, [&] {
    return open_loop ? lat_client_open_loop(ctx, *link, proto)
                     : lat_client_closed_loop(ctx, &*link, proto);
  });
  record_tcp(ctx, {link->fd()});
  return s;
}

// Echo loop of the latency server; ends at EOF, the end marker, or the client's message.
Status lat_echo_loop(TestContext& ctx, DataLink* link, const SocketProtocol& proto) {
  size_t size = ctx.opts.msg_size;
  auto buffer = message_buffer(size);
  if (!buffer.ok()) return buffer.status();
  char* buf = bytes(*buffer);
  bool access = ctx.opts.access_recv;
  volatile uint64_t sink = 0;
  // Test hook (tests/e2e/e2e_openloop_test.cc): FABPERF_TEST_STALL_MS=N makes this server sleep
  // once for N ms after FABPERF_TEST_STALL_AT messages (default 1000), a stall on purpose that
  // shows what the closed and open loops report. Unset in normal use; costs one compare.
  const uint64_t stall_ms = environment().test_stall_ms;
  const uint64_t stall_at = stall_ms > 0 ? environment().test_stall_at : 0;
  // A datagram server wakes every kDatagramWaitS to look for the client's end message.
  if (!proto.connected) FP_RETURN_IF_ERROR(link->set_recv_wait(kDatagramWaitS));
  ctx.mark_start();
  // A datagram server's silence is timed from the first empty wait after the last message,
  // so the measured loop reads no clock (a connection's silence is the watchdog's).
  int64_t idle_since = now_ns();
  uint64_t msgs_at_idle = 0;
  for (;;) {
    auto got = link->recv_msg(buf, size, proto.connected ? -1 : kDatagramWaitS);
    if (!got.ok()) {
      if (got.status().code() != Code::kTimeout || proto.connected) return got.status();
      // The client's end message (heartbeats aside): its markers were lost.
      if (ctx.control.message_waiting()) break;
      int64_t now = now_ns();
      if (ctx.stats.recv_msgs != msgs_at_idle) {
        msgs_at_idle = ctx.stats.recv_msgs;
        idle_since = now;
      } else if (now - idle_since > static_cast<int64_t>(ctx.timeout_s() * 1e9)) {
        return Status::timeout("nothing from the client within the timeout");
      }
      continue;
    }
    if (*got == 0) break;
    ctx.stats.recv_msgs++;
    ctx.stats.recv_bytes += *got;
    if (access) sink = sink + touch(buf, *got);
    if (ctx.stats.recv_msgs == stall_at) usleep(static_cast<useconds_t>(stall_ms) * 1000);
    FP_RETURN_IF_ERROR(link->send_msg(buf, *got));
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += *got;
  }
  ctx.mark_end();
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::success();
}

// The echo loop runs on a measuring thread of its own (engine/measuring_thread.h).
Status lat_server(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link = open_server_link(ctx, proto);
  if (!link.ok()) return link.status();
  Status s =
      run_measuring_thread(ctx, {link->fd()}, [&] { return lat_echo_loop(ctx, &*link, proto); });
  record_tcp(ctx, {link->fd()});
  return s;
}

// Opens the --streams data links, in order, so stream i on one side is stream i on the other.
template <typename Open>
Result<std::vector<DataLink>> open_links(TestContext& ctx, const SocketProtocol& proto, Open open) {
  int n = stream_count(ctx.opts);
  std::vector<DataLink> links;
  links.reserve(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    auto link = open(ctx, proto, i);
    if (!link.ok()) {
      return n > 1 ? link.status().prefixed("stream " + std::to_string(i)) : link.status();
    }
    links.push_back(std::move(*link));
  }
  return links;
}

// One stream's sending loop: messages until the run's limit (-t or -n), ^C or the supervisor.
Status send_loop(TestContext& ctx, DataLink& link, const char* buf, size_t size, StreamWorker& w) {
  StreamCounters& c = w.counters;
  RunLimit limit(ctx.opts);
  // -t counts from the end of --omit's seconds (sent, not measured).
  limit.start(w.omit_until_ns != 0 ? w.omit_until_ns : w.start_ns);
  StridedClock clock(w.start_ns);
  UdpPacer pacer(ctx, link.proto(), size, w);
  while (!limit.done(c.send_msgs, clock.last()) && !w.stopping()) {
    // The messages up to the clock's next read go as one batch (DataLink::send_msgs); the
    // limit, the stop flag and the counters are looked at between batches.
    uint64_t batch = clock.left();
    if (limit.by_count()) batch = std::min<uint64_t>(batch, limit.count() - c.send_msgs);
    if (pacer.on()) {
      // --udp_rate: no more than are due by now, each stamped; waits for the next one due.
      batch = pacer.due(c.send_msgs, batch, limit.by_count() ? INT64_MAX : limit.end_ns());
      clock.restart(pacer.now());
      if (batch == 0) continue;
      auto sent = pacer.send(link, buf, batch, c.send_msgs);
      if (!sent.ok()) {
        w.send_errors++;
        return sent.status();
      }
      c.send_msgs += *sent;
      c.send_bytes += *sent * size;
      w.pass_omit(pacer.now());
      w.publish();
      continue;
    }
    auto sent = link.send_msgs(buf, size, batch);
    if (!sent.ok()) {
      w.send_errors++;
      return sent.status();
    }
    c.send_msgs += *sent;
    c.send_bytes += *sent * size;
    clock.tick_n(static_cast<uint32_t>(*sent));
    w.pass_omit(clock.last());
    w.publish();
  }
  w.end_ns = now_ns();
  return Status::success();
}

// --stream_sender round_robin: one thread sends a whole message on each stream's link in turn
// (iperf3 3.12's sender), each stream until its limit (-t, or -n per stream), ^C or the
// supervisor. A blocking send on one socket lets the others drain meanwhile.
Status send_round_robin(TestContext& ctx, std::vector<DataLink>& links, const char* buf,
                        size_t size, std::vector<StreamWorker*>& workers) {
  RunLimit limit(ctx.opts);
  limit.start(workers[0]->start_ns);
  StridedClock clock(workers[0]->start_ns);
  size_t active = links.size();
  std::vector<bool> done(links.size(), false);
  while (active > 0 && !workers[0]->stopping()) {
    uint32_t sent_round = 0;
    for (size_t i = 0; i < links.size(); ++i) {
      if (done[i]) continue;
      StreamWorker& w = *workers[i];
      StreamCounters& c = w.counters;
      if (limit.done(c.send_msgs, clock.last())) {
        done[i] = true;
        w.end_ns = clock.last();
        --active;
        continue;
      }
      auto sent = links[i].send_msgs(buf, size, 1);
      if (!sent.ok()) {
        w.send_errors++;
        return sent.status().prefixed("stream " + std::to_string(i));
      }
      c.send_msgs += *sent;
      c.send_bytes += *sent * size;
      w.publish();
      sent_round += static_cast<uint32_t>(*sent);
    }
    clock.tick_n(sent_round);
  }
  const int64_t end = now_ns();
  for (size_t i = 0; i < links.size(); ++i) {
    if (!done[i]) workers[i]->end_ns = end;
  }
  return Status::success();
}

// One stream's receiving loop: counts what arrives until the end (EOF or the end marker) or,
// on a datagram link, until the sender's end message (peer_said_done) or `quiet_end` says the
// peer has fallen silent after its end (two-way runs, whose end markers a full buffer may
// drop). The stream's receive interval runs from the common start to its last byte, as the
// clock saw it: read every k-th message (StridedClock), as the send loop reads it, so the end
// is the last read, at most the clock's stride of messages (~2 * kTargetNs back to back)
// before the last byte. A read per message was ~23 ns of a 64-byte message's 0.8 us (TCP)
// to 3 us (UDP).
Status recv_loop(TestContext& ctx, DataLink& link, char* buf, size_t size, StreamWorker& w,
                 const std::function<bool(int64_t idle_ns)>& quiet_end) {
  const SocketProtocol& proto = link.proto();
  if (!proto.connected) FP_RETURN_IF_ERROR(link.set_recv_wait(kDatagramWaitS));
  const bool access = ctx.opts.access_recv;
  const int64_t idle_limit_ns = static_cast<int64_t>(ctx.timeout_s() * 1e9);
  const char* peer = ctx.role == Role::kClient ? "server" : "client";
  StreamCounters& c = w.counters;
  volatile uint64_t sink = 0;
  StridedClock clock(w.start_ns);
  int64_t last = w.start_ns;
  // A datagram link's silence is timed from the first empty wait after the last message (as
  // the latency server's), so no message needs a clock read of its own for it.
  int64_t idle_since = w.start_ns;
  uint64_t bytes_at_wait = 0;
  // A stream is read a message at a time, as qperf and iperf3 read it: each call asks for
  // the rest of the current message, never past its end. Asking for a whole message's
  // length on every call ran tcp_bw 256 KiB 10-35% slower on loopback (bench/README.md).
  size_t at = 0;  // bytes of the current message already in (always 0 for datagrams)
  // A paced sender's stamps (--udp_rate): loss and jitter as the datagrams arrive, at the
  // cost of a clock read each (a paced run is not about the receiver's top speed).
  const bool stamped = udp_stamped(ctx.opts, proto);
  UdpArrivals arrivals;
  for (;;) {
    auto got = link.recv_some(buf + at, size - at, proto.connected ? -1 : kDatagramWaitS);
    if (!got.ok()) {
      if (got.status().code() != Code::kTimeout || proto.connected) return got.status();
      const int64_t now = now_ns();
      if (c.recv_bytes != bytes_at_wait) {
        bytes_at_wait = c.recv_bytes;
        idle_since = now;
      }
      // After a wait the next message's time is read, not the stride's last.
      clock.restart(now);
      const int64_t idle = now - idle_since;
      if (w.peer_said_done() || (quiet_end && quiet_end(idle))) {
        // The end marker was lost: take what is still queued, then stop.
        last = std::max(last, drain_datagrams(link, buf, size, c, stamped ? &arrivals : nullptr));
        if (stamped) {
          w.lost_msgs = arrivals.lost();
          w.jitter_ns = arrivals.jitter_ns();
        }
        break;
      }
      if (w.stopping()) break;
      if (idle > idle_limit_ns) {
        return Status::timeout(std::string("nothing from the ") + peer + " within the timeout");
      }
      continue;
    }
    if (*got == 0) break;
    last = clock.tick();
    c.recv_bytes += *got;
    if (access) sink = sink + touch(buf + at, *got);
    if (proto.byte_stream) {
      // A stream has no messages: one is counted as its last byte arrives (the sender's
      // units), never per recv() call, which the intervals' msg_rate would count.
      at += *got;
      if (at == size) {
        at = 0;
        c.recv_msgs++;
      }
    } else {
      c.recv_msgs++;
      if (stamped) {
        arrivals.on_datagram(buf, *got, now_ns());
        w.lost_msgs = arrivals.lost();
        w.jitter_ns = arrivals.jitter_ns();
      }
    }
    w.pass_omit(last);
    w.publish();
  }
  w.end_ns = last;
  // A stream has no messages: count them in the sender's units.
  if (proto.byte_stream) c.recv_msgs = c.recv_bytes / size;
  return Status::success();
}

// The --streams data links of a bandwidth test, opened by role (the data may go either way).
Result<std::vector<DataLink>> open_bw_links(TestContext& ctx, const SocketProtocol& proto) {
  if (ctx.role == Role::kClient) {
    return open_links(ctx, proto, [](TestContext& c, const SocketProtocol& p, int) {
      return open_client_link(c, p);
    });
  }
  return open_links(ctx, proto, [](TestContext& c, const SocketProtocol& p, int i) {
    return open_server_link(c, p, i);
  });
}

// The one descriptor each stream's loop uses: its data link's (run_streams gives each stream's
// thread a table of its own holding it alone).
StreamDescriptors link_fd(const std::vector<DataLink>& links) {
  return [&links](int stream) { return std::vector<int>{links[static_cast<size_t>(stream)].fd()}; };
}

// Whether this side sends in a one-way bandwidth test: the client, unless -R/--reverse.
bool bw_sends(const TestContext& ctx) { return (ctx.role == Role::kClient) != ctx.opts.reverse; }

// Both roles of the one-way bandwidth tests: the sending side sends for the test time, the
// receiving side counts what arrives. The client sends; with -R the server does.
Status bw_role(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto links = open_bw_links(ctx, proto);
  if (!links.ok()) return links.status();
  size_t size = ctx.opts.msg_size;
  const int n = static_cast<int>(links->size());
  watch_tcp(ctx, fds_of(*links));
  if (bw_sends(ctx)) {
    auto buf = message_buffer(size, true);  // read only: every stream sends from it
    if (!buf.ok()) return buf.status();
    std::string why;
    Status s;
    if (stream_sender(ctx.opts, n, &why) == StreamSender::kRoundRobin) {
      s = run_streams_round_robin(
          ctx, n,
          [&](std::vector<StreamWorker*>& workers) -> Status {
            return send_round_robin(ctx, *links, bytes(*buf), size, workers);
          },
          PeerMessage::kFailure, link_fd(*links));
    } else {
      s = run_streams(
          ctx, n,
          [&](StreamWorker& w) -> Status {
            return send_loop(ctx, (*links)[static_cast<size_t>(w.index)], bytes(*buf), size, w);
          },
          PeerMessage::kFailure, link_fd(*links));
    }
    if (n > 1) ctx.stats.info["stream_sender"] = why;
    record_tcp(ctx, fds_of(*links));
    // Only now: a receiver that saw every stream end would send its results (or its end
    // message), which the supervisor, still watching for a failure, would take for one.
    for (DataLink& link : *links) link.finish_sending();
    if (!s.ok()) return s;
    // A datagram sender says it is done over the control channel, as its end markers may be lost.
    if (!proto.connected) return ctx.exchange({{"done", true}}, true).status();
    return Status::success();
  }
  std::vector<HostBuffer> bufs;
  for (size_t i = 0; i < links->size(); ++i) {
    auto buf = message_buffer(size);
    if (!buf.ok()) return buf.status();
    bufs.push_back(std::move(*buf));
  }
  Status s = run_streams(
      ctx, n,
      [&](StreamWorker& w) -> Status {
        const size_t i = static_cast<size_t>(w.index);
        return recv_loop(ctx, (*links)[i], bytes(bufs[i]), size, w, nullptr);
      },
      PeerMessage::kEndOfData, link_fd(*links));
  record_tcp(ctx, fds_of(*links));
  if (!s.ok()) return s;
  if (!proto.connected) return ctx.exchange({{"done", true}}, false).status();
  return Status::success();
}

// How long a two-way datagram receiver waits, once its own sender is done and nothing has
// arrived, before it takes the peer's end markers for lost (both senders run for the same -t).
constexpr double kBiQuietS = 0.3;

// Both roles of the two-way bandwidth tests (tcp_bi_bw, udp_bi_bw): each side sends on one
// thread and receives on another over the same data link, both for the test time.
Status bi_bw_role(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link =
      ctx.role == Role::kClient ? open_client_link(ctx, proto) : open_server_link(ctx, proto);
  if (!link.ok()) return link.status();
  size_t size = ctx.opts.msg_size;
  auto buffers = message_pair(size);
  if (!buffers.ok()) return buffers.status();
  char* out = buffers->out();
  char* in = buffers->in();
  watch_tcp(ctx, {link->fd()});
  std::atomic<bool> sent_all{false};
  std::function<bool(int64_t)> quiet_end;
  if (!proto.connected) {
    quiet_end = [&](int64_t idle_ns) {
      return sent_all.load() && idle_ns > static_cast<int64_t>(kBiQuietS * 1e9);
    };
  }
  // Thread 0 sends, thread 1 receives. A sender ends its direction itself (EOF or end
  // markers), so each receiver sees its end while the other direction still runs. Anything on
  // the control channel meanwhile is the peer's failure (to the client) or the client's end
  // message (to the server): the closing exchange below comes after both directions ended.
  Status s = run_streams(
      ctx, 2,
      [&](StreamWorker& w) -> Status {
        if (w.index == 0) {
          Status sent = send_loop(ctx, *link, out, size, w);
          link->finish_sending();
          sent_all.store(true);
          return sent;
        }
        return recv_loop(ctx, *link, in, size, w, quiet_end);
      },
      PeerMessage::kByRole, [&](int) { return std::vector<int>{link->fd()}; });
  record_tcp(ctx, {link->fd()});
  // One direction each: the sending thread's interval and the receiving thread's.
  SideStats& st = ctx.stats;
  if (st.streams.size() == 2) {
    st.send_time_ns = st.streams[0].send_time_ns;
    st.recv_time_ns = st.streams[1].recv_time_ns;
  }
  st.streams.clear();
  if (!s.ok()) return s;
  // The server sends its results only after this, so the client's supervisor, still watching
  // for a failure while it receives, never takes them for one.
  return ctx.exchange({{"done", true}}).status();
}

// A two-way run holds one data link and one buffer per direction on two threads.
Needs bi_needs(const RunOptions& server_side) {
  Needs out;
  uint64_t size = server_side.msg_size;
  out.buffer_bytes = size > UINT64_MAX / 2 ? UINT64_MAX : 2 * size;
  out.threads = 2;
  out.descriptors = 2;
  return out;
}

std::vector<TestSpec> build() {
  const std::vector<const char*> lat_opts = {"msg_size",     "time",          "no_msgs", "warmup",
                                             "cpu_affinity", "sock_buf_size", "ip_port", "cq_poll",
                                             "access_recv",  "rate",          "clock"};
  const std::vector<const char*> bw_opts = {
      "msg_size", "time",        "no_msgs", "cpu_affinity",  "sock_buf_size", "ip_port",
      "cq_poll",  "access_recv", "streams", "stream_sender", "reverse",       "omit"};
  const std::vector<const char*> bi_opts = {"msg_size",     "time",          "no_msgs",
                                            "cpu_affinity", "sock_buf_size", "ip_port",
                                            "cq_poll",      "access_recv",   "omit"};
  std::vector<TestSpec> out;
  struct Proto {
    const char* lat;
    const char* bw;
    const char* bi;  // the two-way bandwidth test, where there is one
    const char* transport;
    const char* display;
    uint64_t bw_size;
  };
  for (const Proto& p : {Proto{"tcp_lat", "tcp_bw", "tcp_bi_bw", "tcp", "TCP", 65536},
                         Proto{"udp_lat", "udp_bw", "udp_bi_bw", "udp", "UDP", 32768},
                         Proto{"sctp_lat", "sctp_bw", nullptr, "sctp", "SCTP", 65536},
                         Proto{"sdp_lat", "sdp_bw", nullptr, "sdp", "SDP", 65536},
                         Proto{"rds_lat", "rds_bw", nullptr, "rds", "RDS", 32768}}) {
    static std::deque<std::string>
        texts;  // summaries live as long as the table; deque keeps them put
    texts.push_back(std::string(p.display) + " one way latency");
    const char* lat_summary = texts.back().c_str();
    out.push_back({p.lat, TransportFamily::kSocket, TestKind::kLatency, p.transport, nullptr,
                   lat_opts, 1, lat_client, lat_server,
                   "A ping-pong: the client sends a message, the server echoes it; latency is "
                   "half the round trip, every round trip recorded."});
    out.back().summary = lat_summary;
    texts.push_back(std::string(p.display) + " streaming one way bandwidth");
    std::vector<const char*> opts = bw_opts;
    if (find_socket_protocol(p.transport)->nodelay_opt != 0) opts.push_back("nodelay");
    const bool paceable = std::string(p.transport) == "udp";  // iperf3 -b's datagrams
    if (paceable) opts.push_back("udp_rate");
    out.push_back({p.bw, TransportFamily::kSocket, TestKind::kBandwidth, p.transport, nullptr, opts,
                   p.bw_size, bw_role, bw_role,
                   "The client sends messages for the test time; the server counts what "
                   "arrives (-R: the server sends and the client counts). send_bw is the "
                   "sender's rate, recv_bw the receiver's."});
    out.back().summary = texts.back().c_str();
    size_t first = out.size() - 2;
    if (p.bi != nullptr) {
      texts.push_back(std::string(p.display) + " streaming two way bandwidth");
      std::vector<const char*> two_way = bi_opts;
      if (find_socket_protocol(p.transport)->nodelay_opt != 0) two_way.push_back("nodelay");
      if (paceable) two_way.push_back("udp_rate");
      out.push_back({p.bi, TransportFamily::kSocket, TestKind::kBiBandwidth, p.transport, nullptr,
                     two_way, p.bw_size, bi_bw_role, bi_bw_role,
                     "Both sides send for the test time and count what arrives, each on two "
                     "threads (one sends, one receives) over one data link. bw is the sum of "
                     "the two directions, shown beside it."});
      out.back().summary = texts.back().c_str();
      out.back().needs = bi_needs;
    }
    for (size_t i = first; i < out.size(); ++i) {
      out[i].reliable = find_socket_protocol(p.transport)->reliable;
    }
  }
  return out;
}

}  // namespace

const std::vector<TestSpec>& socket_tests() {
  static const std::vector<TestSpec> tests = build();
  return tests;
}

}  // namespace fabperf
