// The per-provider windows of the fabric bandwidth tests, and why each is what it is.
#include "fabric/window_defaults.h"

#include <algorithm>

namespace fabperf {

namespace {

// One measured default: a provider (its fi_info name), an operation, the sizes it holds for
// (up to max_size), the window and the inject size.
struct Tuned {
  const char* provider;
  WindowedOp op;
  uint64_t max_size;
  size_t window;
  size_t inject_max;
};

// Measured with bench/probes/fabric_probe.py and the fabric_floor sweep (bench/README.md,
// "The fabric rows against their floor"): the floor at each window and inject size, the best
// kept. Sizes above every row's max_size take the last row of their provider and operation.
constexpr Tuned kTuned[] = {
    {"shm", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"shm", WindowedOp::kWrite, UINT64_MAX, 128, 0},
    {"tcp;ofi_rxm", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"tcp;ofi_rxm", WindowedOp::kWrite, UINT64_MAX, 128, 0},
    {"udp;ofi_rxd", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"udp;ofi_rxd", WindowedOp::kWrite, UINT64_MAX, 128, 0},
};

}  // namespace

WindowChoice window_choice(const std::string& provider, WindowedOp op, uint64_t msg_size,
                           bool tx_depth_given, uint64_t tx_depth) {
  WindowChoice out;
  const char* what = op == WindowedOp::kSend ? "sends" : "writes";
  if (tx_depth_given) {
    out.window = static_cast<size_t>(tx_depth);
    out.why = "--tx_depth";
    return out;
  }
  for (const Tuned& t : kTuned) {
    if (provider != t.provider || op != t.op || msg_size > t.max_size) continue;
    out.window = t.window;
    out.inject_max = t.inject_max;
    out.why = provider + "'s default for " + what + " of this size (measured: bench/README.md)";
    return out;
  }
  out.window = static_cast<size_t>(tx_depth);
  out.why = "the default --tx_depth (no measured default for " + provider + ")";
  return out;
}

}  // namespace fabperf
