// The buffer capability of a fabric session: the layout of its tx, rx and atomic slots, the
// registered region, the peer's region, and the CPU's only ways into both (the buffer may be
// in GPU memory): patterns, poison, checks and reads under --verify and --access_recv.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/status.h"
#include "engine/test_context.h"
#include "fabric/endpoint.h"
#include "fabric/memory.h"
#include "fabric/session_error.h"
#include "fabric/session_needs.h"
#include "fabric/slot_ring.h"
#include "fabric/test_buffer.h"

namespace fabperf {

// The buffer of a session: tx and rx slots of `stride` bytes (together under 1 MiB, or 1 GiB
// under --verify, halved until they fit: slots then serve several operations in flight, with
// the same pattern) and an atomic area. SessionMemory::register_buffer allocates by it and
// admission counts by it.
struct BufferLayout {
  size_t tx_slots = 1, rx_slots = 1;
  size_t stride = 64;       // msg_size rounded up to 64
  size_t atomic_bytes = 0;  // per operation in flight: a target slot, operand, compare, result
  size_t atomic_slots = 1;
  size_t total() const { return (tx_slots + rx_slots) * stride + atomic_bytes; }
  static BufferLayout of(const SessionNeeds& needs, uint64_t msg_size, bool verify);
};

class SessionMemory {
 public:
  SessionMemory(TestContext& ctx, SessionError& error) : ctx_(ctx), error_(error) {}
  SessionMemory(const SessionMemory&) = delete;
  SessionMemory& operator=(const SessionMemory&) = delete;

  size_t msg_size = 0;
  size_t stride = 0;  // distance between slots: the BufferLayout's, set with the buffer
  bool verify = false;
  bool access_recv = false;
  uint8_t my_seed = 0, peer_seed = 0;  // patterns this side sends and expects

  // Allocates the buffer by `needs` (host, hugepages or GPU memory, as the options say), fills
  // or poisons its rx slots as needs.rx_init says, and registers it with `endpoint`.
  Status register_buffer(const SessionNeeds& needs, FabricEndpoint& endpoint,
                         const std::string& provider);
  // This side's region for the peer, and the peer's, taken from its description.
  nlohmann::json describe() const;
  Status adopt_peer(const nlohmann::json& peer, FabricEndpoint& endpoint);
  // The remote key mapping, then the region: before the domain they belong to closes.
  void release() {
    remote_.reset();
    mr_.reset();
  }
  std::string describe_buffer() const { return buffer_.describe(); }

  void* desc() const { return mr_->desc(); }
  uint8_t* tx(size_t slot) const { return buffer_.data() + tx_offset_ + slot * stride; }
  uint8_t* rx(size_t slot) const { return buffer_.data() + rx_offset_ + slot * stride; }
  // The atomic area: atomic_slots() 64-byte targets (the originals spread a list over
  // 64-byte slots), then an operand, a compare operand and a result of 16 bytes per slot, so
  // operations in flight each have their own.
  size_t atomic_slots() const { return atomic_slots_; }
  uint8_t* atomic_target(size_t slot = 0) const {
    return buffer_.data() + atomic_offset_ + in_ring(slot, atomic_slots_) * 64;
  }
  uint8_t* atomic_operand(size_t slot = 0) const { return atomic_word(1, slot); }
  uint8_t* atomic_compare(size_t slot = 0) const { return atomic_word(2, slot); }
  uint8_t* atomic_result(size_t slot) const { return atomic_word(3, slot); }
  size_t tx_slots() const { return tx_slots_; }
  size_t rx_slots() const { return rx_slots_; }
  size_t peer_rx_slots() const { return peer_rx_slots_; }
  uint64_t remote_rx(size_t slot) const {
    return remote_->addr(in_ring(slot, peer_rx_slots_) * stride);
  }
  uint64_t remote_atomic(size_t slot = 0) const {
    return remote_->addr(peer_atomic_offset_ + in_ring(slot, peer_atomic_slots_) * 64);
  }
  uint64_t remote_key() const { return remote_->key(); }

  // The CPU's only ways into the buffers, which may be in GPU memory: memcpy in host memory,
  // the GPU runtime's copies otherwise. Each returns false (the session's error set) when a
  // copy fails.
  bool put(uint8_t* at, const void* src, size_t len) {
    if (!on_gpu_) {
      std::memcpy(at, src, len);
      return true;
    }
    return gpu_copy(buffer_.write(at, src, len));
  }
  bool get(void* dst, const uint8_t* at, size_t len) {
    if (!on_gpu_) {
      std::memcpy(dst, at, len);
      return true;
    }
    return gpu_copy(buffer_.read(dst, at, len));
  }
  // [at, at + len) where the CPU can read it: `at` itself in host memory, else a copy (valid
  // until the next view). nullptr when the copy fails.
  const uint8_t* view(const uint8_t* at, size_t len) {
    if (!on_gpu_) return at;
    staging_.resize(std::max(staging_.size(), len));
    return get(staging_.data(), at, len) ? staging_.data() : nullptr;
  }
  bool on_gpu() const { return on_gpu_; }
  // tx slot `slot` gets this side's pattern; rx slot `slot` the complement of the peer's.
  bool fill_tx(size_t slot);
  bool poison_rx(size_t slot);
  bool poison_tx(size_t slot);  // a tx slot that receives (both sides reading)
  // Checks msg_size bytes at `data` (in the buffer) against the peer's pattern, skipping the
  // first `skip`; counts into verify_checked/verify_errors. False only when a copy fails.
  bool check_rx(const uint8_t* data, size_t len, size_t skip = 0);
  // True when rx slot `slot` holds the peer's pattern (false also when a copy fails).
  bool rx_holds_peer_pattern(size_t slot);
  // --access_recv: reads every received byte, as an application would.
  uint64_t touch(const uint8_t* data, size_t len);

 private:
  bool gpu_copy(Status status) { return status.ok() || error_.fail(std::move(status)); }
  // msg_size bytes of a pattern (fill_pattern, poison_pattern) at `at`, through put().
  using PatternFn = void (*)(uint8_t*, size_t, uint8_t);
  bool write_pattern(uint8_t* at, PatternFn pattern, uint8_t seed);
  uint8_t* atomic_word(size_t part, size_t slot) const {
    return buffer_.data() + atomic_offset_ + atomic_slots_ * 64 +
           ((part - 1) * atomic_slots_ + in_ring(slot, atomic_slots_)) * 16;
  }
  // `slot` as a place among `count`: most posts name one already in range (a context's own
  // slot), and skip the division, which took a 64-bit divide on every address of every post
  // (an atomic post made two: bench/README.md, "rdm_atomic_bw over shm: fabperf's own work").
  static size_t in_ring(size_t slot, size_t count) { return SlotRing::of(count).wrap(slot); }

  TestContext& ctx_;
  SessionError& error_;
  TestBuffer buffer_;
  bool on_gpu_ = false;
  std::vector<uint8_t> staging_;  // host copies of GPU memory, for view() and patterns
  std::unique_ptr<MemoryRegion> mr_;
  std::unique_ptr<RemoteRegion> remote_;
  size_t tx_slots_ = 0, rx_slots_ = 0, peer_rx_slots_ = 1;
  size_t tx_offset_ = 0, rx_offset_ = 0, atomic_offset_ = 0, peer_atomic_offset_ = 0;
  size_t atomic_slots_ = 1, peer_atomic_slots_ = 1;
};

}  // namespace fabperf
