// Data socket set-up for the qperf socket tests, both sides, each step under a deadline.
#include "qperf_wire/data_link.h"

#include <errno.h>
#include <sys/socket.h>

#include <cstring>
#include <vector>

#include "qperf_wire/end_rule.h"
#include "socket/socket_link.h"

namespace fabperf::qperf_wire {

namespace {

Status send_port(QperfControl& ctl, uint16_t port, const char* item, double timeout_s) {
  uint8_t bytes[kPortSize];
  encode_le(bytes, port, kPortSize);
  return ctl.send(bytes, sizeof bytes, item, timeout_s);
}

Result<uint16_t> recv_port(QperfControl& ctl, const char* item, double timeout_s) {
  uint8_t bytes[kPortSize];
  FP_RETURN_IF_ERROR(ctl.recv(bytes, sizeof bytes, item, timeout_s));
  uint64_t port = decode_le(bytes, kPortSize);
  if (port == 0 || port > 65535) {
    return Status::failed("bad " + std::string(item) + " from " + ctl.peer() + ": " +
                          std::to_string(port));
  }
  return static_cast<uint16_t>(port);
}

void reuse_address(int fd) {
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
}

// A numeric address with a port, in its own family (RDS binds and sends to these).
Result<SockAddr> ip_address(const std::string& host, uint16_t port) {
  auto addrs = resolve(host, port, SOCK_DGRAM);
  if (!addrs.ok()) return addrs.status();
  return addrs->front();
}

// RDS's address exchange travels in 1025-byte blocks holding a NUL-terminated string.
Status send_host(QperfControl& ctl, const std::string& host, const char* item, double timeout) {
  std::vector<uint8_t> block(kRdsHostSize, 0);
  memcpy(block.data(), host.data(), std::min(host.size(), kRdsHostSize - 1));
  return ctl.send(block.data(), block.size(), item, timeout);
}

Status recv_host(QperfControl& ctl, const char* item, double timeout) {
  std::vector<uint8_t> block(kRdsHostSize);
  return ctl.recv(block.data(), block.size(), item, timeout);  // read, not trusted: see below
}

Result<Fd> open_rds(const SocketProtocol& proto, const SockAddr& local, uint64_t buffers) {
  auto sock = open_protocol_socket(proto, local.family());
  if (!sock.ok()) {
    return Status(sock.status().code(), "socket failed: " + sock.status().message());
  }
  reuse_address(sock->get());
  if (bind(sock->get(), local.get(), local.len) < 0) {
    return Status::failed(errno_text("bind RDS failed"));
  }
  FP_RETURN_IF_ERROR(set_socket_buffers(sock->get(), buffers));
  return std::move(*sock);
}

// Both sides' last RDS step: a socket on this side's address and port, then the ports traded
// (each sends first) and the peer's RDS address made from what the control connection knows.
Result<DataSocket> rds_endpoints(const SocketProtocol& proto, QperfControl& ctl,
                                 const std::string& local_host, uint16_t port, uint64_t buffers,
                                 const std::string& peer_host, double timeout_s) {
  auto local = ip_address(local_host, port);
  if (!local.ok()) return local.status();
  auto fd = open_rds(proto, *local, buffers);
  if (!fd.ok()) return fd.status();
  FP_RETURN_IF_ERROR(send_port(ctl, local_address(fd->get()).port(), "RDS port", timeout_s));
  auto peer_port = recv_port(ctl, "RDS port", timeout_s);
  if (!peer_port.ok()) return peer_port.status();
  auto peer = ip_address(peer_host, *peer_port);
  if (!peer.ok()) return peer.status();
  return DataSocket{std::move(*fd), *peer};
}

Result<DataSocket> open_server_rds(const SocketProtocol& proto, QperfControl& ctl,
                                   const Request& req, double timeout_s) {
  SockAddr ctl_local = local_address(ctl.fd());
  std::string client_host = peer_address(ctl.fd()).host();
  // Whether the kernel has RDS is known before any exchange: the client hears it at once.
  auto probe = open_protocol_socket(proto, AF_INET);
  if (!probe.ok()) {
    return Status(probe.status().code(), "socket failed: " + probe.status().message());
  }
  probe->reset();
  auto helper = listen_tcp(ctl_local.host(), 0, 1);
  if (!helper.ok()) return helper.status();
  FP_RETURN_IF_ERROR(
      send_port(ctl, local_address(helper->get()).port(), "TCP server port", timeout_s));
  Deadline deadline = Deadline::after(timeout_s);
  for (;;) {
    SockAddr peer;
    auto conn = accept_until(helper->get(), deadline, &peer);
    if (!conn.ok()) return conn.status().prefixed("RDS address exchange");
    if (same_host(peer, client_host)) break;
  }
  // qperf binds to the address the client says it reached; the server binds to the one it
  // knows it was reached on, and sends only to the control connection's peer.
  FP_RETURN_IF_ERROR(send_host(ctl, client_host, "client IP", timeout_s));
  FP_RETURN_IF_ERROR(recv_host(ctl, "server IP", timeout_s));
  if (req.port > 65535) return Status::failed("bind RDS failed: port out of range");
  return rds_endpoints(proto, ctl, ctl_local.host(), static_cast<uint16_t>(req.port),
                       req.sock_buf_size, client_host, timeout_s);
}

Result<DataSocket> open_client_rds(const SocketProtocol& proto, QperfControl& ctl,
                                   uint64_t sock_buf_size, uint16_t port, double timeout_s) {
  std::string server_host = peer_address(ctl.fd()).host();
  std::string local_host = local_address(ctl.fd()).host();
  auto helper_port = recv_port(ctl, "TCP IPv4 server port", timeout_s);
  if (!helper_port.ok()) return helper_port.status();
  // A stock server sends this port before it listens on it: retry, or it waits in accept()
  // for good (and, serving one client at a time, every later client with it).
  ConnectOptions options{timeout_s, timeout_s, local_host, ""};
  auto helper = connect_tcp(server_host, *helper_port, options);
  if (!helper.ok()) return helper.status().prefixed("RDS address exchange");
  FP_RETURN_IF_ERROR(send_host(ctl, server_host, "server IP", timeout_s));
  FP_RETURN_IF_ERROR(recv_host(ctl, "client IP", timeout_s));
  helper->reset();
  return rds_endpoints(proto, ctl, local_host, port, sock_buf_size, server_host, timeout_s);
}

}  // namespace

bool same_host(const SockAddr& a, const std::string& host) { return a.host() == host; }

DataLink data_link(const SocketProtocol& proto, DataSocket&& data) {
  return DataLink(proto, std::move(data.fd), data.peer, /*busy_poll=*/false, kLookS);
}

Result<DataSocket> open_server_data(const SocketProtocol& proto, QperfControl& ctl,
                                    const Request& req, double timeout_s) {
  if (proto.family_override != 0 && !proto.connected) {
    return open_server_rds(proto, ctl, req, timeout_s);
  }
  const std::string qperf_text = std::string("unable to make ") + proto.display + " socket";
  SockAddr ctl_local = local_address(ctl.fd());
  auto sock = open_protocol_socket(proto, ctl_local.family());
  if (!sock.ok()) {
    return Status(sock.status().code(), qperf_text + ": " + sock.status().message());
  }
  Fd fd = std::move(*sock);
  reuse_address(fd.get());
  if (req.port > 65535) return Status::failed(qperf_text + ": port out of range");
  SockAddr addr = protocol_address(proto, ctl_local);
  addr.set_port(static_cast<uint16_t>(req.port));
  if (bind(fd.get(), addr.get(), addr.len) < 0) {
    return Status::failed(qperf_text + ": " + errno_text(("bind " + addr.to_string()).c_str()));
  }
  uint16_t port = local_address(fd.get()).port();
  if (!proto.connected) {
    FP_RETURN_IF_ERROR(set_socket_buffers(fd.get(), req.sock_buf_size));
    FP_RETURN_IF_ERROR(send_port(ctl, port, "port", timeout_s));
    return DataSocket{std::move(fd), SockAddr{}};
  }
  if (listen(fd.get(), 1) < 0) return Status::failed(errno_text("listen failed"));
  FP_RETURN_IF_ERROR(send_port(ctl, port, "port", timeout_s));
  // qperf's accept has no deadline: a client that never connects wedges it. Ours has one,
  // and takes the connection of this client only.
  std::string client_host = peer_address(ctl.fd()).host();
  Deadline deadline = Deadline::after(timeout_s);
  for (;;) {
    SockAddr peer;
    auto conn = accept_until(fd.get(), deadline, &peer);
    if (!conn.ok()) return conn.status().prefixed("data connection");
    if (!same_host(peer, client_host)) continue;
    FP_RETURN_IF_ERROR(set_socket_buffers(conn->get(), req.sock_buf_size));
    return DataSocket{std::move(*conn), peer};
  }
}

Result<DataSocket> open_client_data(const SocketProtocol& proto, QperfControl& ctl,
                                    uint64_t sock_buf_size, uint16_t port, double timeout_s) {
  if (proto.family_override != 0 && !proto.connected) {
    return open_client_rds(proto, ctl, sock_buf_size, port, timeout_s);
  }
  auto server_port = recv_port(ctl, "port", timeout_s);
  if (!server_port.ok()) return server_port.status();
  const std::string qperf_text =
      std::string("could not make ") + proto.display + " connection to server";
  SockAddr server = peer_address(ctl.fd());
  auto sock = open_protocol_socket(proto, server.family());
  if (!sock.ok()) {
    return Status(sock.status().code(), qperf_text + ": " + sock.status().message());
  }
  Fd fd = std::move(*sock);
  reuse_address(fd.get());
  FP_RETURN_IF_ERROR(set_socket_buffers(fd.get(), sock_buf_size));
  // The same source address as the control connection (--bind, host%iface choose both).
  SockAddr source = protocol_address(proto, local_address(ctl.fd()));
  source.set_port(0);
  bind(fd.get(), source.get(), source.len);
  SockAddr target = protocol_address(proto, server);
  target.set_port(*server_port);
  // A blocking connect gives up after SO_SNDTIMEO; the data link's watchdog takes over after.
  timeval tv{static_cast<time_t>(timeout_s),
             static_cast<suseconds_t>(
                 (timeout_s - static_cast<double>(static_cast<time_t>(timeout_s))) * 1e6)};
  setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  if (connect(fd.get(), target.get(), target.len) < 0) {
    return Status::failed(qperf_text + ": " + errno_text("connect"));
  }
  return DataSocket{std::move(fd), target};
}

}  // namespace fabperf::qperf_wire
