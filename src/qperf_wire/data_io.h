// The data phase as qperf runs it: each side ends on its own timer (or the peer's EOF or '.'),
// the operation under way when it ends is not counted, and blocked calls wake every 10 ms to
// look at the clock, as qperf's SIGALRM re-fires every 10 ms, without signals.
#pragma once

#include <sys/socket.h>
#include <sys/types.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>

#include "core/status.h"
#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

// How long one blocked send or receive waits before the loop looks at the clock again.
inline constexpr double kSliceS = 0.01;

// When this side's test is over: its time ran out, it was stopped (^C, the server's
// supervisor), the peer said '.' or closed, or this side decided (marked).
class TestClock {
 public:
  // `seconds` 0: no timer (the peer or a message count ends the test).
  TestClock(double seconds, QperfControl& control, const std::atomic<bool>* stop);

  // A peer that moves nothing for `seconds` ends the test with a Timeout in control_status(),
  // with a timer or without: a stock peer without a timer would wait forever, and a stopped
  // one would hold this side (a server: its measurement queue) until the timer ran out.
  void set_idle_limit(double seconds) { idle_limit_ns_ = static_cast<int64_t>(seconds * 1e9); }
  void note_progress() { moved_ = true; }  // the I/O helpers call it when bytes move
  void start();  // right after the sync: the measured interval starts here
  // Cheap (one clock read); looks at the control connection every 10 ms. The first call that
  // returns true fixes the end time.
  bool finished();
  void mark_finished();
  // A peer's error or a lost control connection seen while running.
  const Status& control_status() const { return control_status_; }
  int64_t start_ns() const { return start_ns_; }
  int64_t end_ns() const { return end_ns_; }
  double elapsed_s() const { return static_cast<double>(end_ns_ - start_ns_) * 1e-9; }
  // Times of the results block, taken with the start and the end.
  const uint64_t (&start_times() const)[kTimeFields] { return start_times_; }
  const uint64_t (&end_times() const)[kTimeFields] { return end_times_; }

 private:
  void finish_at(int64_t end_ns);

  int64_t duration_ns_;
  QperfControl& control_;
  const std::atomic<bool>* stop_;
  int64_t start_ns_ = 0, end_ns_ = 0, deadline_ns_ = 0, next_check_ns_ = 0;
  int64_t idle_limit_ns_ = 0, last_progress_ns_ = 0;
  bool moved_ = false;
  bool finished_ = false;
  Status control_status_;
  uint64_t start_times_[kTimeFields] = {};
  uint64_t end_times_[kTimeFields] = {};
};

// Blocking data socket whose calls give up after kSliceS (SO_RCVTIMEO, SO_SNDTIMEO).
Status set_slices(int fd);

// qperf's send_full/recv_full: all of `len` bytes, unless the test finishes first (then fewer).
// -1 on an error (qperf counts it); EOF or a broken connection marks the clock finished.
ssize_t send_full(int fd, const void* buf, size_t len, TestClock& clock);
ssize_t recv_full(int fd, void* buf, size_t len, TestClock& clock);
// One datagram or RDS message each way; -1 on an error. `from` receives the sender's address
// when given (from_len in/out).
ssize_t send_one(int fd, const void* buf, size_t len, TestClock& clock,
                 const sockaddr* to = nullptr, socklen_t to_len = 0);
ssize_t recv_one(int fd, void* buf, size_t len, TestClock& clock, sockaddr* from = nullptr,
                 socklen_t* from_len = nullptr);

// Counts one transfer's outcome as qperf does: -1 is an error (counted; the message is
// skipped), anything else a message of that many bytes. True when the message counted.
inline bool count_transfer(Counters& c, ssize_t n) {
  if (n < 0) {
    c.errs++;
    return false;
  }
  c.bytes += static_cast<uint64_t>(n);
  c.msgs++;
  return true;
}

// Reads every byte, as -ar asks (the sum keeps the compiler from dropping the reads).
uint64_t touch_bytes(const void* buf, size_t len);

}  // namespace fabperf::qperf_wire
