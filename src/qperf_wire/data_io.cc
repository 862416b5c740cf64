// The test clock and the time-sliced transfers of the qperf data phase.
#include "qperf_wire/data_io.h"

#include <errno.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cstring>

#include "core/clock.h"
#include "core/text.h"
#include "net/socket.h"
#include "net/sys_io.h"
#include "qperf_wire/stat_times.h"

namespace fabperf::qperf_wire {

namespace {

// As often as qperf's timer re-fires: a peer's '.' ends this side within 10 ms.
constexpr int64_t kControlCheckNs = 10'000'000;

// Errors after which the connection is gone: the test is over (qperf gets SIGPIPE or EOF).
bool connection_lost(int err) {
  return err == EPIPE || err == ECONNRESET || err == ENOTCONN || err == ESHUTDOWN;
}

bool slice_over(int err) { return err == EAGAIN || err == EWOULDBLOCK || err == EINTR; }

}  // namespace

TestClock::TestClock(double seconds, QperfControl& control, const std::atomic<bool>* stop)
    : duration_ns_(static_cast<int64_t>(seconds * 1e9)), control_(control), stop_(stop) {}

void TestClock::start() {
  take_times(start_times_);
  start_ns_ = now_ns();
  start_times_[kReal] = static_cast<uint64_t>(start_ns_ / 1000);
  deadline_ns_ = duration_ns_ > 0 ? start_ns_ + duration_ns_ : INT64_MAX;
  next_check_ns_ = start_ns_ + kControlCheckNs;
  last_progress_ns_ = start_ns_;
  finished_ = false;
}

void TestClock::finish_at(int64_t end_ns) {
  if (finished_) return;
  finished_ = true;
  end_ns_ = std::max(end_ns, start_ns_);
  take_times(end_times_);
  end_times_[kReal] = static_cast<uint64_t>(end_ns_ / 1000);
}

void TestClock::mark_finished() { finish_at(now_ns()); }

bool TestClock::finished() {
  if (finished_) return true;
  int64_t now = now_ns();
  if (moved_) {
    moved_ = false;
    last_progress_ns_ = now;
  }
  if (now >= deadline_ns_ || (stop_ != nullptr && stop_->load(std::memory_order_relaxed))) {
    finish_at(now);
    return true;
  }
  if (now < next_check_ns_) return false;
  next_check_ns_ = now + kControlCheckNs;
  if (idle_limit_ns_ > 0 && now - last_progress_ns_ > idle_limit_ns_) {
    control_status_ = Status::timeout("nothing from the " + control_.peer() +
                                      " within the timeout (" +
                                      seconds_text(static_cast<double>(idle_limit_ns_) / 1e9) +
                                      "; stopped or gone?)");
    finish_at(now);
    return true;
  }
  Status s = control_.check();
  if (!s.ok()) {
    control_status_ = s;
    finish_at(now);
    return true;
  }
  if (control_.peer_finished()) {
    // The peer ended the test ('.', or its results already coming): this side's interval
    // ends with its last transfer, not when the 10 ms look noticed.
    finish_at(last_progress_ns_);
    return true;
  }
  return false;
}

Status set_slices(int fd) {
  timeval tv{0, static_cast<suseconds_t>(kSliceS * 1e6)};
  if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv) < 0 ||
      setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv) < 0) {
    return Status::failed(errno_text("setsockopt SO_RCVTIMEO/SO_SNDTIMEO"));
  }
  return Status::success();
}

ssize_t send_full(int fd, const void* buf, size_t len, TestClock& clock) {
  const char* p = static_cast<const char*>(buf);
  size_t left = len;
  while (left > 0 && !clock.finished()) {
    ssize_t n = sys_send(fd, p, left, MSG_NOSIGNAL);
    if (n > 0) {
      clock.note_progress();
      p += n;
      left -= static_cast<size_t>(n);
    } else if (n == 0) {
      clock.mark_finished();
    } else if (!slice_over(errno)) {
      if (connection_lost(errno)) clock.mark_finished();
      return -1;
    }
  }
  return static_cast<ssize_t>(len - left);
}

ssize_t recv_full(int fd, void* buf, size_t len, TestClock& clock) {
  char* p = static_cast<char*>(buf);
  size_t left = len;
  while (left > 0 && !clock.finished()) {
    ssize_t n = sys_recv(fd, p, left, 0);
    if (n > 0) {
      clock.note_progress();
      p += n;
      left -= static_cast<size_t>(n);
    } else if (n == 0) {
      clock.mark_finished();  // the peer is done: qperf's zero-byte read
    } else if (!slice_over(errno)) {
      if (connection_lost(errno)) clock.mark_finished();
      return -1;
    }
  }
  return static_cast<ssize_t>(len - left);
}

ssize_t send_one(int fd, const void* buf, size_t len, TestClock& clock, const sockaddr* to,
                 socklen_t to_len) {
  while (!clock.finished()) {
    ssize_t n = sys_sendto(fd, buf, len, MSG_NOSIGNAL, to, to_len);
    if (n >= 0) {
      clock.note_progress();
      return n;
    }
    if (!slice_over(errno)) return -1;
  }
  return 0;
}

ssize_t recv_one(int fd, void* buf, size_t len, TestClock& clock, sockaddr* from,
                 socklen_t* from_len) {
  socklen_t capacity = from_len != nullptr ? *from_len : 0;
  while (!clock.finished()) {
    if (from_len != nullptr) *from_len = capacity;
    ssize_t n = sys_recvfrom(fd, buf, len, 0, from, from_len);
    if (n >= 0) {
      clock.note_progress();
      return n;
    }
    if (!slice_over(errno)) return -1;
  }
  return 0;
}

uint64_t touch_bytes(const void* buf, size_t len) {
  const auto* p = static_cast<const uint8_t*>(buf);
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= len; i += sizeof(uint64_t)) {
    uint64_t word;
    memcpy(&word, p + i, sizeof word);
    sum += word;
  }
  for (; i < len; ++i) sum += p[i];
  return sum;
}

}  // namespace fabperf::qperf_wire
