// Socket helpers with deadlines: resolve, connect, listen, accept, send and receive in full.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace fabperf {

// Owns a file descriptor; closes it once.
class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  bool valid() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// A socket address of either family.
struct SockAddr {
  sockaddr_storage storage{};
  socklen_t len = 0;
  int family() const { return storage.ss_family; }
  const sockaddr* get() const { return reinterpret_cast<const sockaddr*>(&storage); }
  sockaddr* get() { return reinterpret_cast<sockaddr*>(&storage); }
  std::string host() const;  // numeric, without brackets
  uint16_t port() const;
  void set_port(uint16_t port);
  std::string to_string() const;  // host:port, [v6]:port
  // A v4-mapped IPv6 address (::ffff:a.b.c.d, an IPv4 peer on a dual-stack socket) as the
  // plain IPv4 address with the same port; any other address as it is.
  SockAddr unmapped() const;
};

// Splits "host%iface" (qperf users' way of choosing the interface) into its parts.
struct HostSpec {
  std::string host;
  std::string iface;  // empty when none
};
HostSpec split_host_iface(const std::string& text);

// Resolves a name or literal (IPv4 or IPv6) with AF_UNSPEC; `passive` for wildcard listening.
Result<std::vector<SockAddr>> resolve(const std::string& host, uint16_t port, int socktype,
                                      bool passive = false);

// Connects a TCP socket to the first address that answers, retrying every 200 ms until
// `wait_s` passes; each attempt itself is bounded by `attempt_timeout_s`.
struct ConnectOptions {
  double wait_s = 5;
  double attempt_timeout_s = 5;
  std::string bind_addr;  // --bind: local source address
  std::string iface;      // SO_BINDTODEVICE
};
Result<Fd> connect_tcp(const std::string& host, uint16_t port, const ConnectOptions& options);

// Listens on TCP `port` (0 = ephemeral). Dual-stack when IPv6 exists, IPv4 otherwise.
Result<Fd> listen_tcp(const std::string& bind_addr, uint16_t port, int backlog);

Status set_nonblocking(int fd, bool on);
Status set_nodelay(int fd);
Status bind_to_device(int fd, const std::string& iface);

// Waits for `events` on fd until the deadline. Returns the revents, 0 on timeout.
Result<short> wait_fd(int fd, short events, const Deadline& deadline);

// Accepts one connection before the deadline.
Result<Fd> accept_until(int listen_fd, const Deadline& deadline, SockAddr* peer);

// Sends or receives exactly `len` bytes before the deadline (fd may be blocking or not).
// recv_all returns Failed("connection closed by peer") on EOF.
Status send_all(int fd, const void* data, size_t len, const Deadline& deadline);
Status recv_all(int fd, void* data, size_t len, const Deadline& deadline);

SockAddr local_address(int fd);
SockAddr peer_address(int fd);

// "connect: Connection refused" style message from errno.
std::string errno_text(const char* what);
std::string errno_text(const char* what, int err);

}  // namespace fabperf
