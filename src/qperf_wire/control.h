// QperfControl: a qperf control connection, fixed-size messages under deadlines, and qperf's
// error channel (one TCP urgent byte, then the text).
#pragma once

#include <atomic>
#include <cstddef>
#include <mutex>
#include <string>
#include <string_view>

#include "core/clock.h"
#include "core/status.h"

namespace fabperf::qperf_wire {

// What a peer signalled with an urgent byte.
enum class Urgent {
  kNone,
  kFinished,  // '.': the peer's test is over; end ours too
  kError,     // anything else: the peer failed; its text follows
};

class QperfControl {
 public:
  // `fd` stays the caller's. `peer` names the other side in messages ("server", "client").
  QperfControl(int fd, std::string peer);
  QperfControl(const QperfControl&) = delete;
  QperfControl& operator=(const QperfControl&) = delete;

  // Receives exactly `len` bytes within timeout_s, as qperf's recv_mesg: failures read
  // "failed to receive <item>: timed out" or "...: <peer> not responding". A peer's error
  // arriving meanwhile fails with "<peer>: <its text>"; a peer's '.' is noted and the wait
  // goes on. `cancel`, when set, ends the wait within 100 ms.
  Status recv(void* buf, size_t len, const char* item, double timeout_s);
  // The same within a deadline shared by several receives (a request read in two parts must
  // arrive within one -to, not one each: a client sending a byte now and then is cut at -to).
  Status recv(void* buf, size_t len, const char* item, const Deadline& deadline);
  // Sends all of `len` bytes within timeout_s (thread-safe with send_error).
  Status send(const void* buf, size_t len, const char* item, double timeout_s);
  // qperf's synchronize(): send `text`, then receive it back and compare.
  Status sync(std::string_view text, double timeout_s);

  // Reports a failure the qperf way: urgent '?', the text (at most 255 characters, no
  // newline), then the write side shut. Bounded (a send under way on another thread is
  // waited for 200 ms at most, then the error is not sent); from any thread.
  void send_error(const std::string& text);
  // Drains what the peer still sends until it closes or `seconds` pass, so closing does not
  // reset the connection and throw away the error just sent (qperf waits 3 s).
  void drain(double seconds);
  // Tells the peer its test is over (urgent '.').
  void send_finished();

  // Non-blocking look at the connection during a test: a peer's '.' sets peer_finished(); a
  // peer's error, an unexpected close or stray bytes fail.
  Status check();
  bool peer_finished() const { return peer_finished_.load(std::memory_order_relaxed); }

  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }
  int fd() const { return fd_; }
  const std::string& peer() const { return peer_; }

 private:
  // Takes the urgent byte; for an error, reads the text that follows it.
  Status take_urgent();

  int fd_;
  std::string peer_;
  const std::atomic<bool>* cancel_ = nullptr;
  std::atomic<bool> peer_finished_{false};
  // Timed: the server's supervisor gives up telling (and shuts the connection) rather than
  // wait behind a send to a client that stopped reading.
  std::timed_mutex send_mu_;
};

// The text of a peer's error: after the urgent mark, until the peer closes, `timeout_s` or
// kMaxErrorText bytes; made printable. Call once the urgent byte has been taken. With
// `skip_to_mark`, what came before the mark is dropped first (leave it false once reading is
// past the mark).
std::string read_error_text(int fd, double timeout_s, bool skip_to_mark = true);

}  // namespace fabperf::qperf_wire
