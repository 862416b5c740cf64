// Unit-test support: a connected pair of Unix stream sockets, closed at the end of the scope,
// and whether a descriptor is open in the calling thread's table.
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

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

}  // namespace fabperf
