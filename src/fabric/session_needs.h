// What a fabric test asks of its session: endpoint type, capabilities, buffers, operations in
// flight. The roles say it (fabric/roles.h); the session and the server's admission size by it.
#pragma once

#include <rdma/fabric.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "fabric/window_defaults.h"

namespace fabperf {

// How the rx slots start out: RMA targets are poisoned under --verify, so an unwritten byte is
// caught; read sources hold this side's pattern.
enum class RxInit { kZero, kPoison, kPattern };

struct SessionNeeds {
  fi_ep_type ep_type = FI_EP_RDM;
  uint64_t caps = FI_MSG;
  bool delivery_complete = false;  // one-sided latency: completion means data at the target
  size_t tx_slots = 1;             // message-sized buffers for sending / RMA sources
  size_t rx_slots = 1;             // message-sized buffers for receiving / RMA targets
  size_t tx_window = 1;            // operations in flight
  size_t rx_window = 1;            // receives posted
  bool atomic = false;             // an atomic target and operand area
  RxInit rx_init = RxInit::kZero;
  // A bandwidth test of sends or writes: its window (tx_window, and the slots and receives
  // sized as it) and inject size follow the provider (window_choice) where --tx_depth is not
  // given; the client's choice goes to the server with its first exchange.
  std::optional<WindowedOp> windowed = std::nullopt;
};

}  // namespace fabperf
