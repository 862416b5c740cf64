// Page-aligned host memory: the buffers a test sends from and receives into.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "core/status.h"

namespace fabperf {

// Page-aligned, zeroed host memory from mmap; MAP_HUGETLB pages when asked for.
class HostBuffer {
 public:
  // use_hp: "" (normal pages), "2M" or "1G". Huge pages are counted in sysfs first, so a
  // shortage is a clear error rather than a failed mmap.
  static Result<HostBuffer> allocate(size_t size, const std::string& use_hp);

  HostBuffer() = default;
  HostBuffer(HostBuffer&& other) noexcept;
  HostBuffer& operator=(HostBuffer&& other) noexcept;
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  ~HostBuffer();

  uint8_t* data() const { return data_; }
  size_t size() const { return size_; }
  // "System" or "2M huge pages (N)", for the run's info.
  std::string describe() const;

 private:
  uint8_t* data_ = nullptr;
  size_t size_ = 0;       // usable bytes
  size_t mapped_ = 0;     // bytes mapped (rounded up to the page size)
  size_t page_size_ = 0;  // huge page size, 0 for normal pages
};

// Free huge pages of `page_size` bytes according to sysfs, or an error naming the file.
Result<uint64_t> free_huge_pages(size_t page_size);
// "2M" -> 2 MiB, "1G" -> 1 GiB; anything else is a Usage error.
Result<size_t> huge_page_size(const std::string& use_hp);

// Fills buf with a-z repeating: what a socket test's sender sends (qperf's bytes).
void fill_letters(uint8_t* buf, size_t len);
// Reads every byte (--access_recv), so received data is really brought into the cache; the
// sum keeps the compiler from dropping the reads.
uint64_t touch_bytes(const uint8_t* buf, size_t len);

}  // namespace fabperf
