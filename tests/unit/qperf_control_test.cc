// Unit tests of qperf's control connection (src/qperf_wire/control.h) over a loopback TCP pair:
// fixed-size transfers with deadlines, sync strings, and the urgent-byte error channel.
#include <gtest/gtest.h>
#include <sys/socket.h>

#include <string>
#include <thread>

#include "net/socket.h"
#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"
#include "socket_pair.h"

namespace fabperf::qperf_wire {
namespace {

TEST(QperfControl, FixedSizeMessagesAndTheirDeadline) {
  TcpPair p = loopback_tcp_pair();
  QperfControl server(p.server.get(), "client");
  QperfControl client(p.client.get(), "server");
  uint8_t port[kPortSize];
  encode_le(port, 40000, kPortSize);
  ASSERT_TRUE(server.send(port, sizeof port, "port", 1).ok());
  uint8_t got[kPortSize] = {};
  ASSERT_TRUE(client.recv(got, sizeof got, "port", 1).ok());
  EXPECT_EQ(decode_le(got, kPortSize), 40000u);
  Status s = client.recv(got, sizeof got, "port", 0.1);
  EXPECT_EQ(s.code(), Code::kTimeout);
  EXPECT_EQ(s.message(), "failed to receive port: timed out");
  p.server.reset();  // the server goes away
  s = client.recv(got, sizeof got, "results", 1);
  EXPECT_EQ(s.message(), "failed to receive results: server not responding");
}

TEST(QperfControl, SyncComparesTheText) {
  TcpPair p = loopback_tcp_pair();
  QperfControl server(p.server.get(), "client");
  QperfControl client(p.client.get(), "server");
  std::thread peer([&] { EXPECT_TRUE(server.sync(kSyncBefore, 2).ok()); });
  EXPECT_TRUE(client.sync(kSyncBefore, 2).ok());
  peer.join();
  // A peer that says something else fails the sync with qperf's words.
  const std::string wrong(kSyncBefore.size(), 'x');
  ASSERT_TRUE(server.send(wrong.data(), wrong.size(), "sync", 1).ok());
  Status s = client.sync(kSyncBefore, 2);
  EXPECT_EQ(s.message(), "synchronize synchronization before test failure: data does not match");
}

TEST(QperfControl, AnErrorTravelsAsUrgentByteAndText) {
  TcpPair p = loopback_tcp_pair();
  QperfControl server(p.server.get(), "client");
  QperfControl client(p.client.get(), "server");
  // Bytes sent before the error are not part of it: the receiver skips to the urgent mark.
  ASSERT_TRUE(server.send("junk", 4, "junk", 1).ok());
  server.send_error("bad request index: 99\n\x1b[31m");
  uint8_t port[kPortSize];
  Status s = client.recv(port, sizeof port, "port", 2);
  EXPECT_EQ(s.code(), Code::kFailed);
  // Control characters never reach a terminal.
  EXPECT_EQ(s.message(), "server: bad request index: 99??[31m");
}

TEST(QperfControl, APeersFinishIsNotedAndTheWaitGoesOn) {
  TcpPair p = loopback_tcp_pair();
  QperfControl server(p.server.get(), "client");
  QperfControl client(p.client.get(), "server");
  client.send_finished();
  // check() sees it once it has arrived (loopback: at once, but give it time on a busy host).
  for (int i = 0; i < 200 && !server.peer_finished(); ++i) {
    ASSERT_TRUE(server.check().ok());
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(server.peer_finished());
  uint8_t port[kPortSize];
  encode_le(port, 7, kPortSize);
  ASSERT_TRUE(client.send(port, sizeof port, "port", 1).ok());
  uint8_t got[kPortSize] = {};
  EXPECT_TRUE(server.recv(got, sizeof got, "port", 2).ok());
  EXPECT_EQ(decode_le(got, kPortSize), 7u);
}

TEST(QperfControl, CheckReportsAClosedPeer) {
  TcpPair p = loopback_tcp_pair();
  QperfControl server(p.server.get(), "client");
  p.client.reset();
  Status s;
  for (int i = 0; i < 200 && s.ok(); ++i) {
    s = server.check();
    if (s.ok()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(s.message(), "client closed the control connection during the test");
}

}  // namespace
}  // namespace fabperf::qperf_wire
