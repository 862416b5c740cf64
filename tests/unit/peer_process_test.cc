// The process at the other end of a TCP connection, found through /proc: parsing the socket
// tables, and real connections whose other end this process (or a child of it) holds.
#include "net/peer_process.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>

#include "net/socket.h"

namespace fabperf {
namespace {

TEST(PeerProcessTest, ParsesProcNetTcpRows) {
  const char* v4 =
      "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  "
      "timeout inode\n"
      "   0: 0100007F:4D35 0300007F:C350 01 00000000:00000000 00:00000000 00000000     0        "
      "0 123456 1 0000000000000000 20 4 30 10 -1\n"
      "   1: garbage\n"
      "   2: 0100007F:0016 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        "
      "0 0 1 0000000000000000 100 0 0 10 0\n";
  auto rows = parse_proc_net_tcp(v4, AF_INET);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].local.to_string(), "127.0.0.1:19765");
  EXPECT_EQ(rows[0].remote.to_string(), "127.0.0.3:50000");
  EXPECT_EQ(rows[0].inode, 123456u);
  EXPECT_EQ(rows[1].inode, 0u);

  // ::ffff:127.0.0.1 port 80 and ::1 port 443, as the kernel prints them on little-endian.
  const char* v6 =
      "  sl  local_address                         remote_address                        st "
      "tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode\n"
      "   0: 0000000000000000FFFF00000100007F:0050 00000000000000000000000001000000:01BB 01 "
      "00000000:00000000 00:00000000 00000000     0        0 777 1 0000000000000000 20 4 0 10 "
      "-1\n";
  rows = parse_proc_net_tcp(v6, AF_INET6);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].local.host(), "127.0.0.1");  // v4-mapped shows as IPv4
  EXPECT_EQ(rows[0].local.port(), 80);
  EXPECT_EQ(rows[0].remote.host(), "::1");
  EXPECT_EQ(rows[0].inode, 777u);
}

// A listener, a client connected to it from this process, and the accepted end.
struct Pair {
  Fd listener, client, served;
};

Pair connected_pair(const std::string& bind_addr, const std::string& connect_to) {
  Pair p;
  auto listener = listen_tcp(bind_addr, 0, 4);
  EXPECT_TRUE(listener.ok()) << listener.status().message();
  if (!listener.ok()) return p;
  p.listener = std::move(*listener);
  uint16_t port = local_address(p.listener.get()).port();
  auto client = connect_tcp(connect_to, port, ConnectOptions{});
  EXPECT_TRUE(client.ok()) << client.status().message();
  if (!client.ok()) return p;
  p.client = std::move(*client);
  SockAddr peer;
  auto served = accept_until(p.listener.get(), Deadline::after(10), &peer);
  EXPECT_TRUE(served.ok()) << served.status().message();
  if (served.ok()) p.served = std::move(*served);
  return p;
}

TEST(PeerProcessTest, FindsThisProcessAtTheOtherEnd) {
  Pair p = connected_pair("127.0.0.1", "127.0.0.1");
  ASSERT_TRUE(p.served.valid());
  auto pids = peer_processes(p.served.get());
  ASSERT_TRUE(pids.ok()) << pids.status().message();
  EXPECT_EQ(*pids, std::vector<pid_t>{getpid()});
  // And from the client's side, the server's end is ours too.
  auto back = peer_processes(p.client.get());
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(*back, std::vector<pid_t>{getpid()});
}

TEST(PeerProcessTest, IPv4ClientOfADualStackListener) {
  // bind "" listens on :: (dual-stack) where IPv6 exists: the served end is ::ffff:127.0.0.1
  // in /proc/net/tcp6 while the client's end is 127.0.0.1 in /proc/net/tcp.
  Pair p = connected_pair("", "127.0.0.1");
  ASSERT_TRUE(p.served.valid());
  auto pids = peer_processes(p.served.get());
  ASSERT_TRUE(pids.ok()) << pids.status().message();
  EXPECT_EQ(*pids, std::vector<pid_t>{getpid()});
}

TEST(PeerProcessTest, AForkedChildHoldingTheSocketIsAPeerToo) {
  Pair p = connected_pair("127.0.0.1", "127.0.0.1");
  ASSERT_TRUE(p.served.valid());
  int gate[2];
  ASSERT_EQ(pipe(gate), 0);
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Holds every descriptor the parent had, the client socket included, until told to go.
    char byte;
    close(gate[1]);
    while (read(gate[0], &byte, 1) < 0 && errno == EINTR) {
    }
    _exit(0);
  }
  close(gate[0]);
  auto pids = peer_processes(p.served.get());
  close(gate[1]);
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(pids.ok()) << pids.status().message();
  std::vector<pid_t> want{getpid(), child};
  std::sort(want.begin(), want.end());
  EXPECT_EQ(*pids, want);
}

TEST(PeerProcessTest, APeerThatClosedIsNotFound) {
  Pair p = connected_pair("127.0.0.1", "127.0.0.1");
  ASSERT_TRUE(p.served.valid());
  p.client.reset();
  auto pids = peer_processes(p.served.get());
  ASSERT_FALSE(pids.ok());
  EXPECT_NE(pids.status().message().find("127.0.0.1:"), std::string::npos)
      << pids.status().message();
}

TEST(PeerProcessTest, NotASocket) {
  Fd null_file(open("/dev/null", O_RDONLY));
  auto pids = peer_processes(null_file.get());
  ASSERT_FALSE(pids.ok());
  EXPECT_NE(pids.status().message().find("not a socket"), std::string::npos);
}

TEST(PeerProcessTest, ControlPeerDescribesItsProcesses) {
  Pair p = connected_pair("127.0.0.1", "127.0.0.1");
  ASSERT_TRUE(p.served.valid());
  ControlPeer peer = ControlPeer::of_connection(p.served.get());
  EXPECT_EQ(peer.host, "127.0.0.1");
  auto pids = peer.processes();
  ASSERT_TRUE(pids.ok()) << pids.status().message();
  EXPECT_EQ(peer.describe(*pids), "127.0.0.1 (process " + std::to_string(getpid()) + ")");
  EXPECT_EQ(peer.describe({4, 5}), "127.0.0.1 (processes 4, 5)");
  ControlPeer remote;
  remote.host = "10.0.0.2";
  EXPECT_FALSE(remote.processes().ok());
}

}  // namespace
}  // namespace fabperf
