// The read floor: fabperf's rdm_read_lat (one fi_read at a time, issue to completion) and
// rdm_read_bw (a window of fi_read in flight, fabperf's min(--tx_depth, --rd_atomic): pass
// window=N) in libfabric's calls alone. Usage and output: bench/fabric_floor.h.
#include "fabric_floor.h"

int main(int argc, char** argv) {
  ff::Config cfg = ff::parse(argc, argv, "transmit", "transmit");
  return ff::run_pair(cfg, FI_RMA, [](ff::Side& s) {
    ff::open_side(s);
    const size_t window = s.cfg.bw ? ff::capped_window(s, s.cfg.window) : 1;
    // Reads land in this side's rx slots from the peer's (fabperf's rma_read_bw_needs).
    ff::register_memory(s, ff::layout_of(s.cfg.size, 1, window, 0));
    ff::finish_setup(s, std::max<size_t>(window, 2));
    auto read_one = [&](uint64_t i, fi_context2* c) {
      return fi_read(s.ep, s.rx(i), s.cfg.size, s.desc, s.peer, s.remote_rx(i), s.remote_key, c);
    };
    if (s.cfg.bw) {
      ff::one_sided_bw(s, window, false, read_one);
    } else {
      ff::one_sided_lat(s, read_one);
    }
  });
}
