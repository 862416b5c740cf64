// The message loops of a socket data phase whose end a policy decides, as run_latency_loop
// (engine/latency_loop.h) takes its iteration: the loops move and count messages over a
// DataLink, and the end rule alone says when the phase is over. qperf's rule (each side on its
// own timer, the transfer under way then not counted; qperf_wire/end_rule.h) is one.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>

#include "core/clock.h"
#include "core/host_buffer.h"
#include "core/status.h"
#include "net/socket.h"
#include "socket/socket_link.h"

namespace fabperf {

// What an end rule offers the loops (a duck type, checked where a loop is instantiated):
//   bool over();       asked before every call and after every transfer; once true the loop
//                      ends, and a message it was moving is not counted;
//   void moved();      bytes moved (a rule with an idle limit times silence from the last);
//   void waited();     a call returned after the link's watchdog limit with nothing moved
//                      (a rule that reads its clock sparingly reads it at once then);
//   void peer_gone();  the peer closed or reset the connection: the phase is over;
//   void enough();     the loop counted its -n messages: the phase is over.
// A blocked call returns to the loop when the link's watchdog sees no progress for its limit,
// so the rule is asked again within about that limit even when nothing moves.

// One direction's tally, as qperf keeps it: an error is counted and the loop goes on.
struct MessageCounts {
  uint64_t bytes = 0, msgs = 0, errs = 0;
  // -1: an error; anything else a message of that many bytes. True when it counted as one.
  bool count(ssize_t n) {
    if (n < 0) {
      ++errs;
      return false;
    }
    bytes += static_cast<uint64_t>(n);
    ++msgs;
    return true;
  }
};
struct LoopCounts {
  MessageCounts sent, received;
};

// The shape of one data phase.
struct LoopShape {
  size_t size = 0;          // bytes per message
  bool access = false;      // -ar: read every byte received (touch_bytes)
  bool whole_only = false;  // a message counts only whole (RDS): a short one is an error
  uint64_t max_msgs = 0;    // -n: the phase ends after so many (received, or sent when
                            // nothing comes back); 0: the rule's clock ends it
};

namespace message_loops {

// A short message where only whole ones count is an error.
inline ssize_t judged(const LoopShape& shape, ssize_t n) {
  return shape.whole_only && n >= 0 && static_cast<size_t>(n) != shape.size ? -1 : n;
}

// One message out: a stream's every byte, or one datagram. The bytes moved (fewer when the
// rule ended the phase first), or -1 for an error.
template <typename Rule>
ssize_t send_message(DataLink& link, const char* buf, size_t len, Rule& rule) {
  size_t done = 0;
  while (!rule.over()) {
    auto n = link.send_part(buf + done, len - done);
    if (!n.ok()) {
      if (n.status().code() == Code::kTimeout) {  // nothing moved: ask the rule
        rule.waited();
        continue;
      }
      return -1;
    }
    if (*n == 0 && link.proto().connected) {
      rule.peer_gone();
      break;
    }
    rule.moved();
    done += *n;
    if (!link.proto().byte_stream || done == len) break;
  }
  return static_cast<ssize_t>(done);
}

// One message in: a stream's `len` bytes, or one datagram (its size), its sender in `from`
// when asked. Fewer bytes when the rule ended the phase first; -1 for an error.
template <typename Rule>
ssize_t recv_message(DataLink& link, char* buf, size_t len, Rule& rule, SockAddr* from = nullptr) {
  size_t got = 0;
  while (!rule.over()) {
    auto n = link.recv_part(buf + got, len - got, from);
    if (!n.ok()) {
      if (n.status().code() == Code::kTimeout) {
        rule.waited();
        continue;
      }
      return -1;
    }
    if (!link.proto().byte_stream) {
      rule.moved();
      return static_cast<ssize_t>(*n);
    }
    if (*n == 0) {
      rule.peer_gone();
      break;
    }
    rule.moved();
    got += *n;
    if (got == len) break;
  }
  return static_cast<ssize_t>(got);
}

}  // namespace message_loops

// A bandwidth sender: messages out until the rule ends the phase.
template <typename Rule>
void send_loop(DataLink& link, const char* buf, const LoopShape& shape, Rule& rule,
               LoopCounts& counts) {
  while (!rule.over()) {
    ssize_t n =
        message_loops::judged(shape, message_loops::send_message(link, buf, shape.size, rule));
    if (rule.over()) break;  // the message under way at the end is not counted
    counts.sent.count(n);
    if (shape.max_msgs > 0 && counts.sent.msgs >= shape.max_msgs) rule.enough();
  }
}

// A ping-pong's client: one message out, its reply in. `on_round_trip(ns)` is told each
// completed round trip's time (from the clock read before the send).
template <typename Rule, typename OnRoundTrip>
void ping_loop(DataLink& link, char* buf, const LoopShape& shape, Rule& rule, LoopCounts& counts,
               OnRoundTrip&& on_round_trip) {
  volatile uint64_t sink = 0;
  while (!rule.over()) {
    int64_t t0 = now_ns();
    ssize_t n =
        message_loops::judged(shape, message_loops::send_message(link, buf, shape.size, rule));
    if (rule.over()) break;
    if (!counts.sent.count(n)) continue;
    n = message_loops::judged(shape, message_loops::recv_message(link, buf, shape.size, rule));
    if (rule.over()) break;
    int64_t t1 = now_ns();
    if (!counts.received.count(n)) continue;
    if (shape.access)
      sink = sink + touch_bytes(reinterpret_cast<uint8_t*>(buf), static_cast<size_t>(n));
    on_round_trip(t1 - t0);
    if (shape.max_msgs > 0 && counts.received.msgs >= shape.max_msgs) rule.enough();
  }
}

// A server's receiving side: a sink (bandwidth) or an echo (ping-pong). `heard(from)` says
// whether a datagram's sender is the one being served: others are neither counted nor
// answered. The first datagram heard fixes a UDP link on its sender (DataLink::fix_peer), and
// the kernel filters from then on; a stream's sender is its connection's peer.
template <typename Rule, typename Heard>
void serve_loop(DataLink& link, char* buf, const LoopShape& shape, bool echo, Rule& rule,
                LoopCounts& counts, Heard&& heard) {
  volatile uint64_t sink = 0;
  bool fixed = link.proto().connected;  // only the peer is heard, and answered
  while (!rule.over()) {
    SockAddr from;
    ssize_t n = message_loops::judged(
        shape, message_loops::recv_message(link, buf, shape.size, rule, fixed ? nullptr : &from));
    if (rule.over()) break;
    if (!fixed && n >= 0 && from.len > 0) {
      if (!heard(from)) continue;  // not the client's
      fixed = link.fix_peer(from).ok();
    }
    if (!counts.received.count(n)) continue;
    if (shape.access)
      sink = sink + touch_bytes(reinterpret_cast<uint8_t*>(buf), static_cast<size_t>(n));
    if (echo) {
      n = message_loops::judged(shape, message_loops::send_message(link, buf, shape.size, rule));
      if (rule.over()) break;
      if (!counts.sent.count(n)) continue;
    }
    if (shape.max_msgs > 0 && counts.received.msgs >= shape.max_msgs) rule.enough();
  }
}

}  // namespace fabperf
