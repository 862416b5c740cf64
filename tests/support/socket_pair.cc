// Unit-test support: the socket pairs of socket_pair.h.
#include "socket_pair.h"

#include "socket/sock_protocol.h"

namespace fabperf {

TcpPair loopback_tcp_pair() {
  TcpPair p;
  auto listener = listen_tcp("127.0.0.1", 0, 1);
  EXPECT_TRUE(listener.ok()) << listener.status().message();
  if (!listener.ok()) return p;
  const uint16_t port = local_address(listener->get()).port();
  auto c = connect_tcp("127.0.0.1", port, ConnectOptions{1, 5, "", ""});
  EXPECT_TRUE(c.ok()) << c.status().message();
  auto s = accept_until(listener->get(), Deadline::after(5), nullptr);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (c.ok()) p.client = std::move(*c);
  if (s.ok()) p.server = std::move(*s);
  return p;
}

LinkPair link_pair(const char* protocol, int type, double look_s) {
  int fds[2];
  EXPECT_EQ(socketpair(AF_UNIX, type, 0, fds), 0);
  return LinkPair{DataLink(*find_socket_protocol(protocol), Fd(fds[0]), SockAddr{}, false, look_s),
                  Fd(fds[1])};
}

}  // namespace fabperf
