// GPU runtimes without a GPU: every way of failing says which piece is missing.
#include "fabric/gpu_runtime.h"

#include <gtest/gtest.h>

#include "fabric/provider.h"

namespace fabperf {
namespace {

// No GPU here: every way of failing says which piece is missing.
TEST(CxiGpu, NoDeviceFilesNamesThem) {
  auto t = choose_gpu_type("", "/nonexistent-dev");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("no GPU found: none of /nonexistent-dev/nvidia0"),
            std::string::npos);
  EXPECT_EQ(*choose_gpu_type("AMD", "/nonexistent-dev"), GpuType::kAmd);
}

TEST(CxiGpu, MissingRuntimeOrDeviceIsNamed) {
  for (GpuType type : {GpuType::kNvidia, GpuType::kAmd, GpuType::kIntel}) {
    auto rt = load_gpu_runtime(type);
    if (!rt.ok()) {
      EXPECT_NE(rt.status().message().find(std::string("GPU runtime for ") + gpu_type_name(type) +
                                           " not found: " + gpu_runtime_library(type)),
                std::string::npos)
          << rt.status().message();
      continue;
    }
    // A runtime without a GPU (CUDA installed on a machine with no device): the device check
    // names the type and what the runtime said.
    Status s = check_gpu_device(**rt, 0);
    if (s.ok()) continue;  // a real GPU
    EXPECT_NE(s.message().find(std::string("no ") + gpu_type_name(type) + " GPU"),
              std::string::npos)
        << s.message();
  }
}

class FakeRuntime : public GpuRuntime {
 public:
  explicit FakeRuntime(int n) : n_(n) {}
  GpuType type() const override { return GpuType::kNvidia; }
  fi_hmem_iface hmem_iface() const override { return FI_HMEM_CUDA; }
  Result<int> device_count() override { return n_; }
  Result<void*> allocate(int, size_t) override { return Status::unsupported("fake"); }
  void release(int, void*) override {}
  Status copy_to_device(int, void*, const void*, size_t) override { return Status::success(); }
  Status copy_from_device(int, void*, const void*, size_t) override { return Status::success(); }

 private:
  int n_;
};

TEST(CxiGpu, MissingDeviceSaysHowManyThereAre) {
  FakeRuntime none(0), one(1);
  EXPECT_EQ(check_gpu_device(none, 0).message(), "no NVIDIA GPU 0: the runtime reports 0 devices");
  EXPECT_EQ(check_gpu_device(one, 1).message(), "no NVIDIA GPU 1: the runtime reports 1 device");
  EXPECT_TRUE(check_gpu_device(one, 0).ok());
}

TEST(CxiGpu, ProviderWithoutHmemIsNamed) {
  FabricRequest want;
  want.ep_type = FI_EP_RDM;
  want.caps = FI_RMA | FI_HMEM;
  want.provider = "tcp;ofi_rxm";
  auto choice = select_fabric(want);
  if (choice.ok()) GTEST_SKIP() << "this libfabric's tcp;ofi_rxm registers GPU memory";
  EXPECT_NE(choice.status().message().find("FI_HMEM"), std::string::npos)
      << choice.status().message();
  EXPECT_NE(choice.status().message().find("tcp;ofi_rxm"), std::string::npos)
      << choice.status().message();
}

}  // namespace
}  // namespace fabperf
