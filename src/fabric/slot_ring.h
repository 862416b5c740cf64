// A ring of buffer slots: operation `index` uses slot index mod n. Where n is a power of two
// (as the windows are) the wrap is a mask; elsewhere a divide, only once the index has passed
// the ring. A 64-bit divide a post showed in the rates of the providers that serialize posts
// (bench/README.md, "rdm_atomic_bw over shm: fabperf's own work", "The RMA rows' own work").
#pragma once

#include <cstdint>

namespace fabperf {

struct SlotRing {
  uint64_t n = 1;
  uint64_t mask = 0;  // n - 1 where n is a power of two, else 0

  // A ring of `count` slots; none counts as one (every index in slot 0).
  static SlotRing of(uint64_t count) {
    if (count <= 1) return {1, 0};
    return {count, (count & (count - 1)) == 0 ? count - 1 : 0};
  }
  uint32_t wrap(uint64_t index) const {
    if (mask != 0 || n == 1) return static_cast<uint32_t>(index & mask);
    return static_cast<uint32_t>(index < n ? index : index % n);
  }
};

}  // namespace fabperf
