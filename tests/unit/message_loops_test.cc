// Unit tests of socket/'s message loops under an end-rule policy (socket/message_loops.h) and
// of qperf's rule (qperf_wire/end_rule.h), over socketpairs and a loopback control pair: the
// rule alone ends a loop, the message under way then is not counted, EOF and -n end it, a
// server answers only the peer it serves, and qperf's rule ends on its timer, stamps its end
// at the deadline when it noticed late, and gives up on a silent peer.
#include "socket/message_loops.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <thread>
#include <vector>

#include "net/socket.h"
#include "qperf_wire/control.h"
#include "qperf_wire/end_rule.h"
#include "socket/sock_protocol.h"
#include "socket/socket_link.h"
#include "socket_pair.h"

namespace fabperf {
namespace {

// A rule that ends after `calls` questions (or when a loop says so), recording what it heard.
struct CountingRule {
  uint64_t calls;
  uint64_t asked = 0, moves = 0, waits = 0;
  bool gone = false, counted_enough = false, ended = false;
  bool over() {
    if (!ended && ++asked > calls) ended = true;
    return ended;
  }
  void moved() { ++moves; }
  void waited() { ++waits; }
  void peer_gone() {
    gone = true;
    ended = true;
  }
  void enough() {
    counted_enough = true;
    ended = true;
  }
};

TEST(MessageLoops, TheRuleAloneEndsASenderAndTheMessageUnderWayIsNotCounted) {
  LinkPair p = link_pair("tcp", SOCK_STREAM, 0.01);
  std::vector<char> buf(100, 'x');
  // Each message asks the rule three times (loop, send, after): the twelfth question, right
  // after the fourth message went, ends the phase, and that message is not counted.
  CountingRule rule{11};
  LoopCounts counts;
  send_loop(p.link, buf.data(), LoopShape{100}, rule, counts);
  EXPECT_EQ(counts.sent.msgs, 3u);
  EXPECT_EQ(counts.sent.bytes, 300u);
  EXPECT_EQ(counts.sent.errs, 0u);
  EXPECT_EQ(rule.moves, 4u);
  char got[1000];
  EXPECT_EQ(read(p.peer.get(), got, sizeof got), 400);
}

TEST(MessageLoops, ASinkCountsWholeMessagesAndEndsAtEndOfFile) {
  LinkPair p = link_pair("tcp", SOCK_STREAM, 0.01);
  // 5 messages of 64 bytes written in pieces that cut across messages, then EOF.
  std::vector<char> out(5 * 64, 'a');
  for (size_t off = 0; off < out.size(); off += 48) {
    ASSERT_GT(write(p.peer.get(), out.data() + off, std::min<size_t>(48, out.size() - off)), 0);
  }
  p.peer.reset();
  std::vector<char> buf(64);
  CountingRule rule{1000};
  LoopCounts counts;
  serve_loop(p.link, buf.data(), LoopShape{64, true}, false, rule, counts,
             [](const SockAddr&) { return true; });
  EXPECT_TRUE(rule.gone);
  EXPECT_EQ(counts.received.msgs, 5u);
  EXPECT_EQ(counts.received.bytes, 320u);
  EXPECT_EQ(counts.sent.msgs, 0u);
}

TEST(MessageLoops, MaxMessagesEndsTheLoopThroughTheRule) {
  LinkPair p = link_pair("tcp", SOCK_STREAM, 0.01);
  std::vector<char> out(10 * 8, 'b');
  ASSERT_EQ(write(p.peer.get(), out.data(), out.size()), static_cast<ssize_t>(out.size()));
  std::vector<char> buf(8);
  CountingRule rule{1000};
  LoopCounts counts;
  serve_loop(p.link, buf.data(), LoopShape{8, false, false, 4}, true, rule, counts,
             [](const SockAddr&) { return true; });
  EXPECT_TRUE(rule.counted_enough);
  EXPECT_EQ(counts.received.msgs, 4u);
  EXPECT_EQ(counts.sent.msgs, 4u);  // each echoed
  char back[100];
  EXPECT_EQ(read(p.peer.get(), back, sizeof back), 32);
}

TEST(MessageLoops, ABlockedReceiveReturnsToTheRuleWhenNothingMoves) {
  // The peer sends nothing: the watchdog wakes the receive, the rule hears waited() and ends.
  LinkPair p = link_pair("tcp", SOCK_STREAM, 0.01);
  std::vector<char> buf(8);
  CountingRule rule{3};
  LoopCounts counts;
  serve_loop(p.link, buf.data(), LoopShape{8}, false, rule, counts,
             [](const SockAddr&) { return true; });
  EXPECT_GE(rule.waits, 1u);
  EXPECT_EQ(counts.received.msgs, 0u);
  EXPECT_EQ(counts.received.errs, 0u);
}

TEST(MessageLoops, APingLoopTimesEachRoundTripAgainstAnEcho) {
  LinkPair p = link_pair("tcp", SOCK_STREAM, 0.01);
  int peer = p.peer.get();
  std::thread echo([peer] {
    char b[16];
    for (int i = 0; i < 5; ++i) {
      size_t got = 0;
      while (got < sizeof b) {
        ssize_t n = read(peer, b + got, sizeof b - got);
        if (n <= 0) return;
        got += static_cast<size_t>(n);
      }
      EXPECT_EQ(write(peer, b, sizeof b), 16);
    }
  });
  std::vector<char> buf(16, 'p');
  CountingRule rule{1000};
  LoopCounts counts;
  std::vector<int64_t> trips;
  ping_loop(p.link, buf.data(), LoopShape{16, true, false, 5}, rule, counts,
            [&](int64_t ns) { trips.push_back(ns); });
  echo.join();
  EXPECT_TRUE(rule.counted_enough);
  EXPECT_EQ(counts.sent.msgs, 5u);
  EXPECT_EQ(counts.received.msgs, 5u);
  ASSERT_EQ(trips.size(), 5u);
  for (int64_t ns : trips) EXPECT_GT(ns, 0);
}

// A UDP socket on 127.0.0.1 with an ephemeral port.
Fd udp_socket(SockAddr* bound) {
  Fd fd(socket(AF_INET, SOCK_DGRAM, 0));
  SockAddr any = resolve("127.0.0.1", 0, SOCK_DGRAM)->front();
  EXPECT_EQ(bind(fd.get(), any.get(), any.len), 0);
  *bound = local_address(fd.get());
  return fd;
}

TEST(MessageLoops, ADatagramServerAnswersOnlyThePeerItServesAndFixesOnIt) {
  SockAddr server_addr, good_addr, bad_addr;
  Fd server = udp_socket(&server_addr);
  Fd good = udp_socket(&good_addr);
  Fd bad = udp_socket(&bad_addr);
  DataLink link(*find_socket_protocol("udp"), std::move(server), SockAddr{}, false, 0.01);
  ASSERT_EQ(sendto(bad.get(), "12345678", 8, 0, server_addr.get(), server_addr.len), 8);
  ASSERT_EQ(sendto(good.get(), "abcdefgh", 8, 0, server_addr.get(), server_addr.len), 8);
  std::vector<char> buf(8);
  CountingRule rule{10};  // the two datagrams' questions, then the rule ends it
  LoopCounts counts;
  int asked = 0;
  // The first sender is refused: its datagram is neither counted nor answered.
  serve_loop(link, buf.data(), LoopShape{8}, true, rule, counts, [&](const SockAddr& from) {
    ++asked;
    return from.port() == good_addr.port();
  });
  EXPECT_EQ(asked, 2);
  EXPECT_EQ(counts.received.msgs, 1u);
  EXPECT_EQ(counts.sent.msgs, 1u);
  char back[16];
  EXPECT_EQ(recv(good.get(), back, sizeof back, MSG_DONTWAIT), 8);
  EXPECT_EQ(std::memcmp(back, "abcdefgh", 8), 0);
  EXPECT_EQ(recv(bad.get(), back, sizeof back, MSG_DONTWAIT), -1);
  // Fixed on the good peer: the kernel now drops the other's datagrams.
  ASSERT_EQ(sendto(bad.get(), "zzzzzzzz", 8, 0, server_addr.get(), server_addr.len), 8);
  EXPECT_EQ(recv(link.fd(), back, sizeof back, MSG_DONTWAIT), -1);
}

TEST(MessageLoops, OnlyWholeMessagesCountWhereAskedAShortOneIsAnError) {
  LinkPair p = link_pair("udp", SOCK_DGRAM, 0.01);
  ASSERT_EQ(write(p.peer.get(), "1234", 4), 4);
  ASSERT_EQ(write(p.peer.get(), "12345678", 8), 8);
  std::vector<char> buf(8);
  CountingRule rule{7};
  LoopCounts counts;
  serve_loop(p.link, buf.data(), LoopShape{8, false, true}, false, rule, counts,
             [](const SockAddr&) { return true; });
  EXPECT_EQ(counts.received.errs, 1u);
  EXPECT_EQ(counts.received.msgs, 1u);
  EXPECT_EQ(counts.received.bytes, 8u);
}

TEST(QperfEndRule, EndsOnItsTimerAndStampsTheDeadlineWhenItNoticedLate) {
  TcpPair p = loopback_tcp_pair();  // qperf's rule, over a control connection
  qperf_wire::QperfControl ctl(p.server.get(), "client");
  qperf_wire::EndRule rule(0.05, ctl, nullptr);
  rule.start();
  EXPECT_FALSE(rule.over());
  // A blocked call that returned long after the deadline, having moved nothing.
  std::this_thread::sleep_for(std::chrono::milliseconds(150));
  rule.waited();
  EXPECT_TRUE(rule.over());
  EXPECT_TRUE(rule.over());  // stays over
  EXPECT_EQ(rule.end_ns() - rule.start_ns(), 50'000'000);
  EXPECT_TRUE(rule.control_status().ok());
}

TEST(QperfEndRule, AStopRequestEndsItAtOnce) {
  TcpPair p = loopback_tcp_pair();
  qperf_wire::QperfControl ctl(p.server.get(), "client");
  std::atomic<bool> stop{false};
  qperf_wire::EndRule rule(100, ctl, &stop);
  rule.start();
  EXPECT_FALSE(rule.over());
  stop = true;
  rule.waited();
  EXPECT_TRUE(rule.over());
  EXPECT_LT(rule.end_ns() - rule.start_ns(), 50'000'000'000);
}

TEST(QperfEndRule, ASilentPeerEndsItWithATimeoutAfterTheIdleLimit) {
  TcpPair p = loopback_tcp_pair();
  qperf_wire::QperfControl ctl(p.server.get(), "client");
  qperf_wire::EndRule rule(0, ctl, nullptr);  // no timer: only silence can end it
  rule.set_idle_limit(0.05);
  rule.start();
  bool over = false;
  for (int i = 0; i < 200 && !over; ++i) {  // bounded: 2 s at most
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    rule.waited();
    over = rule.over();
  }
  ASSERT_TRUE(over);
  EXPECT_EQ(rule.control_status().code(), Code::kTimeout);
}

TEST(QperfEndRule, PeerGoneEndsIt) {
  TcpPair p = loopback_tcp_pair();
  qperf_wire::QperfControl ctl(p.server.get(), "client");
  qperf_wire::EndRule rule(100, ctl, nullptr);
  rule.start();
  rule.moved();
  EXPECT_FALSE(rule.over());
  rule.peer_gone();
  EXPECT_TRUE(rule.over());
}

}  // namespace
}  // namespace fabperf
