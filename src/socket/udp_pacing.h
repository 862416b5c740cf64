// udp_bw --udp_rate (iperf3 -b): the sender paced at a bit rate, each datagram stamped with its
// sequence number and send time; the receiver's loss and RFC 3550 jitter from those stamps.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/status.h"
#include "engine/streams.h"
#include "engine/test_context.h"
#include "socket/socket_link.h"

namespace fabperf {

// A stamp: the datagram's sequence number in its stream and its send time (CLOCK_MONOTONIC_RAW
// of the sender), in the first 16 bytes, native byte order (both ends run this program).
inline constexpr size_t kUdpStampBytes = 16;

// Whether a run's datagrams are stamped: paced, on a datagram protocol, room for the stamp.
bool udp_stamped(const RunOptions& opts, const SocketProtocol& proto);

// The sender's pacing: message k of a stream is due at start + k * size * 8 / rate (the rate
// shared among --streams). Off (on() false) without --udp_rate.
class UdpPacer {
 public:
  UdpPacer(const TestContext& ctx, const SocketProtocol& proto, size_t size, const StreamWorker& w);
  bool on() const { return on_; }
  // How many of at most `most` messages may go now, `sent` having gone: 0 after waiting
  // (at most 10 ms, and never past `end_ns`) for the next one due.
  uint64_t due(uint64_t sent, uint64_t most, int64_t end_ns);
  // Sends `count` stamped messages (sequence numbers from `first`); how many went.
  Result<uint64_t> send(DataLink& link, const char* letters, uint64_t count, uint64_t first);
  int64_t now() const { return now_; }  // the clock as due() or send() last read it

 private:
  bool on_ = false;
  bool stamped_ = false;
  size_t size_ = 0;
  int64_t start_ns_ = 0;
  double ns_per_msg_ = 0;
  int64_t now_ = 0;
  std::vector<char> buf_;  // the message with its stamp (the shared buffer is read only)
  bool filled_ = false;    // buf_ holds the message's letters
};

// The receiver's view of stamped datagrams (one stream): received, lost (sequence numbers
// never seen below the highest seen), and the interarrival jitter of RFC 3550 section 6.4.1,
// J += (|D| - J) / 16 with D the change in transit time (arrival - send): the clocks' offset
// cancels, so it holds across hosts.
class UdpArrivals {
 public:
  // A datagram of `len` bytes arrived at `arrival_ns`.
  void on_datagram(const char* data, size_t len, int64_t arrival_ns);
  uint64_t lost() const;
  double jitter_ns() const { return jitter_ns_; }
  uint64_t received() const { return received_; }

 private:
  uint64_t received_ = 0;
  uint64_t next_seq_ = 0;  // one above the highest sequence number seen
  bool have_transit_ = false;
  int64_t transit_ns_ = 0;
  double jitter_ns_ = 0;
};

// Takes the datagrams still queued on `link` (each within 10 ms of the last) until none or the
// end marker: counted in `c` and, for a paced run, in `arrivals` too, so a drained datagram
// is neither missing from the loss count's received nor its gap counted lost. Returns the
// last one's arrival time (0 if none came).
int64_t drain_datagrams(DataLink& link, char* buf, size_t size, StreamCounters& c,
                        UdpArrivals* arrivals);

}  // namespace fabperf
