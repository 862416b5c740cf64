// DataLink: the data path of one socket test, set up through the control channel.
#pragma once

#include <cstddef>
#include <cstdint>

#include "core/clock.h"
#include "core/status.h"
#include "core/test_context.h"
#include "net/sock_protocol.h"
#include "net/socket.h"

namespace fabperf {

// One established data path: a connected socket, or a datagram socket fixed on its peer.
class DataLink {
 public:
  DataLink(const SocketProtocol& proto, Fd fd, SockAddr peer, bool busy_poll, double timeout_s);

  // Sends one whole message (stream: every byte; datagram: one datagram). EMSGSIZE is an error.
  Status send_msg(const void* buf, size_t len);
  // Receives one message of `len` bytes (stream: exactly len; datagram: one datagram, whose
  // size is returned). Returns 0 at the end of the test (EOF or the zero-length end marker).
  // With `wait_s` >= 0 the wait is that long instead of the timeout; a timeout then returns
  // Status::Timeout so datagram tests can count a loss.
  Result<size_t> recv_msg(void* buf, size_t len, double wait_s = -1);
  // Receives whatever arrived, up to len (bandwidth receivers). 0 = end.
  Result<size_t> recv_some(void* buf, size_t len, double wait_s = -1);
  // Tells the peer the sender is done: shutdown for streams, zero-length datagrams otherwise.
  void finish_sending();
  // Makes a blocking receive wait `seconds` (SO_RCVTIMEO) instead of the timeout: a datagram
  // ping-pong sets its reply wait, so a lost reply costs exactly that wait, one system call.
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
        deadline_ = Deadline::After(seconds_ - spent);
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

  const SocketProtocol& proto_;
  Fd fd_;
  SockAddr peer_;
  bool busy_poll_;
  double timeout_s_;
  double recv_wait_s_;  // SO_RCVTIMEO: how long one blocking recv waits
};

// Both sides' set-up: the server opens a socket on the address the client reached, the
// client connects to it; datagram peers are fixed to the control connection's peer address,
// so no data ever goes anywhere else.
// `stream` is the index among --streams links (a fixed -ip port is the first of a range).
Result<DataLink> open_server_link(TestContext& ctx, const SocketProtocol& proto, int stream = 0);
Result<DataLink> open_client_link(TestContext& ctx, const SocketProtocol& proto);

// Pins the calling thread per the cpu_affinity parameter ("" leaves it, "any" frees it).
Status apply_cpu_affinity(const std::string& spec);

}  // namespace fabperf
