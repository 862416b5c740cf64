// Unit tests: socket addresses as the data path takes them from the control connection.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>

#include "net/socket.h"

namespace fabperf {
namespace {

SockAddr v6(const char* text, uint16_t port) {
  SockAddr a;
  auto* a6 = reinterpret_cast<sockaddr_in6*>(&a.storage);
  a6->sin6_family = AF_INET6;
  a6->sin6_port = htons(port);
  EXPECT_EQ(inet_pton(AF_INET6, text, &a6->sin6_addr), 1) << text;
  a.len = sizeof(sockaddr_in6);
  return a;
}

TEST(SockAddrTest, AV4MappedAddressUnmapsToPlainIPv4WithItsPort) {
  SockAddr plain = v6("::ffff:127.0.0.2", 4321).unmapped();
  EXPECT_EQ(plain.family(), AF_INET);
  EXPECT_EQ(plain.len, sizeof(sockaddr_in));
  EXPECT_EQ(plain.host(), "127.0.0.2");
  EXPECT_EQ(plain.port(), 4321);
  EXPECT_EQ(plain.to_string(), "127.0.0.2:4321");
}

TEST(SockAddrTest, OtherAddressesStayAsTheyAre) {
  SockAddr loop6 = v6("::1", 7).unmapped();
  EXPECT_EQ(loop6.family(), AF_INET6);
  EXPECT_EQ(loop6.to_string(), "[::1]:7");
  SockAddr compat = v6("::127.0.0.1", 7).unmapped();  // not v4-mapped
  EXPECT_EQ(compat.family(), AF_INET6);
  SockAddr v4 = v6("::ffff:10.0.0.1", 9).unmapped().unmapped();
  EXPECT_EQ(v4.family(), AF_INET);
  EXPECT_EQ(v4.to_string(), "10.0.0.1:9");
  EXPECT_EQ(SockAddr{}.unmapped().family(), AF_UNSPEC);
}

}  // namespace
}  // namespace fabperf
