// qperf's control connection: deadline-bounded fixed-size transfers and urgent-byte signalling.
#include "qperf_wire/control.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <cstring>

#include "core/clock.h"
#include "net/socket.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

namespace {

// Waits for `events` until the deadline, in slices so a cancel is noticed. Returns revents, 0
// when the deadline passed, or Interrupted.
Result<short> wait_slice(int fd, short events, const Deadline& deadline,
                         const std::atomic<bool>* cancel) {
  for (;;) {
    if (cancel != nullptr && cancel->load()) return Status::Interrupted("interrupted");
    if (deadline.expired()) return static_cast<short>(0);
    int64_t slice_end = std::min(deadline.at_ns(), now_ns() + 100'000'000);
    auto ready = wait_fd(fd, events, Deadline(slice_end));
    if (!ready.ok() || *ready != 0) return ready;
  }
}

}  // namespace

QperfControl::QperfControl(int fd, std::string peer) : fd_(fd), peer_(std::move(peer)) {}

Status QperfControl::recv(void* buf, size_t len, const char* item, double timeout_s) {
  auto* p = static_cast<uint8_t*>(buf);
  Deadline deadline = Deadline::After(timeout_s);
  size_t got = 0;
  while (got < len) {
    auto ready = wait_slice(fd_, POLLIN | POLLPRI, deadline, cancel_);
    if (!ready.ok()) return ready.status();
    if (*ready == 0) {
      return Status::Timeout(std::string("failed to receive ") + item + ": timed out");
    }
    if (*ready & POLLPRI) {
      FP_RETURN_IF_ERROR(take_urgent());
      continue;
    }
    ssize_t n = ::recv(fd_, p + got, len - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      return Status::Failed(std::string("failed to receive ") + item + ": " + peer_ +
                            " not responding");
    } else if (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK) {
      return Status::Failed(errno_text((std::string("failed to receive ") + item).c_str()));
    }
  }
  return Status::Ok();
}

Status QperfControl::send(const void* buf, size_t len, const char* item, double timeout_s) {
  std::lock_guard<std::timed_mutex> lock(send_mu_);
  Status s = send_all(fd_, buf, len, Deadline::After(timeout_s));
  if (s.ok()) return s;
  if (s.code() == Code::kTimeout) {
    return Status::Timeout(std::string("failed to send ") + item + ": timed out");
  }
  return s.Prefixed(std::string("failed to send ") + item);
}

Status QperfControl::sync(std::string_view text, double timeout_s) {
  std::string item(text);
  FP_RETURN_IF_ERROR(send(text.data(), text.size(), item.c_str(), timeout_s));
  char got[64] = {};
  size_t len = std::min(text.size(), sizeof got);
  FP_RETURN_IF_ERROR(recv(got, len, item.c_str(), timeout_s));
  if (memcmp(got, text.data(), len) != 0) {
    return Status::Failed("synchronize " + item + " failure: data does not match");
  }
  return Status::Ok();
}

void QperfControl::send_error(const std::string& text) {
  const std::string line = text.substr(0, 255);
  std::unique_lock<std::timed_mutex> lock(send_mu_, std::chrono::milliseconds(200));
  if (!lock.owns_lock()) return;
  // A stock client reads the text in its SIGURG handler at once, without waiting: text that
  // is not there yet is lost and it prints an empty "server: " (qperf's own server, sending
  // back to back, loses this about one time in five; a slow server, as under ASan in CI,
  // every time; sending the text 100 ms after the byte lost it 30 times in 30). The kernel
  // sends the urgent byte at once in a segment of its own whatever the cork (urgent mode
  // passes Nagle and the cork; tcpdump: the text ~30 us later), so no sender can close the
  // window; corked, fewer are lost all the same (17 in 50 against 26 in 50 uncorked, stock
  // client, 2-vCPU VM). fabperf's client waits for the text either way.
  int on = 1, off = 0;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &on, sizeof on);
  bool sent = ::send(fd_, "?", 1, MSG_OOB | MSG_NOSIGNAL | MSG_DONTWAIT) == 1;
  if (sent) send_all(fd_, line.data(), line.size(), Deadline::After(0.5)).IgnoreError();
  ::setsockopt(fd_, IPPROTO_TCP, TCP_CORK, &off, sizeof off);
  if (sent) ::shutdown(fd_, SHUT_WR);
}

void QperfControl::drain(double seconds) {
  Deadline deadline = Deadline::After(seconds);
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
  if (poll(&pfd, 1, 0) <= 0) return Status::Ok();
  if (pfd.revents & POLLPRI) return take_urgent();
  uint8_t byte;
  ssize_t n = ::recv(fd_, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (n == 0) return Status::Failed(peer_ + " closed the control connection during the test");
  // In-band bytes now: the peer is past its test (a server's results), so ours ends too.
  if (n > 0) peer_finished_.store(true, std::memory_order_relaxed);
  return Status::Ok();
}

Status QperfControl::take_urgent() {
  char byte = 0;
  ssize_t n = ::recv(fd_, &byte, 1, MSG_OOB | MSG_DONTWAIT);
  if (n != 1) return Status::Ok();  // already taken, or not here yet: poll says again
  if (byte == '.') {
    peer_finished_.store(true, std::memory_order_relaxed);
    return Status::Ok();
  }
  std::string text = read_error_text(fd_, 3);
  return Status::Failed(text.empty() ? peer_ + " failure" : peer_ + ": " + text);
}

std::string read_error_text(int fd, double timeout_s, bool skip_to_mark) {
  Deadline deadline = Deadline::After(timeout_s);
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
