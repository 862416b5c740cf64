// Telling a stock qperf client from a fabperf client on the port they share, by the first
// byte: a qperf request opens with a zero byte (its major version), a fabperf frame with "F".
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace fabperf::qperf_wire {

enum class ClientDialect {
  kFabperf,  // anything that is not a qperf request: the fabperf path names what it is
  kQperf,
  kSilent,  // nothing within the timeout
};

// Waits at most timeout_s (ending early when `cancel` is set) for the connection's first byte,
// and looks at it without taking it.
ClientDialect sniff_client(int fd, double timeout_s, const std::atomic<bool>* cancel);

// What a refused client already sent, `size` bytes of it: when it is a qperf request, answers
// `why` on qperf's error channel and returns true (the caller closes); else false. With
// nothing sent yet (size 0) it looks again after at most 50 ms, within a budget of 200 ms a
// second, so a flood of refused connections cannot stall the accept loop.
bool refuse_if_qperf(int fd, const uint8_t* sent, size_t size, const std::string& why);

}  // namespace fabperf::qperf_wire
