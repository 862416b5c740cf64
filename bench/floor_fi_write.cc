// The write floor: fabperf's rdm_write_lat (one fi_write at a time, issue to completion, at
// FI_DELIVERY_COMPLETE where offered) and rdm_write_bw / rc_rdma_write_bw (a window of fi_write
// at FI_TRANSMIT_COMPLETE, counted by the writer; with data=1 fi_writedata counted by the
// target, as rc_rdma_write_bw does where the provider carries remote CQ data) in libfabric's
// calls alone. inject=N sends writes of at most N bytes by fi_inject_write (no completion: the
// writer then counts what it posted). Usage and output: bench/fabric_floor.h.
#include "fabric_floor.h"

namespace {

using ff::Side;

ssize_t write_one(Side& s, uint64_t i, fi_context2* c) {
  if (s.cfg.data) {
    return fi_writedata(s.ep, s.tx(i), s.cfg.size, s.desc, i, s.peer, s.remote_rx(i), s.remote_key,
                        c);
  }
  return fi_write(s.ep, s.tx(i), s.cfg.size, s.desc, s.peer, s.remote_rx(i), s.remote_key, c);
}

// Injected writes: no completion, so the writer posts until its time is up and then one
// write with a completion, which (the providers here keep a connection's writes in order)
// completes after the others; the bandwidth is what was posted over that time.
void inject_bw(Side& s) {
  ff::register_memory(s, ff::layout_of(s.cfg.size, s.cfg.window, s.cfg.window, 0));
  ff::finish_setup(s, 1);
  uint64_t word = 1;
  bool done = false;
  auto on = [&](const fi_cq_data_entry&) { done = true; };
  if (!s.client) {
    ff::put(s.ctl, &word, sizeof word);
    ff::serve_until_word(s, on);
    return;
  }
  ff::get(s.ctl, &word, sizeof word);
  const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
  const int64_t start = ff::now_ns();
  uint64_t posted = 0;
  for (uint32_t pass = 1;; ++pass) {
    while (fi_inject_write(s.ep, s.tx(posted), s.cfg.size, s.peer, s.remote_rx(posted),
                           s.remote_key) == 0) {
      ++posted;
      if (posted % 64 == 0) break;
    }
    ff::poll(s, on);
    if (pass % 16 == 0 && ff::now_ns() - start >= limit) break;
  }
  ff::post(
      s, "fi_write", [&] { return write_one(s, posted, &s.ctx[0]); }, on);
  while (!done) ff::poll(s, on);
  const int64_t end = ff::now_ns();
  ff::put(s.ctl, &word, sizeof word);
  ff::Result r;
  r.ops = posted;
  r.recv_Bps = static_cast<double>((posted + 1) * s.cfg.size) * 1e9 / (end - start);
  ff::print(s, r, 0);
}

}  // namespace

int main(int argc, char** argv) {
  ff::Config cfg = ff::parse(argc, argv, "delivery", "transmit");
  if (cfg.inject < 0) cfg.inject = 0;  // fabperf's writes never inject
  uint64_t caps = FI_RMA | (cfg.data ? FI_MSG : 0);
  return ff::run_pair(cfg, caps, [](Side& s) {
    ff::open_side(s);
    if (!s.cfg.bw) {
      ff::register_memory(s, ff::layout_of(s.cfg.size, 1, 1, 0));
      ff::finish_setup(s, 2);
      ff::one_sided_lat(s, [&](uint64_t i, fi_context2* c) { return write_one(s, i, c); });
      return;
    }
    ff::finish_setup(s, 0);
    if (s.inject_size >= s.cfg.size) {
      inject_bw(s);
      return;
    }
    const size_t window = ff::capped_window(s, s.cfg.window);
    ff::register_memory(s, ff::layout_of(s.cfg.size, window, window, 0));
    ff::finish_setup(s, window);
    const bool target_counts = s.cfg.data && s.info->domain_attr->cq_data_size >= 4;
    ff::one_sided_bw(s, window, target_counts,
                     [&](uint64_t i, fi_context2* c) { return write_one(s, i, c); });
  });
}
