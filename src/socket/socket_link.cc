// DataLink set-up and transfer with deadlines, blocking or busy-polling.
#include "socket/socket_link.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <climits>
#include <cstring>

#include "core/units.h"
#include "net/control.h"
#include "net/sys_io.h"

namespace fabperf {

namespace {

// Bounds the set-up calls (connect); DataLink replaces them with its watchdog afterwards.
Status set_timeouts(int fd, double seconds) {
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(seconds);
  tv.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(tv.tv_sec)) * 1e6);
  if (tv.tv_sec == 0 && tv.tv_usec == 0) tv.tv_usec = 1000;
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0) {
    return Status::failed(errno_text("setsockopt SO_RCVTIMEO"));
  }
  return Status::success();
}

// What a data call that ran out of time says, one text for each direction.
Status send_timeout() { return Status::timeout("send: no progress within the timeout"); }
Status recv_timeout() {
  return Status::timeout("receive: nothing from the peer within the timeout");
}

Status tune_socket(int fd, const SocketProtocol& proto, const TestContext& ctx) {
  FP_RETURN_IF_ERROR(set_socket_buffers(fd, ctx.opts.sock_buf_size));
  if (wants_nodelay(proto, ctx.spec.kind, ctx.opts)) {
    int one = 1;
    if (setsockopt(fd, proto.protocol, proto.nodelay_opt, &one, sizeof one) < 0) {
      return Status::failed(
          errno_text((std::string("setsockopt ") + proto.display + " NODELAY").c_str()));
    }
  }
  return Status::success();
}

// The data socket's Nagle setting as the kernel reports it, in this side's info (JSON, -vc):
// what the run used, rather than what was asked.
void record_nodelay(TestContext& ctx, int fd, const SocketProtocol& proto) {
  auto on = socket_nodelay(fd, proto);
  if (!on.ok()) return;  // a protocol without the option: nothing to record
  ctx.stats.info[std::string(proto.name) + "_nodelay"] = *on ? "on" : "off";
}

}  // namespace

Status set_socket_buffers(int fd, uint64_t size) {
  if (size == 0) return Status::success();
  int value = size > INT_MAX / 2 ? INT_MAX / 2 : static_cast<int>(size);
  if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, sizeof value) < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &value, sizeof value) < 0) {
    return Status::failed(errno_text("setsockopt SO_SNDBUF/SO_RCVBUF"));
  }
  return Status::success();
}

bool wants_nodelay(const SocketProtocol& proto, TestKind kind, const RunOptions& opts) {
  if (proto.nodelay_opt == 0) return false;
  // A ping-pong message Nagle held would wait for the peer's delayed ACK; streaming leaves it
  // on (qperf, iperf3): small messages coalesce into full segments.
  if (kind == TestKind::kLatency) return true;
  return opts.nodelay;
}

Result<bool> socket_nodelay(int fd, const SocketProtocol& proto) {
  if (proto.nodelay_opt == 0) {
    return Status::unsupported(std::string(proto.display) + " has no NODELAY option");
  }
  int on = 0;
  socklen_t len = sizeof on;
  if (getsockopt(fd, proto.protocol, proto.nodelay_opt, &on, &len) < 0) {
    return Status::failed(errno_text("getsockopt NODELAY"));
  }
  return on != 0;
}

DataLink::DataLink(const SocketProtocol& proto, Fd fd, SockAddr peer, bool busy_poll,
                   double timeout_s)
    : proto_(proto),
      fd_(std::move(fd)),
      peer_(peer),
      busy_poll_(busy_poll),
      timeout_s_(timeout_s),
      recv_wait_s_(timeout_s),
      addressed_(!proto.connected && proto.type != SOCK_DGRAM) {
  if (busy_poll_) {
    set_nonblocking(fd_.get(), true).ignore_error();  // fails only for a bad fd
  } else {
    // The watchdog keeps the deadline; the kernel's per-call timers go (zero = none). Set-up
    // (connect) ran under SO_SNDTIMEO; from here on only measured calls are made.
    timeval none{};
    setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &none, sizeof none);
    setsockopt(fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
    watchdog_ = std::make_unique<StallWatchdog>(fd_.get(), timeout_s);
  }
}

Status DataLink::set_recv_wait(double seconds) {
  if (watchdog_) watchdog_->set_limit(seconds);
  recv_wait_s_ = seconds;
  return Status::success();
}

Status DataLink::send_msg(const void* buf, size_t len) {
  const char* p = static_cast<const char*>(buf);
  size_t left = len;
  Deadline deadline(0);
  bool have_deadline = false;
  while (left > 0) {
    ssize_t n = watched([&] {
      return addressed_ ? sys_sendto(fd_.get(), p, left, MSG_NOSIGNAL, peer_.get(), peer_.len)
                        : sys_send(fd_.get(), p, left, MSG_NOSIGNAL);
    });
    if (n >= 0) {
      if (!proto_.byte_stream) return Status::success();  // a datagram goes whole or not at all
      p += n;
      left -= static_cast<size_t>(n);
      // A blocking send cut short by the watchdog returns what it took, not EINTR: the stall
      // is over then, not after another full limit for the rest (review N8).
      if (left > 0 && expired()) return send_timeout();
      continue;
    }
    int err = errno;
    if (err == EINTR) {
      if (expired()) return send_timeout();
      continue;
    }
    if (err == EMSGSIZE) {
      return Status::usage(std::string(proto_.display) + " message of " + std::to_string(len) +
                           " bytes is too large for one datagram (EMSGSIZE): use a smaller -m");
    }
    if (err == EAGAIN || err == EWOULDBLOCK || err == ENOBUFS) {
      if (!busy_poll_) {
        if (err == ENOBUFS) continue;
        return send_timeout();
      }
      if (!have_deadline) {
        deadline = Deadline::after(timeout_s_);
        have_deadline = true;
      }
      if (deadline.expired()) return send_timeout();
      continue;
    }
    if (err == ECONNREFUSED && !proto_.connected) continue;  // ICMP from a closed peer port
    return Status::failed(errno_text("send", err));
  }
  return Status::success();
}

Result<uint64_t> DataLink::send_msgs(const void* buf, size_t len, uint64_t count) {
  if (!watchdog_ || addressed_) {  // busy-poll and addressed links: one message at a time
    for (uint64_t k = 0; k < count; ++k) FP_RETURN_IF_ERROR(send_msg(buf, len));
    return count;
  }
  const char* p = static_cast<const char*>(buf);
  watchdog_->enter();
  for (uint64_t k = 0; k < count; ++k) {
    const ssize_t n = sys_send(fd_.get(), p, len, MSG_NOSIGNAL);
    if (n == static_cast<ssize_t>(len)) {
      watchdog_->finished_call();
      continue;
    }
    const int err = errno;
    watchdog_->leave();
    if (err == EINTR || n >= 0) {
      // Interrupted by the watchdog, with nothing or part of the message gone.
      if (expired()) return send_timeout();
    }
    if (n >= 0 && proto_.byte_stream) {  // (a datagram goes whole: n >= 0 is all of it)
      // A partial write: the rest of this message as send_msg sends it.
      FP_RETURN_IF_ERROR(send_msg(p + n, len - static_cast<size_t>(n)));
    } else if (n < 0) {
      // Nothing went: send_msg sends it again and handles what it meets (EINTR from another
      // signal, ENOBUFS, EMSGSIZE, an error).
      FP_RETURN_IF_ERROR(send_msg(p, len));
    }
    watchdog_->enter();
  }
  watchdog_->leave();
  return count;
}

// The deadline is computed when a wait begins only: a receive that finds its data at once, or
// blocks under the watchdog (every blocking ping-pong receive), costs the recv system call and
// no clock read.
Result<size_t> DataLink::recv_once(void* buf, size_t len, LazyDeadline& deadline) {
  int spins = 0;
  if (watchdog_ && deadline.seconds() < recv_wait_s_) {
    // A shorter wait than the watchdog's limit was asked for: wait for data first.
    auto ready = wait_fd(fd_.get(), POLLIN, deadline.get());
    if (!ready.ok()) return ready.status();
    if (*ready == 0) return recv_timeout();
  }
  for (;;) {
    ssize_t n = watched([&] { return sys_recv(fd_.get(), buf, len, 0); });
    if (n >= 0) return static_cast<size_t>(n);
    int err = errno;
    if (err == EINTR) {
      // The watchdog ended a wait of recv_wait_s_: done, unless a longer one was asked for.
      if (expired() && deadline.get(recv_wait_s_).expired()) {
        return recv_timeout();
      }
      continue;
    }
    if (err == ECONNREFUSED && !proto_.connected) {
      // ICMP: the peer's port is closed, perhaps for good. Wait no longer than the caller
      // asked.
      auto ready = wait_fd(fd_.get(), POLLIN, deadline.get());
      if (!ready.ok()) return ready.status();
      if (*ready != 0) continue;
      return recv_timeout();
    }
    if (err != EAGAIN && err != EWOULDBLOCK) return Status::failed(errno_text("recv", err));
    // Busy-poll: spin, reading the clock every 256 tries. (A blocking socket has no receive
    // timeout, so EAGAIN there would be a surprise: treat it as one.)
    if (!busy_poll_ || (++spins % 256 == 0 && deadline.get().expired())) {
      return recv_timeout();
    }
  }
}

Result<size_t> DataLink::recv_msg(void* buf, size_t len, double wait_s) {
  LazyDeadline deadline(wait_s >= 0 ? wait_s : timeout_s_);
  if (!proto_.byte_stream) return recv_once(buf, len, deadline);
  char* p = static_cast<char*>(buf);
  size_t got = 0;
  while (got < len) {
    auto n = recv_once(p + got, len - got, deadline);
    if (!n.ok()) return n;
    if (*n == 0) {
      if (got == 0) return size_t{0};
      return Status::failed("connection closed by peer in the middle of a message");
    }
    got += *n;
  }
  return got;
}

Result<size_t> DataLink::recv_some(void* buf, size_t len, double wait_s) {
  LazyDeadline deadline(wait_s >= 0 ? wait_s : timeout_s_);
  if (watchdog_ && proto_.byte_stream && proto_.connected) return recv_polled(buf, len, deadline);
  return recv_once(buf, len, deadline);
}

// A stream's bandwidth receiver takes what is queued without blocking and waits in poll()
// when nothing is, as iperf3 does, rather than blocking in recv. A blocking recv that has
// copied something goes on copying while segments keep arriving (the kernel processes the
// socket's backlog instead of returning), holding the socket the while; a non-blocking one
// returns when the queue is empty. On loopback at 1 MiB this read 1-3% more, level at 64 B to
// 256 KiB (bench/results/tcp-receiver-shape-8862534/). Datagram receivers keep the blocking
// call: for them the extra poll was a 5-9% loss.
Result<size_t> DataLink::recv_polled(void* buf, size_t len, LazyDeadline& deadline) {
  for (;;) {
    ssize_t n = sys_recv(fd_.get(), buf, len, MSG_DONTWAIT);
    if (n >= 0) return static_cast<size_t>(n);
    int err = errno;
    if (err == EINTR) continue;
    if (err != EAGAIN && err != EWOULDBLOCK) return Status::failed(errno_text("recv", err));
    auto ready = wait_fd(fd_.get(), POLLIN, deadline.get());
    if (!ready.ok()) return ready.status();
    if (*ready == 0) return recv_timeout();
  }
}

namespace {

// Errors after which a connection is gone: for a stream the test is over, as at EOF.
bool connection_lost(int err) {
  return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == ESHUTDOWN;
}

}  // namespace

Result<size_t> DataLink::send_part(const void* buf, size_t len) {
  for (;;) {
    ssize_t n = watched([&] {
      return addressed_ ? sys_sendto(fd_.get(), buf, len, MSG_NOSIGNAL, peer_.get(), peer_.len)
                        : sys_send(fd_.get(), buf, len, MSG_NOSIGNAL);
    });
    if (n >= 0) return static_cast<size_t>(n);
    int err = errno;
    if (err == EINTR) {
      if (expired()) return send_timeout();
      continue;
    }
    if (err == ENOBUFS || (err == ECONNREFUSED && !proto_.connected)) continue;
    if (proto_.connected && connection_lost(err)) return size_t{0};
    if (err == EAGAIN || err == EWOULDBLOCK) return send_timeout();
    return Status::failed(errno_text("send", err));
  }
}

Result<size_t> DataLink::recv_part(void* buf, size_t len, SockAddr* from) {
  socklen_t capacity = sizeof(sockaddr_storage);
  for (;;) {
    if (from != nullptr) from->len = capacity;
    ssize_t n = watched([&] {
      return from != nullptr ? sys_recvfrom(fd_.get(), buf, len, 0, from->get(), &from->len)
                             : sys_recv(fd_.get(), buf, len, 0);
    });
    if (n >= 0) return static_cast<size_t>(n);
    int err = errno;
    if (err == EINTR) {
      if (expired()) return recv_timeout();
      continue;
    }
    if (err == ECONNREFUSED && !proto_.connected) continue;  // ICMP from a closed peer port
    if (proto_.connected && connection_lost(err)) return size_t{0};
    if (err == EAGAIN || err == EWOULDBLOCK) return recv_timeout();
    return Status::failed(errno_text("recv", err));
  }
}

Status DataLink::fix_peer(const SockAddr& peer) {
  if (proto_.type != SOCK_DGRAM) {
    return Status::unsupported(std::string(proto_.display) + " links are not fixed on a peer");
  }
  if (connect(fd_.get(), peer.get(), peer.len) < 0) {
    return Status::failed(errno_text("connect data socket"));
  }
  peer_ = peer;
  addressed_ = false;
  return Status::success();
}

void DataLink::finish_sending() {
  if (proto_.connected) {
    shutdown(fd_.get(), SHUT_WR);
    return;
  }
  // Zero-length datagrams mark the end; several, since a datagram may be lost.
  for (int i = 0; i < 3; ++i) {
    sendto(fd_.get(), "", 0, MSG_NOSIGNAL | MSG_DONTWAIT, peer_.get(), peer_.len);
  }
}

Result<DataLink> open_server_link(TestContext& ctx, const SocketProtocol& proto, int stream) {
  // An IPv4 client reached the dual-stack listener as ::ffff:a.b.c.d: its data socket is a
  // plain IPv4 one (the kernel's IPv4 path, as the client's own socket and the peers' are),
  // not an IPv6 socket carrying mapped addresses.
  SockAddr local = local_address(ctx.control.fd()).unmapped();
  auto sock = open_protocol_socket(proto, local.family());
  if (!sock.ok()) return sock.status();
  Fd fd = std::move(*sock);
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  FP_RETURN_IF_ERROR(tune_socket(fd.get(), proto, ctx));
  // Bind to the address the client reached us on: the data path follows the control path.
  SockAddr bind_addr = protocol_address(proto, local);
  // A fixed -ip is the first of a range: stream i of --streams takes port ip_port + i.
  uint64_t fixed_port = ctx.opts.ip_port;
  if (fixed_port != 0 && fixed_port + static_cast<uint64_t>(stream) > 65535) {
    return Status::usage("-ip " + std::to_string(fixed_port) + " with " +
                         std::to_string(stream + 1) + " streams runs past port 65535");
  }
  bind_addr.set_port(static_cast<uint16_t>(fixed_port == 0 ? 0 : fixed_port + stream));
  if (bind(fd.get(), bind_addr.get(), bind_addr.len) < 0) {
    return Status::failed(errno_text(("bind " + bind_addr.to_string()).c_str()));
  }
  uint16_t port = local_address(fd.get()).port();
  double timeout = ctx.timeout_s();
  if (proto.connected) {
    if (listen(fd.get(), 1) < 0) return Status::failed(errno_text("listen"));
    auto peer_reply = ctx.exchange({{"port", port}});
    if (!peer_reply.ok()) return peer_reply.status();
    // Only the client of this control connection may take this data connection.
    Deadline deadline = Deadline::after(timeout);
    for (;;) {
      SockAddr peer;
      auto conn = accept_until(fd.get(), deadline, &peer);
      if (!conn.ok()) return conn.status().prefixed("data connection");
      if (peer.host() != ctx.peer_host) continue;
      FP_RETURN_IF_ERROR(tune_socket(conn->get(), proto, ctx));
      FP_RETURN_IF_ERROR(set_timeouts(conn->get(), timeout));
      record_nodelay(ctx, conn->get(), proto);
      return DataLink(proto, std::move(*conn), peer, ctx.opts.cq_poll, timeout);
    }
  }
  auto reply = ctx.exchange({{"port", port}});
  if (!reply.ok()) return reply.status();
  auto it = reply->find("port");
  if (it == reply->end() || !it->is_number_unsigned() || it->get<uint64_t>() == 0 ||
      it->get<uint64_t>() > 65535) {
    return Status::failed("client sent no valid data port");
  }
  SockAddr peer = peer_address(ctx.control.fd()).unmapped();
  peer = protocol_address(proto, peer);
  peer.set_port(static_cast<uint16_t>(it->get<uint64_t>()));
  // connect() makes the kernel drop datagrams from anyone else, and fixes where replies go.
  if (proto.type == SOCK_DGRAM && connect(fd.get(), peer.get(), peer.len) < 0) {
    return Status::failed(errno_text("connect data socket"));
  }
  FP_RETURN_IF_ERROR(set_timeouts(fd.get(), timeout));
  return DataLink(proto, std::move(fd), peer, ctx.opts.cq_poll, timeout);
}

Result<DataLink> open_client_link(TestContext& ctx, const SocketProtocol& proto) {
  SockAddr server = peer_address(ctx.control.fd()).unmapped();
  SockAddr local = local_address(ctx.control.fd()).unmapped();
  auto sock = open_protocol_socket(proto, server.family());
  if (!sock.ok()) return sock.status();
  Fd fd = std::move(*sock);
  FP_RETURN_IF_ERROR(tune_socket(fd.get(), proto, ctx));
  double timeout = ctx.timeout_s();
  if (proto.connected) {
    auto reply = ctx.exchange(nlohmann::json::object());
    if (!reply.ok()) return reply.status();
    auto it = reply->find("port");
    if (it == reply->end() || !it->is_number_unsigned())
      return Status::failed("server sent no data port");
    SockAddr target = protocol_address(proto, server);
    target.set_port(static_cast<uint16_t>(it->get<uint64_t>()));
    SockAddr source = protocol_address(proto, local);
    source.set_port(0);
    bind(fd.get(), source.get(), source.len);  // same source address as the control path
    FP_RETURN_IF_ERROR(set_timeouts(fd.get(), timeout));
    if (connect(fd.get(), target.get(), target.len) < 0) {
      return Status::failed(errno_text(("data connection to " + target.to_string()).c_str()));
    }
    record_nodelay(ctx, fd.get(), proto);
    return DataLink(proto, std::move(fd), target, ctx.opts.cq_poll, timeout);
  }
  SockAddr source = protocol_address(proto, local);
  source.set_port(0);
  if (bind(fd.get(), source.get(), source.len) < 0) {
    return Status::failed(errno_text(("bind " + source.to_string()).c_str()));
  }
  auto reply = ctx.exchange({{"port", local_address(fd.get()).port()}});
  if (!reply.ok()) return reply.status();
  auto it = reply->find("port");
  if (it == reply->end() || !it->is_number_unsigned())
    return Status::failed("server sent no data port");
  SockAddr target = protocol_address(proto, server);
  target.set_port(static_cast<uint16_t>(it->get<uint64_t>()));
  if (proto.type == SOCK_DGRAM && connect(fd.get(), target.get(), target.len) < 0) {
    return Status::failed(errno_text("connect data socket"));
  }
  FP_RETURN_IF_ERROR(set_timeouts(fd.get(), timeout));
  return DataLink(proto, std::move(fd), target, ctx.opts.cq_poll, timeout);
}

}  // namespace fabperf
