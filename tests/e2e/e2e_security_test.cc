// End-to-end: --allow and --auth_key_file against a real server process on loopback.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "net/socket.h"

namespace fabperf::testing {
namespace {

bool ipv6_loopback() {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

TEST(RobustAccess, AllowListRefusesOthersWithTheReason) {
  LoggedServer server({"--allow", "10.0.0.0/8,192.168.0.0/16"});
  int lines = server.log_lines();
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat", "udp_lat"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "access denied: 127.0.0.1 is not in this server's --allow list"))
      << r.err;
  // Refused once: the run stops rather than knocking again for the next test.
  EXPECT_FALSE(contains(r.err, "udp_lat:")) << r.err;
  EXPECT_EQ(server.wait_log_lines(lines + 1, 5), lines + 1) << server.log();
}

TEST(RobustAccess, Ipv4AndIpv6Blocks) {
  LoggedServer v4_only({"--allow", "127.0.0.0/8"});
  RunOutput ok = run({"127.0.0.1", "-lp", v4_only.port_arg(), "-n", "10", "tcp_lat"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;  // the dual-stack listener sees ::ffff:127.0.0.1
  if (!ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback";
  RunOutput v6_refused = run({"::1", "-lp", v4_only.port_arg(), "-n", "10", "tcp_lat"});
  EXPECT_EQ(v6_refused.exit_code, 1);
  EXPECT_TRUE(contains(v6_refused.err, "access denied: ::1")) << v6_refused.err;
  LoggedServer v6_only({"--allow", "::1/128"});
  RunOutput v6_ok = run({"::1", "-lp", v6_only.port_arg(), "-n", "10", "udp_lat"});
  EXPECT_EQ(v6_ok.exit_code, 0) << v6_ok.err;
  RunOutput v4_refused = run({"127.0.0.1", "-lp", v6_only.port_arg(), "-n", "10", "tcp_lat"});
  EXPECT_EQ(v4_refused.exit_code, 1);
}

TEST(RobustAccess, BadAllowListIsAUsageError) {
  RunOutput r = run({"--allow", "10.0.0.0/40"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--allow")) << r.err;
}

class RobustAuth : public ::testing::Test {
 protected:
  void SetUp() override {
    key_ = dir_.file("key");
    other_ = dir_.file("other");
    write_file(key_, kSecret + "\n");
    write_file(other_, "a-different-key-of-enough-length\n");
  }
  const std::string kSecret = "s3cret-shared-by-both-sides-0123456789";
  TempDir dir_;
  std::string key_, other_;
};

TEST_F(RobustAuth, SameKeyRuns) {
  LoggedServer server({"--auth_key_file", key_});
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "--auth_key_file", key_, "-n", "20",
                     "conf", "tcp_lat", "udp_bw"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "rem_node")) << r.out;  // server info arrives after the proof
  RunOutput loopback = run({"--loopback", "--auth_key_file", key_, "-n", "20", "tcp_lat"});
  EXPECT_EQ(loopback.exit_code, 0) << loopback.err;
}

TEST_F(RobustAuth, RefusedClientsAreToldWhy) {
  LoggedServer server({"--auth_key_file", key_});
  int lines = server.log_lines();
  RunOutput none = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat"});
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_TRUE(contains(none.err, "authentication required")) << none.err;
  RunOutput wrong = run(
      {"127.0.0.1", "-lp", server.port_arg(), "--auth_key_file", other_, "-n", "10", "tcp_lat"});
  EXPECT_EQ(wrong.exit_code, 1);
  EXPECT_TRUE(contains(wrong.err, "authentication failed")) << wrong.err;
  EXPECT_EQ(server.wait_log_lines(lines + 2, 5), lines + 2) << server.log();
  // A client with a key does not run against a server that cannot prove it has one.
  LoggedServer open_server;
  RunOutput unproven = run(
      {"127.0.0.1", "-lp", open_server.port_arg(), "--auth_key_file", key_, "-n", "10", "tcp_lat"});
  EXPECT_EQ(unproven.exit_code, 1);
  EXPECT_TRUE(contains(unproven.err, "does not prove it holds the key")) << unproven.err;
}

TEST_F(RobustAuth, UnsafeKeyFilesAreUsageErrors) {
  std::string exposed = dir_.file("exposed");
  write_file(exposed, kSecret, 0644);
  RunOutput client = run({"127.0.0.1", "--auth_key_file", exposed, "tcp_lat"});
  EXPECT_EQ(client.exit_code, 2);
  EXPECT_TRUE(contains(client.err, "chmod 600")) << client.err;
  RunOutput server = run({"--auth_key_file", dir_.file("missing")});
  EXPECT_EQ(server.exit_code, 2);
  EXPECT_TRUE(contains(server.err, "missing")) << server.err;
}

// Relays one connection and keeps every byte that crossed it, both ways.
class Recorder {
 public:
  explicit Recorder(int target_port) : target_(target_port) {
    auto listener = fabperf::listen_tcp("127.0.0.1", 0, 4);
    if (!listener.ok()) ADD_FAILURE() << listener.status().message();
    listener_ = listener.ok() ? std::move(listener).value() : fabperf::Fd();
    port_ = listener_.valid() ? fabperf::local_address(listener_.get()).port() : 0;
    thread_ = std::thread([this] { Relay(); });
  }
  ~Recorder() { thread_.join(); }
  int port() const { return port_; }
  std::string bytes() {
    thread_.join();
    thread_ = std::thread([] {});
    return bytes_;
  }

 private:
  void Relay() {
    pollfd lp{listener_.get(), POLLIN, 0};
    if (poll(&lp, 1, 10000) <= 0) return;
    int a = accept(listener_.get(), nullptr, nullptr);
    int b = connect_raw(target_);
    pollfd fds[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
    for (int open = 2; open > 0 && poll(fds, 2, 10000) > 0;) {
      for (int i = 0; i < 2; ++i) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        char buf[4096];
        ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
        if (n <= 0) {
          shutdown(fds[1 - i].fd, SHUT_WR);
          fds[i].fd = -1;
          --open;
          continue;
        }
        bytes_.append(buf, static_cast<size_t>(n));
        send(fds[1 - i].fd, buf, static_cast<size_t>(n), MSG_NOSIGNAL);
      }
    }
    close(a);
    close(b);
  }
  int target_, port_ = 0;
  fabperf::Fd listener_;
  std::thread thread_;
  std::string bytes_;
};

TEST_F(RobustAuth, TheKeyNeverCrossesTheWire) {
  LoggedServer server({"--auth_key_file", key_});
  Recorder wire(server.port());
  RunOutput r =
      run({"127.0.0.1", "-lp", std::to_string(wire.port()), "--auth_key_file", key_, "conf"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string seen = wire.bytes();
  EXPECT_TRUE(contains(seen, "hmac-sha256")) << "the recorder saw the handshake";
  EXPECT_FALSE(contains(seen, kSecret));
  EXPECT_FALSE(contains(seen, kSecret.substr(0, 16)));
}

}  // namespace
}  // namespace fabperf::testing
