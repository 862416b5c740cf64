// DataLink: the data path of one socket test, set up through the control channel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "core/clock.h"
#include "core/status.h"
#include "engine/test_context.h"
#include "net/socket.h"
#include "net/stall_watchdog.h"
#include "socket/sock_protocol.h"

namespace fabperf {

// One established data path: a connected socket, or a datagram socket fixed on its peer.
// Every blocking call has a deadline (the timeout, or a shorter receive wait) kept by a
// StallWatchdog, so no kernel timer is armed per call on the measured path; busy-polling
// links read the clock instead. A stream's bandwidth receive waits in poll() instead, whose
// timeout is the deadline (recv_some).
class DataLink {
 public:
  DataLink(const SocketProtocol& proto, Fd fd, SockAddr peer, bool busy_poll, double timeout_s);

  // Sends one whole message (stream: every byte; datagram: one datagram). EMSGSIZE is an error.
  Status send_msg(const void* buf, size_t len);
  // Sends the message `count` times, as `count` send_msg calls would, and returns `count` (or
  // the first failure). A blocking link makes the calls inside one bracket of its stall
  // watchdog, each counted as it finishes, and takes send_msg's path only for what is not
  // the common case (a partial stream write, an interrupted or failed call). A bandwidth
  // sender's batch between two clock reads: a bare loop of send calls read 2.5% more than
  // one send_msg per message at tcp_bw 64 B, 1.4% at udp_bw 64 B
  // (bench/results/stream-loops-abae911/tcp/).
  Result<uint64_t> send_msgs(const void* buf, size_t len, uint64_t count);
  // Receives one message of `len` bytes (stream: exactly len; datagram: one datagram, whose
  // size is returned). Returns 0 at the end of the test (EOF or the zero-length end marker).
  // With `wait_s` >= 0 the wait is that long instead of the timeout; a timeout then returns
  // Status::timeout so datagram tests can count a loss.
  Result<size_t> recv_msg(void* buf, size_t len, double wait_s = -1);
  // Receives whatever arrived, up to len (bandwidth receivers). 0 = end. A blocking stream
  // link waits for data in poll() with the same deadline, not in recv (recv_polled).
  Result<size_t> recv_some(void* buf, size_t len, double wait_s = -1);
  // One call each, for loops whose end rule decides between calls (socket/message_loops.h):
  // what the kernel moved (a datagram: all of it), 0 when the peer is gone (a stream's EOF, a
  // reset or broken connection), Timeout when the watchdog's limit passed with no progress
  // (the loop looks at its rule and calls again), Failed for any other error. recv_part
  // writes the sender's address to `from` when given (a server that answers whoever asked).
  Result<size_t> send_part(const void* buf, size_t len);
  Result<size_t> recv_part(void* buf, size_t len, SockAddr* from = nullptr);
  // Fixes an unconnected datagram (SOCK_DGRAM) link on `peer` (connect): the kernel then drops
  // everyone else's datagrams and sends go there without an address. Unsupported otherwise.
  Status fix_peer(const SockAddr& peer);
  // Tells the peer the sender is done: shutdown for streams, zero-length datagrams otherwise.
  void finish_sending();
  // Makes a blocking receive wait `seconds` instead of the timeout: a datagram ping-pong sets
  // its reply wait, so a lost reply costs that wait (within a quarter of it, or within
  // 100 ms for a wait under 0.4 s: StallWatchdog::period_ns) and no more.
  Status set_recv_wait(double seconds);

  const SocketProtocol& proto() const { return proto_; }
  int fd() const { return fd_.get(); }

 private:
  // A deadline `seconds` from its first use (the clock is read only when a wait begins);
  // `spent` is what a blocking receive already waited before that first use.
  class LazyDeadline {
   public:
    explicit LazyDeadline(double seconds) : seconds_(seconds) {}
    const Deadline& get(double spent = 0) {
      if (!set_) {
        deadline_ = Deadline::after(seconds_ - spent);
        set_ = true;
      }
      return deadline_;
    }
    double seconds() const { return seconds_; }

   private:
    double seconds_;
    bool set_ = false;
    Deadline deadline_{0};
  };
  Result<size_t> recv_once(void* buf, size_t len, LazyDeadline& deadline);
  // A blocking stream link's bandwidth receive: non-blocking reads, waiting in poll().
  Result<size_t> recv_polled(void* buf, size_t len, LazyDeadline& deadline);
  // A blocking call on a watched link, bracketed for the watchdog.
  template <typename Call>
  ssize_t watched(Call&& call) {
    if (!watchdog_) return call();
    watchdog_->enter();
    ssize_t n = call();
    watchdog_->leave();
    return n;
  }
  // After EINTR: the watchdog's limit ran out (rather than some other signal arriving).
  bool expired() { return watchdog_ && watchdog_->take_expiry(); }

  const SocketProtocol& proto_;
  Fd fd_;
  // After fd_: destroyed (and its thread joined) before the socket is closed.
  std::unique_ptr<StallWatchdog> watchdog_;
  SockAddr peer_;
  bool busy_poll_;
  double timeout_s_;
  double recv_wait_s_;  // how long one blocking recv waits before the watchdog ends it
  // Sends name the peer: only unconnected message sockets (RDS). Streams and connect()ed
  // datagram sockets send without an address, and the kernel keeps the route, where sendto
  // with an address would look it up on every message.
  bool addressed_;
};

// Both sides' set-up: the server opens a socket on the address the client reached, the
// client connects to it; datagram peers are fixed to the control connection's peer address,
// so no data ever goes anywhere else.
// `stream` is the index among --streams links (a fixed -ip port is the first of a range).
Result<DataLink> open_server_link(TestContext& ctx, const SocketProtocol& proto, int stream = 0);
Result<DataLink> open_client_link(TestContext& ctx, const SocketProtocol& proto);

// SO_SNDBUF and SO_RCVBUF both set to `size` (-sb), within what an int holds; 0 leaves the
// kernel's. The kernel caps what it grants.
Status set_socket_buffers(int fd, uint64_t size);

// Whether a data socket turns Nagle off: always for a ping-pong (a message Nagle held would
// wait for the peer's delayed ACK), for a bandwidth test only with --nodelay on that side, as
// qperf and iperf3 leave Nagle on for streaming (small messages coalesce into full segments).
bool wants_nodelay(const SocketProtocol& proto, TestKind kind, const RunOptions& opts);
// The socket's NODELAY option as the kernel reports it; Unsupported where the protocol has none.
Result<bool> socket_nodelay(int fd, const SocketProtocol& proto);

}  // namespace fabperf
