// GPU buffers without a GPU: --gpu parsing, runtime loading and TestBuffer over the stand-in
// runtime in tests/fake_gpu/ (host memory that keeps its bytes scrambled, so only the
// runtime's copies read and write it correctly).
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/environment.h"
#include "e2e_util.h"
#include "fabric/gpu_runtime.h"
#include "fabric/test_buffer.h"
#include "options/gpu_spec.h"

namespace fabperf {
namespace {

// Points the runtime search at a library for one test (FABPERF_GPU_RUNTIME, through
// core/environment.h), and sets the fake's knobs (the fake runtime reads its own environment).
class FakeGpu : public ::testing::Test {
 protected:
  void use(const std::string& library, const char* key = "0", const char* count = "1") {
    runtime(testing::beside_fabperf(library));
    setenv("FABPERF_FAKE_GPU_KEY", key, 1);
    setenv("FABPERF_FAKE_GPU_COUNT", count, 1);
  }
  void runtime(const std::string& path) {
    env_.reset();
    Environment env = environment();
    env.gpu_runtime = path;
    env_ = std::make_unique<EnvironmentOverride>(env);
  }
  void TearDown() override {
    env_.reset();
    for (const char* v :
         {"FABPERF_FAKE_GPU_KEY", "FABPERF_FAKE_GPU_COUNT", "FABPERF_FAKE_GPU_OOM"}) {
      unsetenv(v);
    }
  }

 private:
  std::unique_ptr<EnvironmentOverride> env_;
};

TEST(GpuSpec, IndexWithOrWithoutType) {
  auto a = parse_gpu_spec("0");
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->type, "");
  EXPECT_EQ(a->index, 0);
  auto b = parse_gpu_spec("AMD:3");
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(b->type, "AMD");
  EXPECT_EQ(b->index, 3);
}

TEST(GpuSpec, BadValuesAreNamed) {
  EXPECT_EQ(parse_gpu_spec("NV:0").status().message(),
            "--gpu NV:0: GPU type \"NV\" is not NVIDIA, AMD or INTEL");
  for (const char* bad : {"", "x", "-1", "NVIDIA:", "12345", "1.5", "NVIDIA:0:1"}) {
    auto r = parse_gpu_spec(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), Code::kUsage) << bad;
    EXPECT_NE(r.status().message().find(std::string("--gpu ") + bad), std::string::npos)
        << r.status().message();
  }
}

TEST_F(FakeGpu, RuntimeFromTheEnvironmentCountsItsDevices) {
  use("libfabperf_fake_gpu.so", "0", "2");
  auto rt = load_gpu_runtime(GpuType::kNvidia);
  ASSERT_TRUE(rt.ok()) << rt.status().message();
  EXPECT_EQ(*(*rt)->device_count(), 2);
  // The stand-in declares host memory; a real libcudart declares nothing and gets CUDA.
  EXPECT_EQ((*rt)->hmem_iface(), FI_HMEM_SYSTEM);
  EXPECT_TRUE(check_gpu_device(**rt, 1).ok());
  EXPECT_EQ(check_gpu_device(**rt, 2).message(), "no NVIDIA GPU 2: the runtime reports 2 devices");
  use("libfabperf_fake_gpu_cuda_iface.so");
  auto cuda = load_gpu_runtime(GpuType::kNvidia);
  ASSERT_TRUE(cuda.ok()) << cuda.status().message();
  EXPECT_EQ((*cuda)->hmem_iface(), FI_HMEM_CUDA);
}

TEST_F(FakeGpu, LibraryWithoutTheEntryPointsIsNamed) {
  runtime("libm.so.6");
  auto rt = load_gpu_runtime(GpuType::kAmd);
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().message(), "GPU runtime libamdhip64.so lacks hipGetDeviceCount");
  rt = load_gpu_runtime(GpuType::kIntel);
  ASSERT_FALSE(rt.ok());
  EXPECT_EQ(rt.status().message(), "GPU runtime libze_loader.so lacks zeInit");
}

TEST_F(FakeGpu, BufferIsClearedAndOnlyTheRuntimeReadsItRight) {
  use("libfabperf_fake_gpu.so", "90");
  auto buffer = TestBuffer::allocate(4096, "", "NVIDIA:0");
  ASSERT_TRUE(buffer.ok()) << buffer.status().message();
  EXPECT_TRUE(buffer->on_gpu());
  EXPECT_EQ(buffer->describe(), "NVIDIA GPU 0");
  HmemPlacement where = buffer->placement();
  EXPECT_TRUE(where.gpu);
  EXPECT_EQ(where.iface, FI_HMEM_SYSTEM);  // the stand-in's declaration
  EXPECT_EQ(where.device, 0);
  // Fresh device memory is garbage in the stand-in: allocate() clears it.
  std::vector<uint8_t> out(4096, 0xee);
  ASSERT_TRUE(buffer->read(out.data(), buffer->data(), out.size()).ok());
  EXPECT_EQ(out, std::vector<uint8_t>(4096, 0));
  const char text[] = "through the runtime";
  uint8_t* at = buffer->data() + 100;
  ASSERT_TRUE(buffer->write(at, text, sizeof text).ok());
  char back[sizeof text] = {};
  ASSERT_TRUE(buffer->read(back, at, sizeof back).ok());
  EXPECT_STREQ(back, text);
  // What the CPU would see reading the device directly: not the data.
  EXPECT_NE(std::memcmp(at, text, sizeof text), 0);
}

TEST_F(FakeGpu, HostBufferIsTheDefault) {
  auto buffer = TestBuffer::allocate(100, "", "");
  ASSERT_TRUE(buffer.ok());
  EXPECT_FALSE(buffer->on_gpu());
  EXPECT_EQ(buffer->describe(), "System");
  EXPECT_FALSE(buffer->placement().gpu);
  const char text[] = "plain";
  ASSERT_TRUE(buffer->write(buffer->data(), text, sizeof text).ok());
  EXPECT_STREQ(reinterpret_cast<const char*>(buffer->data()), text);
}

TEST_F(FakeGpu, EachMissingPieceIsNamed) {
  use("libfabperf_fake_gpu.so");
  EXPECT_EQ(TestBuffer::allocate(64, "", "NVIDIA:1").status().message(),
            "no NVIDIA GPU 1: the runtime reports 1 device");
  EXPECT_EQ(TestBuffer::allocate(64, "", "NV:1").status().code(), Code::kUsage);
  setenv("FABPERF_FAKE_GPU_OOM", "1", 1);
  EXPECT_EQ(TestBuffer::allocate(64, "", "NVIDIA:0").status().message(),
            "allocating 64 bytes on GPU 0 failed (GPU runtime error 2)");
  unsetenv("FABPERF_FAKE_GPU_OOM");
  runtime("/nonexistent/libcudart.so");
  auto missing = TestBuffer::allocate(64, "", "NVIDIA:0");
  EXPECT_NE(missing.status().message().find("GPU runtime for NVIDIA not found: /nonexistent/"),
            std::string::npos)
      << missing.status().message();
}

TEST_F(FakeGpu, CopiesOutsideTheAllocationFail) {
  use("libfabperf_fake_gpu.so");
  auto buffer = TestBuffer::allocate(64, "", "NVIDIA:0");
  ASSERT_TRUE(buffer.ok()) << buffer.status().message();
  uint8_t host[128] = {};
  Status s = buffer->write(buffer->data(), host, sizeof host);
  EXPECT_EQ(s.message(), "copy to GPU memory failed (GPU runtime error 1)");
}

}  // namespace
}  // namespace fabperf
