// The per-provider windows of the fabric bandwidth tests, and why each is what it is.
#include "fabric/window_defaults.h"

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

// Measured with bench/probes/fabric_probe.py, the floor (bench/floor_fi_*.cc) at windows of
// 16 to 1024 in alternating rounds (bench/README.md, "Per-provider windows"). Rows of one
// provider and operation go by size, the first whose max_size holds the message.
// tcp;ofi_rxm writes: a write completes (FI_TRANSMIT_COMPLETE) when the target's reply comes
// back, so for small writes the rate is the window over that round trip: 1024 in flight (the
// provider's transmit queue) ran 3.9x 128's rate at 64 B, 3.2x at 4 KiB, 1.5x at 16 KiB in
// the floor, and fabperf 3.1x, 2.8x and 1.6x against its own --tx_depth 128; at 32 KiB 1.3x
// in one sitting and level in the next, level from 64 KiB. Everywhere else 128 was as fast
// as any window tried (16, 64, 256, 512, 1024; 16 ran tcp;ofi_rxm sends at 64 B 3.3x slower).
constexpr Tuned kTuned[] = {
    {"shm", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"shm", WindowedOp::kWrite, UINT64_MAX, 128, 0},
    {"tcp;ofi_rxm", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"tcp;ofi_rxm", WindowedOp::kWrite, 16384, 1024, 0},
    {"tcp;ofi_rxm", WindowedOp::kWrite, UINT64_MAX, 128, 0},
    {"tcp", WindowedOp::kSend, UINT64_MAX, 128, 0},  // rc_* over FI_EP_MSG
    {"tcp", WindowedOp::kWrite, UINT64_MAX, 128, 0},
    {"udp;ofi_rxd", WindowedOp::kSend, UINT64_MAX, 128, 0},
    {"udp;ofi_rxd", WindowedOp::kWrite, UINT64_MAX, 128, 0},
};

// The targets' pace, measured the same way (bench/README.md, "rdm_atomic_bw over shm: the
// target's pace"): a target of shm atomics that waits 2 us between progress calls ran 1.6x the
// rate of one that polls without pause, fetching forms 1.5-1.6x (each round's own ratio, the
// median of 8); 0.5 us was too little, 4 us spread wider. shm reads and writes (each a
// process_vm_readv or writev the initiator makes under the target's lock) moved 3% or less
// with it on one guest, and gained 2-11% on another, where fabperf's read with an unpaced
// target read 0.90-0.97 of the floor's and with a paced one 0.99 of the paced floor's
// (bench/README.md, "The window loop's own work"). The tcp;ofi_rxm and udp;ofi_rxd atomics
// were level, so they keep polling without pause.
struct Paced {
  const char* provider;
  WindowedOp op;
  int64_t gap_ns;
};
constexpr Paced kPaced[] = {
    {"shm", WindowedOp::kAtomic, 2000},
    {"shm", WindowedOp::kRead, 2000},
    {"shm", WindowedOp::kWrite, 2000},
};

}  // namespace

TargetPace target_pace(const std::string& provider, WindowedOp op) {
  for (const Paced& p : kPaced) {
    if (provider != p.provider || op != p.op) continue;
    return {p.gap_ns, "a progress call every " + std::to_string(p.gap_ns) + " ns (" + provider +
                          "'s measured default: bench/README.md)"};
  }
  return {0, "progress calls without pause"};
}

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
