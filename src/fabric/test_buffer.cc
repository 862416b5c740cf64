// Test buffers in host or GPU memory.
#include "fabric/test_buffer.h"

#include <cstring>
#include <utility>

namespace fabperf {

Result<TestBuffer> TestBuffer::allocate(size_t size, const std::string& use_hp,
                                        const std::string& gpu) {
  TestBuffer buffer;
  if (gpu.empty()) {
    auto host = HostBuffer::allocate(size, use_hp);
    if (!host.ok()) return host.status();
    buffer.host_ = std::move(*host);
    return buffer;
  }
  auto spec = parse_gpu_spec(gpu);
  if (!spec.ok()) return spec.status();
  auto runtime = open_gpu(*spec);
  if (!runtime.ok()) return runtime.status();
  auto p = (*runtime)->allocate(spec->index, size);
  if (!p.ok()) return p.status();
  buffer.runtime_ = std::move(*runtime);
  buffer.gpu_data_ = static_cast<uint8_t*>(*p);
  buffer.gpu_size_ = size;
  buffer.device_ = spec->index;
  return buffer;
}

TestBuffer::TestBuffer(TestBuffer&& other) noexcept { *this = std::move(other); }

TestBuffer& TestBuffer::operator=(TestBuffer&& other) noexcept {
  if (this != &other) {
    release();
    host_ = std::move(other.host_);
    runtime_ = std::move(other.runtime_);
    gpu_data_ = std::exchange(other.gpu_data_, nullptr);
    gpu_size_ = std::exchange(other.gpu_size_, 0);
    device_ = std::exchange(other.device_, -1);
  }
  return *this;
}

TestBuffer::~TestBuffer() { release(); }

void TestBuffer::release() {
  if (gpu_data_ != nullptr) runtime_->release(device_, gpu_data_);
  gpu_data_ = nullptr;
  runtime_.reset();
}

std::string TestBuffer::describe() const {
  if (!on_gpu()) return host_.describe();
  return std::string(gpu_type_name(runtime_->type())) + " GPU " + std::to_string(device_);
}

Status TestBuffer::write(uint8_t* at, const void* src, size_t len) const {
  if (!on_gpu()) {
    std::memcpy(at, src, len);
    return Status::success();
  }
  return runtime_->copy_to_device(device_, at, src, len);
}

Status TestBuffer::read(void* dst, const uint8_t* at, size_t len) const {
  if (!on_gpu()) {
    std::memcpy(dst, at, len);
    return Status::success();
  }
  return runtime_->copy_from_device(device_, dst, at, len);
}

}  // namespace fabperf
