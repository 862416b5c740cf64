// Refusing a stock qperf client in its own terms on the port it shares with fabperf clients
// (the first-byte test itself is session/server_qperf.cc's, through QperfHooks::opens_request).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fabperf::qperf_wire {

// What a refused client already sent, `size` bytes of it: when it is a qperf request, answers
// `why` on qperf's error channel and returns true (the caller closes); else false (nothing
// sent yet included: the server waits for a connection's first byte among its pending
// refusals, polled with its listener, never here).
bool refuse_if_qperf(int fd, const uint8_t* sent, size_t size, const std::string& why);

}  // namespace fabperf::qperf_wire
