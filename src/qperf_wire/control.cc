// qperf's control connection: deadline-bounded fixed-size transfers and urgent-byte signalling.
#include "qperf_wire/control.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/clock.h"
#include "net/socket.h"
#include "net/tcp_state.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

namespace {

// Waits for `events` until the deadline, in slices so a cancel is noticed. Returns revents, 0
// when the deadline passed, or Interrupted.
Result<short> wait_slice(int fd, short events, const Deadline& deadline,
                         const std::atomic<bool>* cancel) {
  for (;;) {
    if (cancel != nullptr && cancel->load()) return Status::interrupted("interrupted");
    if (deadline.expired()) return static_cast<short>(0);
    int64_t slice_end = std::min(deadline.at_ns(), now_ns() + 100'000'000);
    auto ready = wait_fd(fd, events, Deadline(slice_end));
    if (!ready.ok() || *ready != 0) return ready;
  }
}

}  // namespace

QperfControl::QperfControl(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

Status QperfControl::recv(void* buf, size_t len, const char* item, double timeout_s) {
  return recv(buf, len, item, Deadline::after(timeout_s));
}

Status QperfControl::recv(void* buf, size_t len, const char* item, const Deadline& deadline) {
  auto* p = static_cast<uint8_t*>(buf);
  size_t got = 0;
  while (got < len) {
    auto ready = wait_slice(fd_, POLLIN | POLLPRI, deadline, cancel_);
    if (!ready.ok()) return ready.status();
    if (*ready == 0) {
      return Status::timeout(std::string("failed to receive ") + item + ": timed out");
    }
    if (*ready & POLLPRI) {
      FP_RETURN_IF_ERROR(take_urgent());
      continue;
    }
    ssize_t n = ::recv(fd_, p + got, len - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      return Status::failed(std::string("failed to receive ") + item + ": " + peer_ +
                            " not responding");
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return Status::failed(errno_text((std::string("failed to receive ") + item).c_str()));
    }
  }
  return Status::success();
}

Status QperfControl::send(const void* buf, size_t len, const char* item, double timeout_s) {
  std::lock_guard<std::timed_mutex> lock(send_mu_);
  Status s = send_all(fd_, buf, len, Deadline::after(timeout_s));
  if (s.ok()) return s;
  if (s.code() == Code::kTimeout) {
    return Status::timeout(std::string("failed to send ") + item + ": timed out");
  }
  return s.prefixed(std::string("failed to send ") + item);
}

Status QperfControl::sync(std::string_view text, double timeout_s) {
  std::string item(text);
  FP_RETURN_IF_ERROR(send(text.data(), text.size(), item.c_str(), timeout_s));
  char got[64] = {};
  size_t len = std::min(text.size(), sizeof got);
  FP_RETURN_IF_ERROR(recv(got, len, item.c_str(), timeout_s));
  if (memcmp(got, text.data(), len) != 0) {
    return Status::failed("synchronize " + item + " failure: data does not match");
  }
  return Status::success();
}

namespace {

// The most bytes sent ahead of the urgent byte (see send_error): at ~250 bytes a read, a stock
// client takes about a millisecond to read past 60 KB on loopback.
constexpr size_t kMaxLeadBytes = 60000;

// How many bytes may go ahead of the urgent byte in the same TCP segment: they must all fit
// one segment (every earlier segment would carry the urgent pointer, and a client signalled
// before the urgent byte itself arrives loses it for good) and the peer's window.
size_t lead_bytes(int fd) {
  auto tcp = tcp_state(fd);
  if (!tcp.ok() || tcp->mss < 512 || tcp->peer_window == 0) return 0;
  size_t room = std::min<size_t>(tcp->mss, tcp->peer_window);
  return std::min(kMaxLeadBytes, room - 256);
}

// For a moment, the calling thread at the lowest real-time priority, where the process may
// (root, CAP_SYS_NICE or an RLIMIT_RTPRIO): no ordinary task can then take its CPU. Elsewhere
// nothing changes. Put back as it was at the end of the scope.
class RealtimeMoment {
 public:
  RealtimeMoment() {
    if (pthread_getschedparam(pthread_self(), &policy_, &old_) != 0) return;
    if (policy_ != SCHED_OTHER) return;  // already real-time, or batch/idle: leave it
    sched_param fifo{};
    fifo.sched_priority = sched_get_priority_min(SCHED_FIFO);
    raised_ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &fifo) == 0;
  }
  ~RealtimeMoment() {
    if (raised_) pthread_setschedparam(pthread_self(), policy_, &old_);
  }
  RealtimeMoment(const RealtimeMoment&) = delete;
  RealtimeMoment& operator=(const RealtimeMoment&) = delete;

 private:
  int policy_ = SCHED_OTHER;
  sched_param old_{};
  bool raised_ = false;
};

}  // namespace

void QperfControl::send_error(const std::string& text) {
  const std::string line = text.substr(0, 255);
  std::unique_lock<std::timed_mutex> lock(send_mu_, std::chrono::milliseconds(200));
  if (!lock.owns_lock()) return;
  // A stock client reads the text in its SIGURG handler at once, without waiting: text that
  // is not there yet is lost and it prints an empty "server: " (qperf's own server loses it
  // about one time in five; fabperf's lost it 4 times in 8 in review N9, and every time under
  // ASan in CI). The kernel sends the urgent byte at once in a segment of its own whatever the
  // cork (urgent mode passes Nagle and the cork; tcpdump: the text ~30 us later), so the text
  // cannot share its segment. What can: bytes before it. The client reads past everything
  // before the urgent mark, ~250 bytes a read, before it reads the text; so the urgent byte
  // goes last in one segment of up to 60 KB of zeros, and the text (sent at once after it)
  // has arrived by the time the client is past them. The handler of a client that is signalled
  // runs before anything returns to its code, so it never reads those bytes as a message.
  // That closes the race where the client runs on another CPU (3 empty texts in 30 before,
  // none in 30 after, both pinned apart). A client woken onto the server's own CPU that
  // preempts it between the two sends still misses the text: stock qperf's handler
  // (support.c, urgent()) reads what has come on its non-blocking socket, without waiting. At
  // 9fb2f4a on a 2-vCPU host at load 8: 30 of 30 read it pinned together on an idle server, but the
  // flood test lost it in 4 of 10 tries and a fresh server its first refusal in 2 of 2.
  // So the two sends run at a real-time priority where the server may take one (a server
  // started as root, as on most clusters): the woken client cannot run on this CPU until the
  // text is sent. Without that right the race stays (both sends in one system call, io_uring's
  // linked sends, would close it too; not done).
  // fabperf's client skips to the mark as a stock one does, and waits for the text either way.
  std::string urgent(lead_bytes(fd_), '\0');
  urgent.push_back('?');
  int old_buf = 0, big = static_cast<int>(2 * urgent.size() + 4096);
  socklen_t old_len = sizeof old_buf;
  getsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &old_buf, &old_len);
  if (old_buf < big) ::setsockopt(fd_, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
  int on = 1, off = 0;
  RealtimeMoment no_preemption;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
  // Partly taken (a full buffer), the last byte taken is the urgent one: any byte but '.'
  // says "error" to either client, and the text follows it as well.
  bool sent = ::send(fd_, urgent.data(), urgent.size(), MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT) > 0;
  if (sent) send_all(fd_, line.data(), line.size(), Deadline::after(0.5)).ignore_error();
  ::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  if (sent) ::shutdown(fd_, SHUT_WR);
}

void QperfControl::drain(double seconds) {
  Deadline deadline = Deadline::after(seconds);
  char scratch[4096];
  for (;;) {
    auto ready = wait_fd(fd_, POLLIN, deadline);
    if (!ready.ok() || *ready == 0) return;
    ssize_t n = ::recv(fd_, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) return;
  }
}

void QperfControl::send_finished() {
  std::lock_guard<std::timed_mutex> lock(send_mu_);
  ::send(fd_, ".", 1, MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT);
}

Status QperfControl::check() {
  pollfd pfd{fd_, POLLIN | POLLPRI, 0};
  if (poll(&pfd, 1, 0) <= 0) return Status::success();
  if (pfd.revents & POLLPRI) return take_urgent();
  uint8_t byte;
  ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return Status::failed(peer_ + " closed the control connection during the test");
  // In-band bytes now: the peer is past its test (a server's results), so ours ends too.
  if (n > 0) peer_finished_.store(true, std::memory_order_relaxed);
  return Status::success();
}

Status QperfControl::take_urgent() {
  char byte = 0;
  ssize_t n = ::recv(fd_, &byte, 1, MSG_OOB | MSG_DONTWAIT);
  if (n != 1) return Status::success();  // already taken, or not here yet: poll says again
  if (byte == '.') {
    peer_finished_.store(true, std::memory_order_relaxed);
    return Status::success();
  }
  std::string text = read_error_text(fd_, 3);
  return Status::failed(text.empty() ? peer_ + " failure" : peer_ + ": " + text);
}

std::string read_error_text(int fd, double timeout_s, bool skip_to_mark) {
  Deadline deadline = Deadline::after(timeout_s);
  char buf[512];
  // What was sent before the urgent byte is not part of the message: reads stop at the mark.
  for (size_t discarded = 0; skip_to_mark && discarded < (1u << 20);) {
    int at = sockatmark(fd);
    if (at != 0) break;
    ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) {
      discarded += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) return "";
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) return "";
    auto ready = wait_fd(fd, POLLIN, deadline);
    if (!ready.ok() || *ready == 0) return "";
  }
  std::string text;
  while (text.size() < kMaxErrorText) {
    ssize_t n = ::recv(fd, buf, std::min(sizeof buf, kMaxErrorText - text.size()), MSG_DONTWAIT);
    if (n > 0) {
      text.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) break;
    if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) break;
    auto ready = wait_fd(fd, POLLIN, deadline);
    if (!ready.ok() || *ready == 0) break;
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return printable_text(reinterpret_cast<const uint8_t*>(text.data()), text.size(), kMaxErrorText);
}

}  // namespace fabperf::qperf_wire
