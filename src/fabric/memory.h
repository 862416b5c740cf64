// Test buffers (plain or huge pages) and their registration under the provider's mr_mode rules.
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/host_buffer.h"
#include "core/status.h"
#include "fabric/address_codec.h"
#include "fabric/fi_util.h"

namespace fabperf {

// Where a buffer lives, for its registration: GPU memory goes to fi_mr_regattr with its
// libfabric interface and device, host memory to fi_mr_reg.
struct HmemPlacement {
  bool gpu = false;
  fi_hmem_iface iface = FI_HMEM_SYSTEM;
  int device = 0;
};

// A registered buffer. Honours FI_MR_LOCAL (descriptors), FI_MR_VIRT_ADDR (addresses vs
// offsets), FI_MR_PROV_KEY (provider keys), FI_MR_ENDPOINT (bind and enable) and FI_MR_RAW.
class MemoryRegion {
 public:
  // `ep` is needed only under FI_MR_ENDPOINT (the region is bound to it).
  static Result<std::unique_ptr<MemoryRegion>> register_buffer(fid_domain* domain, fid_ep* ep,
                                                               const fi_info* info, void* base,
                                                               size_t len, uint64_t access,
                                                               const HmemPlacement& where = {});

  // Descriptor for local buffers inside the region (nullptr where the provider needs none).
  void* desc() const { return desc_; }
  // What the peer needs to reach [offset, offset + len) of this region.
  RegionDescriptor describe(uint64_t offset, uint64_t len) const;

 private:
  MemoryRegion() = default;
  FidPtr<fid_mr> mr_;
  void* desc_ = nullptr;
  uint8_t* base_ = nullptr;
  uint64_t key_ = 0;
  bool virt_addr_ = false;
  std::vector<uint8_t> raw_key_;
  uint64_t raw_base_ = 0;
};

// The peer's region as this side uses it: target addresses and the (mapped) key.
class RemoteRegion {
 public:
  static Result<std::unique_ptr<RemoteRegion>> resolve(fid_domain* domain,
                                                       const RegionDescriptor& descriptor);
  ~RemoteRegion();
  RemoteRegion(const RemoteRegion&) = delete;
  RemoteRegion& operator=(const RemoteRegion&) = delete;

  uint64_t addr(uint64_t offset) const { return descriptor_.addr + offset; }
  uint64_t key() const { return key_; }
  uint64_t len() const { return descriptor_.len; }

 private:
  RemoteRegion() = default;
  RegionDescriptor descriptor_;
  uint64_t key_ = 0;
  fid_domain* mapped_in_ = nullptr;  // set when the key came from fi_mr_map_raw
};

}  // namespace fabperf
