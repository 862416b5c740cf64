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

Result<size_t> huge_page_size(const std::string& use_hp) {
  if (use_hp == "2M" || use_hp == "2m") return size_t{2} << 20;
  if (use_hp == "1G" || use_hp == "1g") return size_t{1} << 30;
  return Status::Usage("Invalid hugepage type: " + use_hp + ". Must be 2M or 1G");
}

Result<uint64_t> free_huge_pages(size_t page_size) {
  std::string path = "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page_size >> 10) +
                     "kB/free_hugepages";
  std::ifstream in(path);
  uint64_t pages = 0;
  if (!(in >> pages)) {
    return Status::Unsupported("cannot read " + path + " (no " +
                               (page_size >= (size_t{1} << 30) ? "1G" : "2M") +
                               " huge page support in this kernel?)");
  }
  return pages;
}

Result<HostBuffer> HostBuffer::allocate(size_t size, const std::string& use_hp) {
  HostBuffer buffer;
  size_t page = 4096;
  int flags = MAP_PRIVATE | MAP_ANONYMOUS;
  if (!use_hp.empty()) {
    auto huge = huge_page_size(use_hp);
    if (!huge.ok()) return huge.status();
    page = *huge;
    uint64_t need = (size + page - 1) / page;
    auto have = free_huge_pages(page);
    if (!have.ok()) return have.status();
    if (*have < need) {
      // The kernel's pool is reserved by root: say where.
      std::string pool = "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page / 1024) +
                         "kB/nr_hugepages";
      return Status::Unsupported(
          "not enough free " + use_hp + " huge pages: need " + std::to_string(need) +
          ", have " + std::to_string(*have) + " (reserve more as root: " +
          (page == (size_t{2} << 20) ? "sysctl vm.nr_hugepages=N, or " : "") + "echo N > " +
          pool + ")");
    }
    flags |= MAP_HUGETLB | (page == (size_t{1} << 30) ? MAP_HUGE_1GB : MAP_HUGE_2MB);
    buffer.page_size_ = page;
  }
  size_t mapped = (size + page - 1) / page * page;
  if (mapped == 0) mapped = page;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    return Status::Failed("mmap of " + std::to_string(mapped) + " bytes" +
                          (use_hp.empty() ? "" : " of " + use_hp + " huge pages") + " failed: " +
                          std::strerror(errno));
  }
  buffer.data_ = static_cast<uint8_t*>(p);
  buffer.size_ = size;
  buffer.mapped_ = mapped;
  return buffer;
}

HostBuffer::HostBuffer(HostBuffer&& other) noexcept { *this = std::move(other); }

HostBuffer& HostBuffer::operator=(HostBuffer&& other) noexcept {
  if (this != &other) {
    if (data_ != nullptr) munmap(data_, mapped_);
    data_ = std::exchange(other.data_, nullptr);
    size_ = std::exchange(other.size_, 0);
    mapped_ = std::exchange(other.mapped_, 0);
    page_size_ = std::exchange(other.page_size_, 0);
  }
  return *this;
}

HostBuffer::~HostBuffer() {
  if (data_ != nullptr) munmap(data_, mapped_);
}

std::string HostBuffer::describe() const {
  if (page_size_ == 0) return "System";
  return std::string(page_size_ >= (size_t{1} << 30) ? "1G" : "2M") + " huge pages (" +
         std::to_string(mapped_ / page_size_) + ")";
}

Result<std::unique_ptr<MemoryRegion>> MemoryRegion::register_buffer(fid_domain* domain,
                                                                    fid_ep* ep,
                                                                    const fi_info* info,
                                                                    void* base, size_t len,
                                                                    uint64_t access,
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
    if (ep == nullptr) return Status::Failed("FI_MR_ENDPOINT registration without an endpoint");
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
