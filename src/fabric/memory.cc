// Buffer allocation (with huge pages) and memory registration under mr_mode rules.
#include "fabric/memory.h"

#include <linux/mman.h>
#include <sys/mman.h>
#include <sys/uio.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

namespace fabperf {

Result<std::unique_ptr<MemoryRegion>> MemoryRegion::register_buffer(fid_domain* domain, fid_ep* ep,
                                                                    const fi_info* info, void* base,
                                                                    size_t len, uint64_t access,
                                                                    const HmemPlacement& where) {
  // Keys we choose must be unique within a domain; a process-wide counter keeps them so even
  // when both sides of a loopback run share one process.
  static std::atomic<uint64_t> next_key{0x1000};
  int mode = info->domain_attr->mr_mode;
  std::unique_ptr<MemoryRegion> region(new MemoryRegion());
  region->base_ = static_cast<uint8_t*>(base);
  region->virt_addr_ = (mode & FI_MR_VIRT_ADDR) != 0;
  uint64_t requested = next_key.fetch_add(1);
  fid_mr* mr = nullptr;
  int ret = 0;
  if (!where.gpu) {
    ret = fi_mr_reg(domain, base, len, access, 0, requested, 0, &mr, nullptr);
    if (ret != 0) return fi_status("fi_mr_reg", ret);
  } else {
    iovec iov{base, len};
    fi_mr_attr attr{};
    attr.mr_iov = &iov;
    attr.iov_count = 1;
    attr.access = access;
    attr.requested_key = requested;
    attr.iface = where.iface;
    if (where.iface == FI_HMEM_ZE) {
      attr.device.ze = where.device;
    } else {
      attr.device.cuda = where.device;  // CUDA's device; ROCr ignores it
    }
    ret = fi_mr_regattr(domain, &attr, 0, &mr);
    if (ret != 0) return fi_status("fi_mr_regattr of GPU memory", ret);
  }
  region->mr_.reset(mr);
  if (mode & FI_MR_ENDPOINT) {
    if (ep == nullptr) return Status::failed("FI_MR_ENDPOINT registration without an endpoint");
    ret = fi_mr_bind(mr, &ep->fid, 0);
    if (ret != 0) return fi_status("fi_mr_bind", ret);
    ret = fi_mr_enable(mr);
    if (ret != 0) return fi_status("fi_mr_enable", ret);
  }
  region->desc_ = fi_mr_desc(mr);
  region->key_ = (mode & FI_MR_PROV_KEY) ? fi_mr_key(mr) : requested;
  if (mode & FI_MR_RAW) {
    size_t key_size = 0;
    uint64_t raw_base = 0;
    ret = fi_mr_raw_attr(mr, &raw_base, nullptr, &key_size, 0);
    if (ret != 0 && ret != -FI_ETOOSMALL) return fi_status("fi_mr_raw_attr", ret);
    region->raw_key_.resize(key_size);
    ret = fi_mr_raw_attr(mr, &raw_base, region->raw_key_.data(), &key_size, 0);
    if (ret != 0) return fi_status("fi_mr_raw_attr", ret);
    region->raw_key_.resize(key_size);
    region->raw_base_ = raw_base;
  }
  return region;
}

RegionDescriptor MemoryRegion::describe(uint64_t offset, uint64_t len) const {
  RegionDescriptor d;
  d.addr = virt_addr_ ? reinterpret_cast<uint64_t>(base_) + offset : offset;
  d.key = key_;
  d.len = len;
  d.raw_key = raw_key_;
  d.raw_base = raw_base_;
  return d;
}

Result<std::unique_ptr<RemoteRegion>> RemoteRegion::resolve(fid_domain* domain,
                                                            const RegionDescriptor& descriptor) {
  std::unique_ptr<RemoteRegion> remote(new RemoteRegion());
  remote->descriptor_ = descriptor;
  remote->key_ = descriptor.key;
  if (!descriptor.raw_key.empty()) {
    std::vector<uint8_t> raw = descriptor.raw_key;
    uint64_t key = 0;
    int ret = fi_mr_map_raw(domain, descriptor.raw_base, raw.data(), raw.size(), &key, 0);
    if (ret != 0) return fi_status("fi_mr_map_raw", ret);
    remote->key_ = key;
    remote->mapped_in_ = domain;
  }
  return remote;
}

RemoteRegion::~RemoteRegion() {
  if (mapped_in_ != nullptr) fi_mr_unmap_key(mapped_in_, key_);
}

}  // namespace fabperf
