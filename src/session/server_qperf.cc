// Stock qperf clients on the server's port: told apart by their first byte, then served by
// qperf_wire/ (through ServerOptions::qperf) under the rules a fabperf client's runs meet: the
// limits, the measurement queue, the run's deadline, --allow, --max_clients and quit.
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>

#include <algorithm>
#include <optional>

#include "core/clock.h"
#include "core/text.h"
#include "net/control.h"
#include "net/socket.h"
#include "session/server.h"

namespace fabperf {

Result<bool> Server::qperf_client(ControlChannel& ch, Slot& slot) {
  if (options_.qperf == nullptr) return false;
  Deadline deadline = Deadline::after(options_.timeout_s);
  for (;;) {
    // A stopping server goes on as before: the fabperf path says why the session ends.
    if (slot.stop.load()) return false;
    if (deadline.expired()) {
      return Status::timeout("no answer from client within " + seconds_text(options_.timeout_s));
    }
    // Short slices, so a stopping server is noticed while the client is silent.
    auto ready =
        wait_fd(ch.fd(), POLLIN, Deadline(std::min(deadline.at_ns(), now_ns() + 100'000'000)));
    if (!ready.ok()) return false;
    if (*ready == 0) continue;
    uint8_t first = 0;
    ssize_t n = ::recv(ch.fd(), &first, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    // A close or an error: the fabperf path reports it as it always has.
    return n == 1 && options_.qperf->opens_request(&first, 1);
  }
}

Status Server::serve_qperf(ControlChannel& ch, Slot& slot, const SessionInfo& info) {
  QperfLease lease;
  lease.fd = ch.fd();
  lease.timeout_s = options_.timeout_s;
  lease.tests = options_.tests;
  lease.stop = &slot.stop;
  if (options_.no_qperf) {
    lease.refusal =
        "this fabperf server does not serve qperf clients (--no_qperf): run fabperf HOST with "
        "qperf's arguments instead";
  } else if (!options_.auth_key.empty()) {
    lease.refusal =
        "this server needs a pre-shared key, which a qperf client cannot prove it holds: run "
        "fabperf HOST --auth_key_file FILE with qperf's arguments instead";
  } else if (!options_.tool.empty()) {
    lease.refusal =
        "this is a " + options_.tool + " server: it serves " + options_.tool + " clients only";
  }
  std::optional<uint64_t> ticket;
  lease.admit = [&](const TestSpec& spec, RunOptions& opts,
                    const std::function<Status()>& on_wait) -> Status {
    if (ticket) return Status::failed("protocol error: a second run in one qperf session");
    // qperf has no QUEUED message: its client simply waits (within its own -to).
    auto turn = admit(slot, info.peer_host + " qperf " + spec.name, spec, opts,
                      [&](size_t) { return on_wait(); });
    if (!turn.ok()) return turn.status();
    ticket = *turn;
    return Status::success();
  };
  lease.set_teller = [&](std::function<void(const std::string&)> tell) {
    std::lock_guard<std::mutex> lock(mu_);
    slot.tell = std::move(tell);
  };
  lease.quit = [&] {
    log(info.peer_host + ": quit (a qperf client)");
    {
      std::lock_guard<std::mutex> lock(mu_);
      slot.told = true;  // its answer is the sync, not "server shutting down"
    }
    stop();
  };
  Status s = options_.qperf->serve(lease);
  {
    std::lock_guard<std::mutex> lock(mu_);
    slot.tell = nullptr;  // what it captured is gone with serve()
  }
  if (ticket) end_turn(slot, *ticket);
  return s;
}

}  // namespace fabperf
