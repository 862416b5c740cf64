// Unit-test support: connected pairs of sockets, each end closed at the end of the scope (a Unix
// stream pair, a loopback TCP connection, a DataLink on one end of a socketpair), and whether a
// descriptor is open in the calling thread's table.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include "net/socket.h"
#include "socket/socket_link.h"

namespace fabperf {

struct SocketPair {
  int a = -1, b = -1;
  SocketPair() {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    a = fds[0];
    b = fds[1];
  }
  ~SocketPair() {
    if (a >= 0) close(a);
    if (b >= 0) close(b);
  }
};

inline bool open_here(int fd) { return fcntl(fd, F_GETFD) != -1; }

// Two ends of one TCP connection on 127.0.0.1 (a control connection's shape); a failure to set
// it up fails the calling test.
struct TcpPair {
  Fd client, server;
};
TcpPair loopback_tcp_pair();

// A DataLink of `protocol` (blocking, not busy-polling, waiting at most `look_s` per receive)
// on one end of a socketpair of `type`; the test drives the other end, `peer`.
struct LinkPair {
  DataLink link;
  Fd peer;
};
LinkPair link_pair(const char* protocol, int type, double look_s);

}  // namespace fabperf
