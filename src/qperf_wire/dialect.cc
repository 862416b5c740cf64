// Refusals in qperf's terms on the shared port.
#include "qperf_wire/dialect.h"

#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <mutex>

#include "core/clock.h"
#include "net/socket.h"
#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

namespace {

// A refusal happens on the accept loop, which must not stall: waiting for a client's first
// bytes is allowed a budget of kRefusalBudgetMs in every second, kRefusalWaitMs at most each.
constexpr int kRefusalWaitMs = 50;
constexpr int64_t kRefusalBudgetMs = 200;

int refusal_wait_ms() {
  static std::mutex mu;
  static int64_t window_start = 0, spent = 0;
  std::lock_guard<std::mutex> lock(mu);
  int64_t now = now_ns() / 1'000'000;
  if (now - window_start >= 1000) {
    window_start = now;
    spent = 0;
  }
  int64_t wait = std::min<int64_t>(kRefusalWaitMs, kRefusalBudgetMs - spent);
  spent += std::max<int64_t>(wait, 0);
  return static_cast<int>(std::max<int64_t>(wait, 0));
}

}  // namespace

bool refuse_if_qperf(int fd, const uint8_t* sent, size_t size, const std::string& why) {
  uint8_t first = 0;
  if (size == 0) {
    // Accepted before its request arrived (a qperf client sends it right after connecting):
    // look once more, briefly, rather than answer a qperf client with a fabperf frame.
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, refusal_wait_ms()) <= 0 || ::recv(fd, &first, 1, MSG_DONTWAIT) != 1) {
      return false;
    }
    sent = &first;
    size = 1;
    uint8_t scratch[512];  // the rest of the request, so closing does not reset the connection
    while (::recv(fd, scratch, sizeof scratch, MSG_DONTWAIT) > 0) {
    }
  }
  if (!looks_like_request(sent, size)) return false;
  QperfControl ctl(fd, "client");
  ctl.send_error(why);
  return true;
}

}  // namespace fabperf::qperf_wire
