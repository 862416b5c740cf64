// Client loops of the socket tests against a qperf server, one per shape of test.
#include "qperf_wire/client_loops.h"

#include <vector>

#include "core/clock.h"
#include "core/host_buffer.h"

namespace fabperf::qperf_wire {

namespace {

// Sends and receives one message of the loop's protocol: whole messages on streams, one
// datagram otherwise; RDS addresses each message and counts only whole ones.
class Messenger {
 public:
  explicit Messenger(const ClientLoop& loop) : loop_(loop), fd_(loop.data.fd.get()) {
    rds_ = !loop.proto.connected && loop.proto.family_override != 0;
  }
  // Bytes moved, or -1 for an error (qperf counts it and goes on).
  ssize_t send(const void* buf) {
    size_t len = loop_.msg_size;
    if (loop_.proto.connected) return send_full(fd_, buf, len, loop_.clock);
    const SockAddr* to = rds_ ? &loop_.data.peer : nullptr;
    ssize_t n = send_one(fd_, buf, len, loop_.clock, to ? to->get() : nullptr, to ? to->len : 0);
    return rds_ && n >= 0 && static_cast<size_t>(n) != len ? -1 : n;
  }
  ssize_t recv(void* buf) {
    size_t len = loop_.msg_size;
    if (loop_.proto.connected) return recv_full(fd_, buf, len, loop_.clock);
    ssize_t n = recv_one(fd_, buf, len, loop_.clock);
    return rds_ && n >= 0 && static_cast<size_t>(n) != len ? -1 : n;
  }

 private:
  const ClientLoop& loop_;
  int fd_;
  bool rds_;
};

}  // namespace

ClientCounts run_client_loop(const ClientLoop& loop, LatencyRecorder& latency) {
  ClientCounts c;
  Messenger io(loop);
  std::vector<char> buf(loop.msg_size);
  fill_letters(reinterpret_cast<uint8_t*>(buf.data()), buf.size());
  volatile uint64_t sink = 0;
  TestClock& clock = loop.clock;
  if (!loop.latency_test) {
    while (!clock.finished()) {
      ssize_t n = io.send(buf.data());
      if (clock.finished()) break;
      count_transfer(c.sent, n);
      if (loop.max_msgs > 0 && c.sent.msgs >= loop.max_msgs) clock.mark_finished();
    }
    return c;
  }
  latency.set_scale(0.5);  // one way: half the round trip, as qperf reports it
  for (uint64_t round = 0; !clock.finished(); ++round) {
    int64_t t0 = now_ns();
    ssize_t n = io.send(buf.data());
    if (clock.finished()) break;
    if (!count_transfer(c.sent, n)) continue;
    n = io.recv(buf.data());
    if (clock.finished()) break;
    int64_t t1 = now_ns();
    if (!count_transfer(c.received, n)) continue;
    if (loop.access_recv) sink = sink + touch_bytes(buf.data(), static_cast<size_t>(n));
    if (round >= loop.warmup) latency.record(static_cast<uint64_t>(t1 - t0));
    if (loop.max_msgs > 0 && c.received.msgs >= loop.max_msgs) clock.mark_finished();
  }
  return c;
}

}  // namespace fabperf::qperf_wire
