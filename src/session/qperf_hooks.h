// Where stock qperf (0.4.9-0.4.11) plugs into the sessions: a qperf client on the server's port,
// a qperf server behind the client's host. qperf's protocol itself is qperf_wire/, a layer above
// this one; the app installs it (SessionEnv::qperf), so the sessions never see its bytes.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "core/status.h"
#include "engine/registry.h"
#include "engine/test_result.h"
#include "options/run_options.h"
#include "report/reporter.h"
#include "stats/latency.h"

namespace fabperf {

struct ClientConfig;

// What the server lends one stock qperf client's session: the rules a fabperf client's runs
// meet (session/server_qperf.cc fills it).
struct QperfLease {
  int fd = -1;                              // the control connection (the server's)
  double timeout_s = 5;                     // the server's -to: caps every wait
  const TestRegistry* tests = nullptr;      // the tests this server runs
  const std::atomic<bool>* stop = nullptr;  // set by the supervisor or a stopping server
  // Non-empty: every request is refused with this text (--no_qperf, a server with a key, which
  // a qperf client cannot prove it holds, or a fab_* server).
  std::string refusal;
  // Admits a run as the server admits a fabperf client's: the limits (--max_*), then its turn
  // in the measurement queue (on_wait is called while it waits, about once a second; a failed
  // call ends the wait), its memory and its deadline. `opts.timeout` is capped at the
  // server's. The turn lasts until the session ends. A refusal's text is for the client.
  std::function<Status(const TestSpec& spec, RunOptions& opts,
                       const std::function<Status()>& on_wait)>
      admit;
  // From now on the supervisor (the run's deadline, a stopping server) tells the client why
  // with `tell`, in qperf's terms; nullptr hands that back to the server (before `tell`'s
  // captures go away).
  std::function<void(std::function<void(const std::string&)> tell)> set_teller;
  std::function<void()> quit;  // the client asked the server to quit
};

// qperf's protocol as the sessions use it (qperf_wire::hooks() makes one).
struct QperfHooks {
  // Server: whether a connection's first bytes open a qperf request (fabperf frames open "F").
  std::function<bool(const uint8_t* data, size_t size)> opens_request;
  // Server: serves the qperf request waiting on lease.fd. Failures were told to the client in
  // qperf's terms; the Status says the same for the server's log.
  std::function<Status(QperfLease& lease)> serve;
  // Server: answers a connection that will not be served (busy, --allow) in qperf's terms when
  // what it sent (`size` bytes) is a qperf request. True when it did; false leaves the answer
  // to the server. Never waits.
  std::function<bool(int fd, const uint8_t* sent, size_t size, const std::string& why)> refuse;
  // Client: after fabperf's HELLO drew no WELCOME, the server's version ("0.4.11") when its
  // answer was a stock qperf server's, else nullopt.
  std::function<std::optional<std::string>(int fd)> recognise;
  // Client: the stock qperf server's conf (node, cpu, os, version) as info.server, with
  // "tool": "qperf", and its version in `version` when that is empty. Fails as opening a
  // fabperf session does: the server cannot be reached, or this client holds a key (a qperf
  // server cannot prove it holds one).
  std::function<Status(const ClientConfig& config, RunInfo& info, std::string& version,
                       double timeout_s)>
      greet;
  // Client: one planned run (a socket test, conf or quit) against that server, on a connection
  // of its own as qperf's client does; fills result and `latency` as fabperf's runs do.
  std::function<Status(const ClientConfig& config, TestResult& result, LatencyRecorder& latency,
                       const std::string& version)>
      run;
};

}  // namespace fabperf
