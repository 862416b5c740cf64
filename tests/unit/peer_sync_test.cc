// Unit tests: a fabric side's looks at its peer mid-run (fabric/peer_sync.h) over a socketpair
// standing for the control connection. The server's start barrier may arrive before the client
// looks for it; a look in between must leave it for the barrier's reader, not take it for a
// protocol error (an rdm_send_bi_bw run under ASan failed so: "unexpected EXCHANGE from server
// during the test"). A server's loop that reads no messages still counts the client's
// heartbeats waiting.
#include "fabric/peer_sync.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include "core/clock.h"
#include "net/control.h"
#include "options/option_table.h"
#include "socket_pair.h"

namespace fabperf {
namespace {

Status no_role(TestContext&) { return Status::success(); }

// Lets the clock pass `t` (what is measured here is silence: nothing to wait on).
void wait_past(int64_t t) {
  while (now_ns() <= t) std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

// A side's context and peer sync on one end of a socketpair; `peer` is the other end.
struct Side {
  TestSpec spec{"t",    TransportFamily::kFabric, TestKind::kBiBandwidth, "rdm", "", {}, 1, no_role,
                no_role};
  RunOptions opts = default_run_options();
  SocketPair pair;
  ControlChannel channel;
  ControlChannel peer;
  TestContext ctx;
  SessionError error;
  PeerSync sync;
  int64_t now = 1;
  explicit Side(Role role = Role::kClient, double timeout_s = 5)
      : channel(dup(pair.a)),
        peer(dup(pair.b)),
        ctx(role, spec, with_timeout(timeout_s), channel, "127.0.0.1"),
        sync(ctx, error) {
    channel.set_peer_label(role == Role::kClient ? "server" : "client");
  }
  RunOptions& with_timeout(double timeout_s) {
    opts.timeout = timeout_s;
    return opts;
  }
  // periodic() at its next due time.
  bool look() {
    now += kPeerCheckNs + 1;
    return sync.periodic(now);
  }
};

TEST(PeerSync, AnExchangeNobodyAwaitsIsAProtocolError) {
  Side c;
  ASSERT_TRUE(c.peer.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_FALSE(c.look());
  EXPECT_EQ(c.error.status().message(),
            "protocol error: unexpected EXCHANGE from server during the test");
}

TEST(PeerSync, AnAwaitedWordStaysForItsReaderThenExchangesAreUnexpectedAgain) {
  Side c;
  c.sync.expect_word();
  ASSERT_TRUE(c.peer.heartbeat(kHeartbeatNs + 1).ok());
  ASSERT_TRUE(c.peer.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_TRUE(c.look()) << c.error.status().message();
  EXPECT_TRUE(c.look()) << c.error.status().message();  // however many looks come first
  EXPECT_TRUE(c.sync.control_message_waiting());
  auto word = c.sync.read_peer_done();
  ASSERT_TRUE(word.ok()) << word.status().message();
  EXPECT_EQ((*word)["barrier"], "start");
  // Read: a second one is the server's mistake.
  ASSERT_TRUE(c.peer.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_FALSE(c.look());
  EXPECT_EQ(c.error.status().message(),
            "protocol error: unexpected EXCHANGE from server during the test");
}

// While the word is due, a server's failure waits for the same reader, who reports it.
TEST(PeerSync, AServersErrorWhileTheWordIsDueReachesTheReader) {
  Side c;
  c.sync.expect_word();
  ASSERT_TRUE(c.peer.send_error("rdm_send_bi_bw: fi_send: no space").ok());
  EXPECT_TRUE(c.look());
  auto word = c.sync.read_peer_done();
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().message(), "server: rdm_send_bi_bw: fi_send: no space");
}

// While the word is due, a server that promised heartbeats and went silent still ends the run.
TEST(PeerSync, ASilentServerEndsTheRunWhileTheWordIsDue) {
  Side c;
  c.channel.set_silence_limit(0.001);
  c.sync.expect_word();
  c.now = now_ns() + 10'000'000'000;  // far past the last time anything was heard
  EXPECT_FALSE(c.look());
  EXPECT_NE(c.error.status().message().find("nothing from the server"), std::string::npos)
      << c.error.status().message();
}

// A server whose loop reads no messages for a while (a drain, its run past the client's end
// message) has the client's heartbeats waiting unread: they count, and only a client that sent
// none is silent. (An rdm_write_bi_bw run on a loaded host failed so: "server: nothing from
// the client for 5 s", its client alive and beating.)
TEST(PeerSync, AServerCountsTheHeartbeatsItsLoopHasNotRead) {
  Side s(Role::kServer, 0.5);
  const int64_t quiet_until = s.channel.last_heard_ns() + 600'000'000;
  wait_past(quiet_until);
  ASSERT_TRUE(s.peer.send(MsgType::kHeartbeat, nlohmann::json::object()).ok());
  EXPECT_TRUE(s.sync.client_alive(now_ns())) << s.error.status().message();
  // Nothing since: silent for the timeout.
  wait_past(s.channel.last_heard_ns() + 600'000'000);
  EXPECT_FALSE(s.sync.client_alive(now_ns()));
  EXPECT_EQ(s.error.status().message(), "nothing from the client for 0.5 s (stopped or gone?)");
}

}  // namespace
}  // namespace fabperf
