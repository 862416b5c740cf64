// Where a fabric test's buffers live, host memory (normal or huge pages) or GPU memory, and
// the only ways the CPU reads and writes them: memcpy in host memory, the runtime's copies in
// GPU memory (which the CPU cannot touch).
#pragma once

#include <rdma/fi_domain.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "core/status.h"
#include "fabric/gpu_runtime.h"
#include "fabric/memory.h"

namespace fabperf {

class TestBuffer {
 public:
  // `gpu`: "" for host memory (huge pages of `use_hp` when set), else --gpu's "[TYPE:]INDEX":
  // the type (named or found), its runtime and the device are checked in that order, and each
  // missing piece is named.
  static Result<TestBuffer> allocate(size_t size, const std::string& use_hp,
                                     const std::string& gpu);

  TestBuffer() = default;
  TestBuffer(TestBuffer&& other) noexcept;
  TestBuffer& operator=(TestBuffer&& other) noexcept;
  TestBuffer(const TestBuffer&) = delete;
  TestBuffer& operator=(const TestBuffer&) = delete;
  ~TestBuffer();

  uint8_t* data() const { return gpu_data_ != nullptr ? gpu_data_ : host_.data(); }
  size_t size() const { return gpu_data_ != nullptr ? gpu_size_ : host_.size(); }
  bool on_gpu() const { return gpu_data_ != nullptr; }
  // What libfabric is told at registration.
  HmemPlacement placement() const {
    if (!on_gpu()) return {};
    return {true, runtime_->hmem_iface(), device_};
  }
  // "System", "2M huge pages (9)", "NVIDIA GPU 0".
  std::string describe() const;

  // Copies into / out of the buffer; `at` points inside it.
  Status write(uint8_t* at, const void* src, size_t len) const;
  Status read(void* dst, const uint8_t* at, size_t len) const;

 private:
  void release();
  HostBuffer host_;
  std::unique_ptr<GpuRuntime> runtime_;
  uint8_t* gpu_data_ = nullptr;
  size_t gpu_size_ = 0;
  int device_ = -1;
};

}  // namespace fabperf
