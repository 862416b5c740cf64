// The atomic floor: fabperf's rdm_atomic_lat (one fi_atomic at a time, issue to completion, at
// FI_DELIVERY_COMPLETE where offered) and rdm_atomic_bw (a window in flight at
// FI_TRANSMIT_COMPLETE), SUM of one UINT64 (fabperf's defaults), each operation in flight on
// its own 64-byte target slot, in libfabric's calls alone. SIZE is the datatype's, 8.
// Usage and output: bench/fabric_floor.h.
#include "fabric_floor.h"

int main(int argc, char** argv) {
  ff::Config cfg = ff::parse(argc, argv, "delivery", "transmit");
  cfg.size = sizeof(uint64_t);
  return ff::run_pair(cfg, FI_ATOMIC, [](ff::Side& s) {
    ff::open_side(s);
    const size_t window = s.cfg.bw ? ff::capped_window(s, s.cfg.window) : 1;
    ff::register_memory(s, ff::layout_of(s.cfg.size, 1, 1, window));
    ff::finish_setup(s, std::max<size_t>(window, 2));
    for (size_t i = 0; i < window; ++i) {
      uint64_t one = 1;
      memcpy(s.atomic_operand(i), &one, sizeof one);
    }
    auto atomic_one = [&](uint64_t, fi_context2* c) {
      size_t slot = static_cast<size_t>(c - s.ctx.data()) % window;
      return fi_atomic(s.ep, s.atomic_operand(slot), 1, s.desc, s.peer, s.remote_atomic(slot),
                       s.remote_key, FI_UINT64, FI_SUM, c);
    };
    if (s.cfg.bw) {
      ff::one_sided_bw(s, window, false, atomic_one);
    } else {
      ff::one_sided_lat(s, atomic_one);
    }
  });
}
