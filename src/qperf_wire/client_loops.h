// The client's side of the qperf data phase: qperf's loops and counting rules, with every
// completed round trip timed by fabperf's clock as well.
#pragma once

#include <cstdint>

#include "qperf_wire/data_io.h"
#include "qperf_wire/data_link.h"
#include "qperf_wire/wire.h"
#include "socket/sock_protocol.h"
#include "stats/latency.h"

namespace fabperf::qperf_wire {

struct ClientLoop {
  const SocketProtocol& proto;
  DataSocket& data;
  TestClock& clock;
  uint64_t msg_size;
  bool latency_test;
  bool access_recv;
  uint64_t max_msgs;  // -n: this side ends after so many (0: by time)
  uint64_t warmup;    // round trips left out of the latency record (all are counted)
};

struct ClientCounts {
  Counters sent, received;
};

// Runs until the clock says the test is over. The operation under way then is not counted,
// as in qperf; `latency` records each completed round trip (half of it is reported).
ClientCounts run_client_loop(const ClientLoop& loop, LatencyRecorder& latency);

}  // namespace fabperf::qperf_wire
