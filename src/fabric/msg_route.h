// MsgRoute: the one way a fabric test posts its messages, sends and receives of buffer slots.
// Where they go is looked up once when the test starts, as RmaRoute does for the one-sided
// operations: the endpoint, the peer, the descriptor, the size, whether sends inject, whether a
// receive's slot is poisoned first, and each slot's address. Looked up through the session's
// layers on every message, the shm ping-pong's client took 456 instructions of its own a round
// trip, 373 routed; the floor's loop takes 53 (bench/README.md, "The shm ping-pong's own work").
#pragma once

#include <rdma/fi_endpoint.h>

#include <cstdint>
#include <vector>

#include "fabric/session.h"
#include "fabric/slot_ring.h"

namespace fabperf {

struct MsgRoute {
  // `inject`: this user's sends go by fi_inject (the ping-pong's link.inject, a stream's
  // link.inject_bw: each chose against its own inject limit). `poison_rx`: under --verify a
  // receive's slot is poisoned before it is posted, except where receives only carry an RMA
  // write's remote CQ data (the slot is the write's target, not the receive's).
  MsgRoute(FabricSession& f, bool inject, bool poison_rx = true)
      : ep(f.link.ep()),
        peer(f.link.peer),
        desc(f.mem.desc()),
        size(f.mem.msg_size),
        inject(inject),
        poison(poison_rx && f.mem.verify) {
    for (size_t i = 0; i < f.mem.tx_slots(); ++i) tx.push_back(f.mem.tx(i));
    for (size_t i = 0; i < f.mem.rx_slots(); ++i) rx.push_back(f.mem.rx(i));
    tx_ring = SlotRing::of(tx.size());
  }
  // The receives that only carry RMA writes' remote CQ data (providers in FI_RX_CQ_DATA mode):
  // never poisoned, and no sends go by it.
  static MsgRoute remote_data_receives(FabricSession& f) { return MsgRoute(f, false, false); }
  fid_ep* ep;
  fi_addr_t peer;
  void* desc;
  size_t size;
  bool inject;  // sends go by fi_inject: copied at once, no completion to come
  bool poison;  // a receive's slot is poisoned before it is posted
  std::vector<uint8_t*> tx;
  std::vector<uint8_t*> rx;
  SlotRing tx_ring;  // a stream's message `index` goes from tx slot tx_ring.wrap(index)
};

// Sends tx slot `slot`; false (the session's error set) when the provider refuses it for good.
// `completes`: whether a send completion will come for it (none for an injected one).
template <typename On>
[[gnu::always_inline]] inline bool send_routed(FabricSession& f, const MsgRoute& route,
                                               uint32_t slot, On& on, bool* completes) {
  uint8_t* buf = route.tx[slot];
  *completes = !route.inject;
  if (route.inject) {
    return f.cq.post(
        "fi_inject", [=, &route] { return fi_inject(route.ep, buf, route.size, route.peer); }, on);
  }
  OpContext* c = f.cq.context(f.cq.tx_pool, slot, on);
  if (c == nullptr) return false;
  return f.cq.post(
      "fi_send",
      [=, &route] { return fi_send(route.ep, buf, route.size, route.desc, route.peer, c); }, on);
}

// Posts a receive into rx slot `slot`; false (the session's error set) when no receive context
// is free or the provider refuses it for good.
template <typename On>
[[gnu::always_inline]] inline bool recv_routed(FabricSession& f, const MsgRoute& route,
                                               uint32_t slot, On& on) {
  OpContext* c = f.cq.rx_pool.acquire(slot);
  if (c == nullptr) return f.fail(Status::failed("internal: no receive context free"));
  if (route.poison && !f.mem.poison_rx(slot)) return false;
  uint8_t* buf = route.rx[slot];
  return f.cq.post(
      "fi_recv",
      [=, &route] { return fi_recv(route.ep, buf, route.size, route.desc, route.peer, c); }, on);
}

}  // namespace fabperf
