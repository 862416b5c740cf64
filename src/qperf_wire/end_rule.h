// qperf's end-of-test rule, as a policy for socket/'s message loops (socket/message_loops.h):
// each side ends on its own timer (or the peer's EOF or '.'), and the transfer under way when
// it ends is not counted. The loops ask it before every call and after every transfer.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/clock.h"
#include "core/status.h"
#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"
#include "socket/message_loops.h"

namespace fabperf::qperf_wire {

// How long a blocked call waits with nothing moving before the loop asks the rule again (the
// data link's watchdog limit). qperf's timer re-fires every 10 ms; the watchdog looks at most
// ten times a second, so a side whose peer stopped notices within about 0.1 s. The end time
// it reports is its deadline, not that moment.
inline constexpr double kLookS = 0.01;

// When this side's test is over: its time ran out, it was stopped (^C, the server's
// supervisor), the peer said '.' or closed, or this side counted its -n messages.
class EndRule {
 public:
  // `seconds` 0: no timer (the peer or a message count ends the test).
  EndRule(double seconds, QperfControl& control, const std::atomic<bool>* stop);

  // A peer that moves nothing for `seconds` ends the test with a Timeout in control_status(),
  // with a timer or without: a stock peer without a timer would wait forever, and a stopped
  // one would hold this side (a server: its measurement queue) until the timer ran out.
  void set_idle_limit(double seconds) { idle_limit_ns_ = static_cast<int64_t>(seconds * 1e9); }
  void start();  // right after the sync: the measured interval starts here

  // The policy the loops see. over() is cheap while messages move (the clock is read every
  // few calls: core/clock.h StridedClock) and reads it at once after a call that waited and
  // moved nothing; it looks at the control connection every 10 ms. The first true fixes the
  // end.
  bool over() {
    if (finished_) return true;
    int64_t now;
    if (waited_) {
      waited_ = false;
      now = now_ns();
      clock_.restart(now);
    } else {
      now = clock_.tick();
    }
    return check(now);
  }
  void moved() { moved_ = true; }
  void waited() { waited_ = true; }
  void peer_gone() { finish_at(now_ns()); }  // EOF or reset: qperf's zero-byte read, SIGPIPE
  void enough() { finish_at(now_ns()); }     // -n counted
  void mark_finished() { finish_at(now_ns()); }

  // A peer's error or a lost control connection seen while running.
  const Status& control_status() const { return control_status_; }
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }
  // Times of the results block, taken with the start and the end.
  const uint64_t (&start_times() const)[kTimeFields] { return start_times_; }
  const uint64_t (&end_times() const)[kTimeFields] { return end_times_; }

 private:
  // The rest of over(), at `now` (the last clock read).
  bool check(int64_t now);
  void finish_at(int64_t end_ns);

  int64_t duration_ns_;
  QperfControl& control_;
  const std::atomic<bool>* stop_;
  StridedClock clock_{0};
  int64_t start_ns_ = 0, end_ns_ = 0, deadline_ns_ = 0, next_check_ns_ = 0;
  int64_t idle_limit_ns_ = 0, last_progress_ns_ = 0;
  bool moved_ = false;   // bytes moved since the last look (the idle limit)
  bool waited_ = false;  // a call returned with nothing moved: read the clock now
  bool finished_ = false;
  Status control_status_;
  uint64_t start_times_[kTimeFields] = {};
  uint64_t end_times_[kTimeFields] = {};
};

// A loop's tally in the results block's terms.
inline Counters counters(const MessageCounts& c) { return Counters{c.bytes, c.msgs, c.errs}; }

}  // namespace fabperf::qperf_wire
