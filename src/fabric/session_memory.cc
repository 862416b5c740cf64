// SessionMemory: the layout, allocation and registration of a session's buffer, the swap of
// region descriptions with the peer, and the patterns written and checked through it.
#include "fabric/session_memory.h"

#include "core/host_buffer.h"
#include "fabric/address_codec.h"
#include "fabric/pattern.h"

namespace fabperf {

namespace {

// Together the tx and rx slots stay under these; beyond them slots are shared between
// operations in flight (every message carries the same pattern). A plain run keeps its slots
// within 1 MiB, as its peers send from and receive into one buffer (ucx_perftest, perftest,
// qperf): with a slot per operation, 128 in flight of 1 MiB spread each side over 128 MiB and
// the copies ran from memory, not cache (tcp;ofi_rxm rdm_send_bw 1 MiB 5.6-6.9 GB/s against
// 8.3-11.6 shared, shm 6.0-6.6 against 15.3-15.8; ucx tag_bw 10.4 and 15.4; 64 KiB 1.0-1.3x,
// 4 KiB unchanged). --verify gives every operation its own slot up to 1 GiB, so a write that
// never lands leaves its own slot's poison for the check to find.
constexpr size_t kSharedSlotBytes = size_t{1} << 20;
constexpr size_t kVerifySlotBytes = size_t{1} << 30;

}  // namespace

BufferLayout BufferLayout::of(const SessionNeeds& needs, uint64_t msg_size, bool verify) {
  BufferLayout out;
  out.stride = (std::max<uint64_t>(1, msg_size) + 63) / 64 * 64;
  out.tx_slots = std::max<size_t>(1, needs.tx_slots);
  out.rx_slots = std::max<size_t>(1, needs.rx_slots);
  const size_t budget = verify ? kVerifySlotBytes : kSharedSlotBytes;
  while ((out.tx_slots + out.rx_slots) * out.stride > budget &&
         (out.tx_slots > 1 || out.rx_slots > 1)) {
    out.tx_slots = (out.tx_slots + 1) / 2;
    out.rx_slots = (out.rx_slots + 1) / 2;
  }
  out.atomic_slots = std::max<size_t>(1, needs.tx_window);
  out.atomic_bytes = (out.atomic_slots * (64 + 3 * 16) + 63) / 64 * 64;
  return out;
}

Status SessionMemory::register_buffer(const SessionNeeds& needs, FabricEndpoint& endpoint,
                                      const std::string& provider) {
  BufferLayout layout = BufferLayout::of(needs, msg_size, verify);
  stride = layout.stride;
  tx_slots_ = layout.tx_slots;
  rx_slots_ = layout.rx_slots;
  tx_offset_ = 0;
  rx_offset_ = tx_slots_ * stride;
  atomic_offset_ = rx_offset_ + rx_slots_ * stride;
  atomic_slots_ = layout.atomic_slots;
  size_t total = layout.total();
  const std::string& gpu = ctx_.opts.gpu;
  auto buffer = TestBuffer::allocate(total, gpu.empty() ? ctx_.opts.use_hp : "", gpu);
  if (!buffer.ok()) return buffer.status();
  buffer_ = std::move(*buffer);
  on_gpu_ = buffer_.on_gpu();
  // Before the peer learns where the region is, so no peer write can race with this.
  for (size_t slot = 0; slot < rx_slots_; ++slot) {
    if (needs.rx_init == RxInit::kPattern && !write_pattern(rx(slot), fill_pattern, my_seed)) {
      return error_.status();
    }
    if (needs.rx_init == RxInit::kPoison && verify && !poison_rx(slot)) return error_.status();
  }
  uint64_t access = FI_SEND | FI_RECV;
  if (needs.caps & (FI_RMA | FI_ATOMIC)) {
    access |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  }
  auto mr = MemoryRegion::register_buffer(endpoint.domain(), endpoint.ep(), endpoint.info(),
                                          buffer_.data(), total, access, buffer_.placement());
  if (!mr.ok()) {
    if (!on_gpu_) return mr.status();
    return mr.status().prefixed("provider " + provider + " cannot register " + buffer_.describe() +
                                " memory");
  }
  mr_ = std::move(*mr);
  return Status::success();
}

nlohmann::json SessionMemory::describe() const {
  uint64_t len = buffer_.size() - rx_offset_;
  return {{"region", encode_region(mr_->describe(rx_offset_, len))},
          {"rx_slots", rx_slots_},
          {"stride", stride},
          {"atomic_offset", atomic_offset_ - rx_offset_},
          {"atomic_slots", atomic_slots_}};
}

Status SessionMemory::adopt_peer(const nlohmann::json& peer, FabricEndpoint& endpoint) {
  if (!peer.contains("memory") || !peer["memory"].is_object()) {
    return Status::failed("peer sent no memory description");
  }
  const nlohmann::json& memory = peer["memory"];
  auto region = decode_region(memory.value("region", nlohmann::json()), "peer memory region");
  if (!region.ok()) return region.status();
  if (memory.value("stride", uint64_t{0}) != stride) {
    return Status::failed("client and server disagree on the message size");
  }
  peer_rx_slots_ = std::max<uint64_t>(1, memory.value("rx_slots", uint64_t{1}));
  peer_atomic_offset_ = memory.value("atomic_offset", uint64_t{0});
  peer_atomic_slots_ = std::max<uint64_t>(1, memory.value("atomic_slots", uint64_t{1}));
  auto remote = RemoteRegion::resolve(endpoint.domain(), *region);
  if (!remote.ok()) return remote.status();
  remote_ = std::move(*remote);
  return Status::success();
}

bool SessionMemory::write_pattern(uint8_t* at, PatternFn pattern, uint8_t seed) {
  if (!on_gpu_) {
    pattern(at, msg_size, seed);
    return true;
  }
  staging_.resize(std::max(staging_.size(), msg_size));
  pattern(staging_.data(), msg_size, seed);
  return put(at, staging_.data(), msg_size);
}

bool SessionMemory::fill_tx(size_t slot) { return write_pattern(tx(slot), fill_pattern, my_seed); }

bool SessionMemory::poison_tx(size_t slot) {
  return write_pattern(tx(slot), poison_pattern, peer_seed);
}

bool SessionMemory::poison_rx(size_t slot) {
  return write_pattern(rx(slot), poison_pattern, peer_seed);
}

bool SessionMemory::check_rx(const uint8_t* data, size_t len, size_t skip) {
  ctx_.stats.verify_checked++;
  if (len != msg_size) {
    ctx_.stats.verify_errors++;
    return true;
  }
  const uint8_t* bytes = view(data, msg_size);
  if (bytes == nullptr) return false;
  if (!check_pattern(bytes + skip, msg_size - skip, peer_seed, skip)) ctx_.stats.verify_errors++;
  return true;
}

bool SessionMemory::rx_holds_peer_pattern(size_t slot) {
  const uint8_t* bytes = view(rx(slot), msg_size);
  return bytes != nullptr && check_pattern(bytes, msg_size, peer_seed);
}

uint64_t SessionMemory::touch(const uint8_t* data, size_t len) {
  const uint8_t* bytes = view(data, len);
  return bytes == nullptr ? 0 : touch_bytes(bytes, len);
}

}  // namespace fabperf
