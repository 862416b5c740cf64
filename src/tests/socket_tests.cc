// Socket ping-pong latency and streaming bandwidth, over any protocol of the socket table.
#include "tests/socket_tests.h"

#include <cstring>
#include <deque>
#include <vector>

#include "core/clock.h"
#include "net/control.h"
#include "tests/socket_link.h"

namespace fabperf {

namespace {

// How often a long loop looks at the control channel for a peer's failure.
constexpr int64_t kPeerCheckNs = 100'000'000;
// Datagram receivers wake this often to look for the client's end-of-test message.
constexpr double kDatagramWaitS = 0.1;
// How long a ping-pong over an unreliable protocol waits for a reply before counting it lost.
constexpr double kMaxReplyWaitS = 1.0;

const SocketProtocol& protocol_of(const TestContext& ctx) {
  return *find_socket_protocol(ctx.spec.transport);
}

// Ends the measured loop by count (-n) or by time (-t).
class RunLimit {
 public:
  explicit RunLimit(const ParamSet& params)
      : count_(params.u64("no_msgs")),
        duration_ns_(static_cast<int64_t>(params.seconds("time") * 1e9)) {}
  void start(int64_t now) { end_ns_ = now + duration_ns_; }
  bool done(uint64_t iterations, int64_t now) const {
    return count_ > 0 ? iterations >= count_ : now >= end_ns_;
  }

 private:
  uint64_t count_;
  int64_t duration_ns_;
  int64_t end_ns_ = 0;
};

uint64_t touch(const char* buf, size_t len) {
  uint64_t sum = 0;
  for (size_t i = 0; i < len; ++i) sum += static_cast<unsigned char>(buf[i]);
  return sum;
}

// Datagram tests carry a sequence number so a late reply is never timed as a new one.
bool carries_seq(const SocketProtocol& proto, size_t size) {
  return !proto.reliable && size >= sizeof(uint64_t);
}

Status lat_client(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link = open_client_link(ctx, proto);
  if (!link.ok()) return link.status();
  size_t size = ctx.params.u64("msg_size");
  std::vector<char> out(size, 'p'), in(size);
  bool seq_on = carries_seq(proto, size);
  double reply_wait = proto.reliable ? -1 : std::min(ctx.timeout_s(), kMaxReplyWaitS);
  uint64_t warmup = ctx.params.u64("warmup");
  ctx.latency.set_scale(0.5);  // one-way latency is half the round trip
  RunLimit limit(ctx.params);
  uint64_t seq = 0, measured = 0;
  int64_t next_check = 0;
  bool access = ctx.params.on("access_recv");
  volatile uint64_t sink = 0;
  for (uint64_t i = 0;; ++i) {
    bool warming = i < warmup;
    int64_t t0 = now_ns();
    if (i == warmup) {
      ctx.mark_start();
      limit.start(t0);
      next_check = t0 + kPeerCheckNs;
    }
    if (!warming && (limit.done(measured, t0) || ctx.stop_requested())) break;
    ++seq;
    if (seq_on) memcpy(out.data(), &seq, sizeof seq);
    FP_RETURN_IF_ERROR(link->send_msg(out.data(), size));
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += size;
    for (;;) {
      auto got = link->recv_msg(in.data(), size, reply_wait);
      if (!got.ok()) {
        if (got.status().code() == Code::kTimeout && !proto.reliable) {
          ctx.stats.lost_msgs++;
          break;
        }
        return got.status();
      }
      if (*got == 0) return Status::Failed("server ended the test early");
      uint64_t echoed = 0;
      if (seq_on) memcpy(&echoed, in.data(), sizeof echoed);
      if (seq_on && echoed != seq) continue;  // a late reply to an earlier, counted-lost ping
      int64_t t1 = now_ns();
      ctx.stats.recv_msgs++;
      ctx.stats.recv_bytes += *got;
      if (access) sink = sink + touch(in.data(), *got);
      if (!warming) {
        ctx.latency.record(static_cast<uint64_t>(t1 - t0));
        ++measured;
      }
      break;
    }
    if (!warming && t0 >= next_check) {
      FP_RETURN_IF_ERROR(ctx.check_peer());
      next_check = t0 + kPeerCheckNs;
    }
  }
  ctx.mark_end();
  link->finish_sending();
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::Ok();
}

// Echo loop of the latency server; ends at EOF, the end marker, or the client's message.
Status lat_server(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link = open_server_link(ctx, proto);
  if (!link.ok()) return link.status();
  size_t size = ctx.params.u64("msg_size");
  std::vector<char> buf(size);
  bool access = ctx.params.on("access_recv");
  volatile uint64_t sink = 0;
  ctx.mark_start();
  int64_t idle_since = now_ns();
  bool client_said_done = false;
  for (;;) {
    auto got = link->recv_msg(buf.data(), size, proto.connected ? -1 : kDatagramWaitS);
    if (!got.ok()) {
      if (got.status().code() != Code::kTimeout || proto.connected) return got.status();
      if (ctx.control.readable()) {
        client_said_done = true;
        break;
      }
      if (now_ns() - idle_since > static_cast<int64_t>(ctx.timeout_s() * 1e9)) {
        return Status::Timeout("nothing from the client within the timeout");
      }
      continue;
    }
    if (*got == 0) break;
    idle_since = now_ns();
    ctx.stats.recv_msgs++;
    ctx.stats.recv_bytes += *got;
    if (access) sink = sink + touch(buf.data(), *got);
    FP_RETURN_IF_ERROR(link->send_msg(buf.data(), *got));
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += *got;
  }
  ctx.mark_end();
  (void)client_said_done;
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::Ok();
}

Status bw_client(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link = open_client_link(ctx, proto);
  if (!link.ok()) return link.status();
  size_t size = ctx.params.u64("msg_size");
  std::vector<char> buf(size);
  for (size_t i = 0; i < size; ++i) buf[i] = static_cast<char>('a' + i % 26);
  RunLimit limit(ctx.params);
  ctx.mark_start();
  int64_t start = now_ns();
  limit.start(start);
  int64_t next_check = start + kPeerCheckNs, now = start;
  while (!limit.done(ctx.stats.send_msgs, now) && !ctx.stop_requested()) {
    Status s = link->send_msg(buf.data(), size);
    if (!s.ok()) {
      ctx.stats.send_errors++;
      return s;
    }
    ctx.stats.send_msgs++;
    ctx.stats.send_bytes += size;
    now = now_ns();
    if (now >= next_check) {
      FP_RETURN_IF_ERROR(ctx.check_peer());
      next_check = now + kPeerCheckNs;
    }
  }
  ctx.stats.send_time_ns = now_ns() - start;
  ctx.mark_end();
  link->finish_sending();
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::Ok();
}

// Counts what arrives; the receive interval runs from set-up to the last byte.
Status bw_server(TestContext& ctx) {
  const SocketProtocol& proto = protocol_of(ctx);
  auto link = open_server_link(ctx, proto);
  if (!link.ok()) return link.status();
  size_t size = ctx.params.u64("msg_size");
  std::vector<char> buf(size);
  bool access = ctx.params.on("access_recv");
  volatile uint64_t sink = 0;
  ctx.mark_start();
  int64_t start = now_ns(), last = start, idle_since = start;
  bool client_said_done = false;
  for (;;) {
    auto got = link->recv_some(buf.data(), size, proto.connected ? -1 : kDatagramWaitS);
    if (!got.ok()) {
      if (got.status().code() != Code::kTimeout || proto.connected) return got.status();
      if (ctx.control.readable()) {
        client_said_done = true;
        // The end marker was lost: take what is still queued, then stop.
        for (;;) {
          auto more = link->recv_some(buf.data(), size, 0.01);
          if (!more.ok() || *more == 0) break;
          ctx.stats.recv_bytes += *more;
          ctx.stats.recv_msgs++;
          last = now_ns();
        }
        break;
      }
      if (now_ns() - idle_since > static_cast<int64_t>(ctx.timeout_s() * 1e9)) {
        return Status::Timeout("nothing from the client within the timeout");
      }
      continue;
    }
    if (*got == 0) break;
    last = idle_since = now_ns();
    ctx.stats.recv_bytes += *got;
    ctx.stats.recv_msgs++;
    if (access) sink = sink + touch(buf.data(), *got);
  }
  ctx.stats.recv_time_ns = last - start;
  // A stream has no messages: count them in the sender's units.
  if (proto.byte_stream) ctx.stats.recv_msgs = ctx.stats.recv_bytes / size;
  ctx.mark_end();
  (void)client_said_done;
  if (!proto.connected) return ctx.exchange({{"done", true}}).status();
  return Status::Ok();
}

std::vector<TestSpec> build() {
  const std::vector<const char*> lat_opts = {"msg_size", "time", "no_msgs", "warmup",
                                             "cpu_affinity", "sock_buf_size", "ip_port",
                                             "cq_poll", "access_recv"};
  const std::vector<const char*> bw_opts = {"msg_size", "time", "no_msgs", "cpu_affinity",
                                            "sock_buf_size", "ip_port", "cq_poll",
                                            "access_recv"};
  std::vector<TestSpec> out;
  struct Proto {
    const char* lat;
    const char* bw;
    const char* transport;
    const char* display;
    uint64_t bw_size;
  };
  for (const Proto& p : {Proto{"tcp_lat", "tcp_bw", "tcp", "TCP", 65536},
                         Proto{"udp_lat", "udp_bw", "udp", "UDP", 32768},
                         Proto{"sctp_lat", "sctp_bw", "sctp", "SCTP", 65536},
                         Proto{"sdp_lat", "sdp_bw", "sdp", "SDP", 65536},
                         Proto{"rds_lat", "rds_bw", "rds", "RDS", 32768}}) {
    static std::deque<std::string> texts;  // summaries live as long as the table; deque keeps them put
    texts.push_back(std::string(p.display) + " one way latency");
    const char* lat_summary = texts.back().c_str();
    out.push_back({p.lat, TransportFamily::kSocket, TestKind::kLatency, p.transport, nullptr,
                   lat_opts, 1, lat_client, lat_server,
                   "A ping-pong: the client sends a message, the server echoes it; latency is "
                   "half the round trip, every round trip recorded."});
    out.back().summary = lat_summary;
    texts.push_back(std::string(p.display) + " streaming one way bandwidth");
    out.push_back({p.bw, TransportFamily::kSocket, TestKind::kBandwidth, p.transport, nullptr,
                   bw_opts, p.bw_size, bw_client, bw_server,
                   "The client sends messages for the test time; the server counts what "
                   "arrives. send_bw is the client's rate, recv_bw the server's."});
    out.back().summary = texts.back().c_str();
  }
  return out;
}

}  // namespace

const std::vector<TestSpec>& socket_tests() {
  static const std::vector<TestSpec> tests = build();
  return tests;
}

}  // namespace fabperf
