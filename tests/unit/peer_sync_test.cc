// Unit tests: a fabric client's looks at its server mid-run (fabric/peer_sync.h) over a
// socketpair standing for the control connection. The server's start barrier may arrive before
// the client looks for it; a look in between must leave it for the barrier's reader, not take it
// for a protocol error (an rdm_send_bi_bw run under ASan failed so: "unexpected EXCHANGE from
// server during the test").
#include "fabric/peer_sync.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include "net/control.h"
#include "options/option_table.h"
#include "socket_pair.h"

namespace fabperf {
namespace {

Status no_role(TestContext&) { return Status::success(); }

// A client's context and peer sync on one end of a socketpair; `server` is the other end.
struct Client {
  TestSpec spec{"t",    TransportFamily::kFabric, TestKind::kBiBandwidth, "rdm", "", {}, 1, no_role,
                no_role};
  RunOptions opts = default_run_options();
  SocketPair pair;
  ControlChannel channel;
  ControlChannel server;
  TestContext ctx;
  SessionError error;
  PeerSync sync;
  int64_t now = 1;
  Client()
      : channel(dup(pair.a)),
        server(dup(pair.b)),
        ctx(Role::kClient, spec, opts, channel, "127.0.0.1"),
        sync(ctx, error) {
    channel.set_peer_label("server");
  }
  // periodic() at its next due time.
  bool look() {
    now += kPeerCheckNs + 1;
    return sync.periodic(now);
  }
};

TEST(PeerSync, AnExchangeNobodyAwaitsIsAProtocolError) {
  Client c;
  ASSERT_TRUE(c.server.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_FALSE(c.look());
  EXPECT_EQ(c.error.status().message(),
            "protocol error: unexpected EXCHANGE from server during the test");
}

TEST(PeerSync, AnAwaitedWordStaysForItsReaderThenExchangesAreUnexpectedAgain) {
  Client c;
  c.sync.expect_word();
  ASSERT_TRUE(c.server.heartbeat(kHeartbeatNs + 1).ok());
  ASSERT_TRUE(c.server.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_TRUE(c.look()) << c.error.status().message();
  EXPECT_TRUE(c.look()) << c.error.status().message();  // however many looks come first
  EXPECT_TRUE(c.sync.control_message_waiting());
  auto word = c.sync.read_peer_done();
  ASSERT_TRUE(word.ok()) << word.status().message();
  EXPECT_EQ((*word)["barrier"], "start");
  // Read: a second one is the server's mistake.
  ASSERT_TRUE(c.server.send(MsgType::kExchange, {{"barrier", "start"}}).ok());
  EXPECT_FALSE(c.look());
  EXPECT_EQ(c.error.status().message(),
            "protocol error: unexpected EXCHANGE from server during the test");
}

// While the word is due, a server's failure waits for the same reader, who reports it.
TEST(PeerSync, AServersErrorWhileTheWordIsDueReachesTheReader) {
  Client c;
  c.sync.expect_word();
  ASSERT_TRUE(c.server.send_error("rdm_send_bi_bw: fi_send: no space").ok());
  EXPECT_TRUE(c.look());
  auto word = c.sync.read_peer_done();
  ASSERT_FALSE(word.ok());
  EXPECT_EQ(word.status().message(), "server: rdm_send_bi_bw: fi_send: no space");
}

// While the word is due, a server that promised heartbeats and went silent still ends the run.
TEST(PeerSync, ASilentServerEndsTheRunWhileTheWordIsDue) {
  Client c;
  c.channel.set_silence_limit(0.001);
  c.sync.expect_word();
  c.now = now_ns() + 10'000'000'000;  // far past the last time anything was heard
  EXPECT_FALSE(c.look());
  EXPECT_NE(c.error.status().message().find("nothing from the server"), std::string::npos)
      << c.error.status().message();
}

}  // namespace
}  // namespace fabperf
