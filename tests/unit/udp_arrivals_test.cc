// Unit tests: the receiver's view of udp_bw --udp_rate's stamped datagrams (UdpArrivals: loss
// below the highest sequence number, RFC 3550 jitter) and the drain of what is still queued
// when the end marker was lost (drain_datagrams), which must feed the same loss count.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <optional>
#include <vector>

#include "engine/side_stats.h"
#include "socket/sock_protocol.h"
#include "socket/socket_link.h"
#include "socket/udp_pacing.h"

namespace fabperf {
namespace {

// A stamped datagram of `size` bytes: sequence number, then the send time.
std::vector<char> stamped(uint64_t seq, int64_t sent_ns, size_t size = 64) {
  std::vector<char> d(size, 'x');
  std::memcpy(d.data(), &seq, sizeof seq);
  std::memcpy(d.data() + sizeof seq, &sent_ns, sizeof sent_ns);
  return d;
}

TEST(UdpArrivals, CountsTheGapsBelowTheHighestSequenceNumberAsLost) {
  UdpArrivals a;
  for (uint64_t seq : {0, 1, 3, 6}) {
    auto d = stamped(seq, 1000);
    a.on_datagram(d.data(), d.size(), 2000);
  }
  EXPECT_EQ(a.received(), 4u);
  EXPECT_EQ(a.lost(), 3u);  // 2, 4 and 5
  // A late one fills its gap.
  auto late = stamped(4, 1000);
  a.on_datagram(late.data(), late.size(), 2000);
  EXPECT_EQ(a.lost(), 2u);
}

TEST(UdpArrivals, JitterFollowsTheChangeInTransitTimeAndIgnoresShortDatagrams) {
  UdpArrivals a;
  auto d0 = stamped(0, 0);
  a.on_datagram(d0.data(), d0.size(), 100);  // transit 100
  EXPECT_EQ(a.jitter_ns(), 0.0);
  auto d1 = stamped(1, 1000);
  a.on_datagram(d1.data(), d1.size(), 1260);  // transit 260: |D| = 160, J = 160 / 16
  EXPECT_DOUBLE_EQ(a.jitter_ns(), 10.0);
  // Too short to hold a stamp (the end marker, or a size under 16 B): not counted.
  a.on_datagram(d1.data(), kUdpStampBytes - 1, 5000);
  EXPECT_EQ(a.received(), 2u);
  EXPECT_DOUBLE_EQ(a.jitter_ns(), 10.0);
}

// A udp DataLink over one end of a datagram socket pair, and the other end to write from.
struct DatagramPair {
  DatagramPair() {
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, fds) != 0) return;
    link.emplace(*find_socket_protocol("udp"), Fd(fds[0]), SockAddr{}, false, 10.0);
    peer = Fd(fds[1]);
  }
  bool ok() const { return link.has_value(); }
  std::optional<DataLink> link;
  Fd peer;
};

TEST(DrainDatagrams, FeedsTheDrainedStampsToTheLossCountAndStopsAtTheEndMarker) {
  DatagramPair pair;
  ASSERT_TRUE(pair.ok());
  DataLink& link = *pair.link;
  const Fd& peer = pair.peer;
  // Seen before the drain: 0, 1 and 3 (2 looks lost).
  UdpArrivals arrivals;
  StreamCounters c;
  for (uint64_t seq : {0, 1, 3}) {
    auto d = stamped(seq, 1000);
    arrivals.on_datagram(d.data(), d.size(), 2000);
    c.recv_msgs++;
    c.recv_bytes += d.size();
  }
  ASSERT_EQ(arrivals.lost(), 1u);
  // Still queued: 2 (late) and 4, then the zero-length end marker, then one past it.
  for (uint64_t seq : {2, 4}) {
    auto d = stamped(seq, 1000);
    ASSERT_EQ(write(peer.get(), d.data(), d.size()), static_cast<ssize_t>(d.size()));
  }
  ASSERT_EQ(write(peer.get(), "", 0), 0);
  auto after = stamped(9, 1000);
  ASSERT_EQ(write(peer.get(), after.data(), after.size()), static_cast<ssize_t>(after.size()));
  std::vector<char> buf(256);
  const int64_t last = drain_datagrams(link, buf.data(), buf.size(), c, &arrivals);
  EXPECT_GT(last, 0);
  EXPECT_EQ(c.recv_msgs, 5u);
  EXPECT_EQ(c.recv_bytes, 5u * 64);
  // Every datagram counted received is in the loss count's received too: no gap is left.
  EXPECT_EQ(arrivals.received(), c.recv_msgs);
  EXPECT_EQ(arrivals.lost(), 0u);
}

TEST(DrainDatagrams, AnUnpacedRunCountsWithoutStampsAndAnEmptyQueueReturnsAtOnce) {
  DatagramPair pair;
  ASSERT_TRUE(pair.ok());
  DataLink& link = *pair.link;
  const Fd& peer = pair.peer;
  StreamCounters c;
  std::vector<char> buf(256);
  EXPECT_EQ(drain_datagrams(link, buf.data(), buf.size(), c, nullptr), 0);
  EXPECT_EQ(c.recv_msgs, 0u);
  ASSERT_EQ(write(peer.get(), "abc", 3), 3);
  EXPECT_GT(drain_datagrams(link, buf.data(), buf.size(), c, nullptr), 0);
  EXPECT_EQ(c.recv_msgs, 1u);
  EXPECT_EQ(c.recv_bytes, 3u);
}

}  // namespace
}  // namespace fabperf
