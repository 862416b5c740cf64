// Socket helpers: every blocking step is bounded by a deadline.
#include "net/socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>

#include <thread>

namespace fabperf {

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);
  fd_ = fd;
}

std::string errno_text(const char* what, int err) {
  return std::string(what) + ": " + strerror(err);
}
std::string errno_text(const char* what) { return errno_text(what, errno); }

std::string SockAddr::host() const {
  char buf[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, buf, sizeof buf);
  } else if (family() == AF_INET6) {
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&storage);
    // A v4-mapped peer on a dual-stack socket is shown (and compared) as plain IPv4.
    if (IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) {
      inet_ntop(AF_INET, &a6->sin6_addr.s6_addr[12], buf, sizeof buf);
    } else {
      inet_ntop(AF_INET6, &a6->sin6_addr, buf, sizeof buf);
    }
  }
  return buf;
}

uint16_t SockAddr::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
}

void SockAddr::set_port(uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

SockAddr SockAddr::unmapped() const {
  if (family() != AF_INET6) return *this;
  const auto* a6 = reinterpret_cast<const sockaddr_in6*>(&storage);
  if (!IN6_IS_ADDR_V4MAPPED(&a6->sin6_addr)) return *this;
  SockAddr out;
  auto* a4 = reinterpret_cast<sockaddr_in*>(&out.storage);
  a4->sin_family = AF_INET;
  a4->sin_port = a6->sin6_port;
  memcpy(&a4->sin_addr, &a6->sin6_addr.s6_addr[12], sizeof a4->sin_addr);
  out.len = sizeof(sockaddr_in);
  return out;
}

std::string SockAddr::to_string() const {
  std::string h = host();
  return (h.find(':') != std::string::npos ? "[" + h + "]" : h) + ":" + std::to_string(port());
}

HostSpec split_host_iface(const std::string& text) {
  HostSpec spec{text, ""};
  std::string h = text;
  if (h.size() > 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  spec.host = h;
  auto pct = h.rfind('%');
  if (pct != std::string::npos) {
    spec.host = h.substr(0, pct);
    spec.iface = h.substr(pct + 1);
  }
  return spec;
}

Result<std::vector<SockAddr>> resolve(const std::string& host, uint16_t port, int socktype,
                                      bool passive) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = socktype;
  hints.ai_flags = AI_NUMERICSERV | (passive ? AI_PASSIVE : 0) | AI_ADDRCONFIG;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  const char* node = host.empty() ? nullptr : host.c_str();
  int rc = getaddrinfo(node, service.c_str(), &hints, &list);
  if (rc == EAI_NONAME || rc == EAI_ADDRFAMILY) {
    // AI_ADDRCONFIG hides loopback-only families on hosts without a routable address.
    hints.ai_flags &= ~AI_ADDRCONFIG;
    rc = getaddrinfo(node, service.c_str(), &hints, &list);
  }
  if (rc != 0) {
    return Status::failed(host + ": cannot resolve: " + gai_strerror(rc));
  }
  std::vector<SockAddr> out;
  for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
    SockAddr addr;
    memcpy(&addr.storage, ai->ai_addr, ai->ai_addrlen);
    addr.len = ai->ai_addrlen;
    out.push_back(addr);
  }
  freeaddrinfo(list);
  if (out.empty()) return Status::failed(host + ": no address");
  return out;
}

Status set_nonblocking(int fd, bool on) {
  int flags = fcntl(fd, F_GETFL, 0);
  if (flags < 0) return Status::failed(errno_text("fcntl"));
  flags = on ? (flags | O_NONBLOCK) : (flags & ~O_NONBLOCK);
  if (fcntl(fd, F_SETFL, flags) < 0) return Status::failed(errno_text("fcntl"));
  return Status::success();
}

Status set_nodelay(int fd) {
  int one = 1;
  if (setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) < 0) {
    return Status::failed(errno_text("setsockopt TCP_NODELAY"));
  }
  return Status::success();
}

Status bind_to_device(int fd, const std::string& iface) {
  if (iface.empty()) return Status::success();
  if (if_nametoindex(iface.c_str()) == 0) {
    return Status::usage("interface " + iface + ": no such interface");
  }
  if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, iface.c_str(), iface.size()) < 0) {
    return Status::failed(errno_text(("bind to interface " + iface).c_str()));
  }
  return Status::success();
}

Result<short> wait_fd(int fd, short events, const Deadline& deadline) {
  for (;;) {
    pollfd pfd{fd, events, 0};
    int rc = poll(&pfd, 1, deadline.remaining_ms());
    if (rc > 0) return pfd.revents;
    if (rc == 0) return static_cast<short>(0);
    if (errno != EINTR) return Status::failed(errno_text("poll"));
    if (deadline.expired()) return static_cast<short>(0);
  }
}

namespace {

// Connect errors no retry can mend: the address is wrong for this host (a --bind address it
// does not have, a link-local address without its interface). ECONNREFUSED and the like can
// change when the server starts, so those are retried for -ws.
bool permanent_connect_error(int err) {
  return err == EINVAL || err == EADDRNOTAVAIL || err == EAFNOSUPPORT;
}

// What the kernel's EINVAL means for an IPv6 link-local address without a scope.
std::string scope_hint(const SockAddr& addr, int err) {
  if (err != EINVAL || addr.family() != AF_INET6) return "";
  const auto* in6 = reinterpret_cast<const sockaddr_in6*>(addr.get());
  if (!IN6_IS_ADDR_LINKLOCAL(&in6->sin6_addr) || in6->sin6_scope_id != 0) return "";
  return " (a link-local address needs its interface: HOST%IFACE, e.g. " + addr.host() + "%eth0)";
}

// One bounded connect attempt to one address. An error that cannot change is kUsage.
Result<Fd> connect_once(const SockAddr& addr, const ConnectOptions& options) {
  Fd fd(socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd.valid()) return Status::failed(errno_text("socket"));
  FP_RETURN_IF_ERROR(bind_to_device(fd.get(), options.iface));
  if (!options.bind_addr.empty()) {
    auto local = resolve(options.bind_addr, 0, SOCK_STREAM, true);
    if (!local.ok()) return local.status().prefixed("--bind");
    bool bound = false;
    for (const SockAddr& l : *local) {
      if (l.family() == addr.family() && bind(fd.get(), l.get(), l.len) == 0) {
        bound = true;
        break;
      }
    }
    if (!bound) {
      int err = errno ? errno : EAFNOSUPPORT;
      std::string text =
          "--bind " + options.bind_addr + ": cannot bind for " + addr.host() + ": " + strerror(err);
      return permanent_connect_error(err) ? Status::usage(text) : Status::failed(text);
    }
  }
  FP_RETURN_IF_ERROR(set_nonblocking(fd.get(), true));
  if (connect(fd.get(), addr.get(), addr.len) < 0) {
    if (errno != EINPROGRESS) {
      int err = errno;
      std::string text = errno_text("connect", err) + scope_hint(addr, err);
      return permanent_connect_error(err) ? Status::usage(text) : Status::failed(text);
    }
    auto ready = wait_fd(fd.get(), POLLOUT, Deadline::after(options.attempt_timeout_s));
    if (!ready.ok()) return ready.status();
    if (*ready == 0) return Status::timeout("connect: timed out");
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd.get(), SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return Status::failed(errno_text("connect", err));
  }
  FP_RETURN_IF_ERROR(set_nonblocking(fd.get(), false));
  return fd;
}

}  // namespace

Result<Fd> connect_tcp(const std::string& host, uint16_t port, const ConnectOptions& options) {
  auto addrs = resolve(host, port, SOCK_STREAM);
  if (!addrs.ok()) return addrs.status();
  Deadline give_up = Deadline::after(options.wait_s);
  Status last;
  for (;;) {
    bool all_permanent = true;  // every address failed in a way no retry mends
    for (const SockAddr& addr : *addrs) {
      auto fd = connect_once(addr, options);
      if (fd.ok()) return fd;
      last = fd.status();
      if (last.code() != Code::kUsage) all_permanent = false;
    }
    if (all_permanent) {
      return Status::usage("failed to connect to " + host + " port " + std::to_string(port) + ": " +
                           last.message());
    }
    if (give_up.expired()) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::min(200, give_up.remaining_ms())));
  }
  return Status::failed("failed to connect to " + host + " port " + std::to_string(port) + ": " +
                        last.message());
}

Result<Fd> listen_tcp(const std::string& bind_addr, uint16_t port, int backlog) {
  std::vector<SockAddr> candidates;
  if (bind_addr.empty()) {
    // Dual-stack first; a host with IPv6 disabled falls back to IPv4 (qperf fails there).
    SockAddr v6;
    auto* a6 = reinterpret_cast<sockaddr_in6*>(&v6.storage);
    a6->sin6_family = AF_INET6;
    a6->sin6_addr = in6addr_any;
    v6.len = sizeof(sockaddr_in6);
    SockAddr v4;
    auto* a4 = reinterpret_cast<sockaddr_in*>(&v4.storage);
    a4->sin_family = AF_INET;
    a4->sin_addr.s_addr = htonl(INADDR_ANY);
    v4.len = sizeof(sockaddr_in);
    candidates = {v6, v4};
  } else {
    auto addrs = resolve(bind_addr, 0, SOCK_STREAM, true);
    if (!addrs.ok()) return addrs.status();
    candidates = *addrs;
  }
  Status last = Status::failed("no address to listen on");
  for (SockAddr addr : candidates) {
    addr.set_port(port);
    Fd fd(socket(addr.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd.valid()) {
      last = Status::failed(errno_text("socket"));
      continue;
    }
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (addr.family() == AF_INET6 && bind_addr.empty()) {
      int zero = 0;
      setsockopt(fd.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
    }
    if (bind(fd.get(), addr.get(), addr.len) < 0) {
      last = Status::failed(errno_text(("bind " + addr.to_string()).c_str()));
      if (errno == EADDRINUSE) return last;
      continue;
    }
    if (listen(fd.get(), backlog) < 0) {
      last = Status::failed(errno_text("listen"));
      continue;
    }
    return fd;
  }
  return last;
}

Result<Fd> accept_until(int listen_fd, const Deadline& deadline, SockAddr* peer) {
  for (;;) {
    auto ready = wait_fd(listen_fd, POLLIN, deadline);
    if (!ready.ok()) return ready.status();
    if (*ready == 0) return Status::timeout("timed out waiting for a connection");
    SockAddr addr;
    addr.len = sizeof addr.storage;
    int fd = accept4(listen_fd, addr.get(), &addr.len, SOCK_CLOEXEC);
    if (fd >= 0) {
      if (peer) *peer = addr;
      return Fd(fd);
    }
    if (errno != EINTR && errno != EAGAIN && errno != ECONNABORTED) {
      return Status::failed(errno_text("accept"));
    }
  }
}

Status send_all(int fd, const void* data, size_t len, const Deadline& deadline) {
  const char* p = static_cast<const char*>(data);
  while (len > 0) {
    ssize_t n = send(fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      auto ready = wait_fd(fd, POLLOUT, deadline);
      if (!ready.ok()) return ready.status();
      if (*ready == 0) return Status::timeout("send: timed out");
      continue;
    }
    return Status::failed(errno_text("send"));
  }
  return Status::success();
}

Status recv_all(int fd, void* data, size_t len, const Deadline& deadline) {
  char* p = static_cast<char*>(data);
  while (len > 0) {
    ssize_t n = recv(fd, p, len, MSG_DONTWAIT);
    if (n > 0) {
      p += n;
      len -= static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return Status::failed("connection closed by peer");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      auto ready = wait_fd(fd, POLLIN, deadline);
      if (!ready.ok()) return ready.status();
      if (*ready == 0) return Status::timeout("receive: timed out");
      continue;
    }
    return Status::failed(errno_text("recv"));
  }
  return Status::success();
}

SockAddr local_address(int fd) {
  SockAddr addr;
  addr.len = sizeof addr.storage;
  getsockname(fd, addr.get(), &addr.len);
  return addr;
}

SockAddr peer_address(int fd) {
  SockAddr addr;
  addr.len = sizeof addr.storage;
  getpeername(fd, addr.get(), &addr.len);
  return addr;
}

}  // namespace fabperf
