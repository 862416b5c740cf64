// Page-aligned host memory from mmap, on normal or huge pages.
#include "core/host_buffer.h"

#include <linux/mman.h>
#include <sys/mman.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <utility>

namespace fabperf {

Result<size_t> huge_page_size(const std::string& use_hp) {
  if (use_hp == "2M" || use_hp == "2m") return size_t{2} << 20;
  if (use_hp == "1G" || use_hp == "1g") return size_t{1} << 30;
  return Status::usage("Invalid hugepage type: " + use_hp + ". Must be 2M or 1G");
}

Result<uint64_t> free_huge_pages(size_t page_size) {
  std::string path =
      "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page_size >> 10) + "kB/free_hugepages";
  std::ifstream in(path);
  uint64_t pages = 0;
  if (!(in >> pages)) {
    return Status::unsupported("cannot read " + path + " (no " +
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
      std::string pool =
          "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page / 1024) + "kB/nr_hugepages";
      return Status::unsupported(
          "not enough free " + use_hp + " huge pages: need " + std::to_string(need) + ", have " +
          std::to_string(*have) + " (reserve more as root: " +
          (page == (size_t{2} << 20) ? "sysctl vm.nr_hugepages=N, or " : "") + "echo N > " + pool +
          ")");
    }
    flags |= MAP_HUGETLB | (page == (size_t{1} << 30) ? MAP_HUGE_1GB : MAP_HUGE_2MB);
    buffer.page_size_ = page;
  }
  size_t mapped = (size + page - 1) / page * page;
  if (mapped == 0) mapped = page;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, flags, -1, 0);
  if (p == MAP_FAILED) {
    return Status::failed("mmap of " + std::to_string(mapped) + " bytes" +
                          (use_hp.empty() ? "" : " of " + use_hp + " huge pages") +
                          " failed: " + std::strerror(errno));
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

void fill_letters(uint8_t* buf, size_t len) {
  for (size_t i = 0; i < len; ++i) buf[i] = static_cast<uint8_t>('a' + i % 26);
}

uint64_t touch_bytes(const uint8_t* buf, size_t len) {
  // Eight bytes a load, as qperf's touch_data reads: -ar then costs what it costs qperf, for
  // fabperf's own tests and for the qperf wire alike.
  uint64_t sum = 0;
  size_t i = 0;
  for (; i + sizeof(uint64_t) <= len; i += sizeof(uint64_t)) {
    uint64_t word;
    memcpy(&word, buf + i, sizeof word);
    sum += word;
  }
  for (; i < len; ++i) sum += buf[i];
  return sum;
}

std::string HostBuffer::describe() const {
  if (page_size_ == 0) return "System";
  return std::string(page_size_ >= (size_t{1} << 30) ? "1G" : "2M") + " huge pages (" +
         std::to_string(mapped_ / page_size_) + ")";
}

}  // namespace fabperf
