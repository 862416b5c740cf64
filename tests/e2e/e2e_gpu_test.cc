// End-to-end: fabperf's --gpu through the stand-in CUDA runtime in tests/fake_gpu/, over shm
// (the provider here with FI_HMEM). With both sides in "GPU" memory under a scrambling key,
// --verify passes only if every byte the CPU writes or reads went through the runtime.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "e2e_util.h"
#include "fabric/provider.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

bool shm_has_hmem() {
  static const bool has = [] {
    for (const std::string& p : providers_with(FI_EP_RDM, FI_RMA | FI_HMEM)) {
      if (p == "shm") return true;
    }
    return false;
  }();
  return has;
}

#define REQUIRE_SHM_HMEM() \
  if (!shm_has_hmem()) GTEST_SKIP() << "no shm provider with FI_HMEM here"

json run_json(const std::vector<std::string>& args, RunOutput* r) {
  *r = run(args, 60);
  if (r->exit_code != 0) return json();
  return json::parse(r->out, nullptr, false);
}

class E2eGpu : public ::testing::TestWithParam<const char*> {};

TEST_P(E2eGpu, VerifiesWithBothSidesInGpuMemory) {
  REQUIRE_SHM_HMEM();
  FakeGpuEnv gpu(90);
  RunOutput r;
  json doc = run_json({"--loopback", "-n", "200", "--provider", "shm", "--gpu", "NVIDIA:0",
                       "--verify", "--json", "-", GetParam()},
                      &r);
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const json& result = doc["results"][0];
  EXPECT_EQ(result["status"], "ok");
  EXPECT_GT(result["verify"]["checked"].get<uint64_t>(), 0u) << result.dump();
  EXPECT_EQ(result["verify"]["errors"], 0) << result.dump();
  EXPECT_EQ(result["info"]["loc"]["memory"], "NVIDIA GPU 0");
  EXPECT_EQ(result["info"]["rem"]["memory"], "NVIDIA GPU 0");
  FakeGpuEnv::Totals used = gpu.totals();
  EXPECT_EQ(used.allocs, 2u);
  EXPECT_GT(used.to_device, 0u);
  EXPECT_GT(used.from_device, 0u);  // --verify read the received data back
}

INSTANTIATE_TEST_SUITE_P(RdmTests, E2eGpu,
                         ::testing::Values("rdm_send_lat", "rdm_write_lat", "rdm_read_lat",
                                           "rdm_send_bw", "rdm_write_bw", "rdm_read_bw",
                                           "rdm_send_bi_bw", "rdm_write_bi_bw"));

// shm registers GPU memory, but not for atomics: said so, with the providers that could.
TEST(E2eGpuChecks, AtomicsNeedAProviderWithFiHmemForThem) {
  REQUIRE_SHM_HMEM();
  if (!providers_with(FI_EP_RDM, FI_ATOMIC | FI_HMEM).empty()) {
    GTEST_SKIP() << "a provider here does atomics on GPU memory";
  }
  FakeGpuEnv gpu(0);
  RunOutput r =
      run({"--loopback", "-n", "200", "--provider", "shm", "--gpu", "NVIDIA:0", "rdm_atomic_lat"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.err,
                       "provider \"shm\" does not offer FI_ATOMIC|FI_HMEM together on "
                       "FI_EP_RDM endpoints"))
      << r.err;
}

// The stand-in's scrambling is what makes the tests above meaningful: a side in host memory
// reads the GPU side's scrambled bytes as they are, and --verify says so.
TEST(E2eGpuChecks, ScramblingCatchesAHostSideReadingGpuBytes) {
  REQUIRE_SHM_HMEM();
  FakeGpuEnv gpu(90);
  RunOutput r = run({"--loopback", "-n", "50", "--provider", "shm", "--loc_gpu", "NVIDIA:0",
                     "--verify", "rdm_send_lat"});
  EXPECT_NE(r.exit_code, 0) << r.out;
  EXPECT_TRUE(contains(r.err, "verification failed")) << r.err;
}

TEST(E2eGpuChecks, EachMissingPieceIsNamed) {
  REQUIRE_SHM_HMEM();
  FakeGpuEnv gpu;
  RunOutput r =
      run({"--loopback", "-n", "10", "--provider", "shm", "--gpu", "NV:0", "rdm_send_lat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--gpu NV:0: GPU type \"NV\" is not NVIDIA, AMD or INTEL")) << r.err;
  r = run({"--loopback", "-n", "10", "--provider", "shm", "--rem_gpu", "NVIDIA:3", "rdm_send_lat"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(
      contains(r.err, "rdm_send_lat: server: no NVIDIA GPU 3: the runtime reports 1 device"))
      << r.err;
  r = run({"--loopback", "-n", "10", "--provider", "tcp", "--gpu", "NVIDIA:0", "rdm_send_lat"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err,
                       "provider \"tcp\" lacks FI_HMEM on FI_EP_RDM endpoints; providers "
                       "on this host with it: shm"))
      << r.err;
}

TEST(E2eGpuChecks, NoRuntimeIsNamed) {
  setenv("FABPERF_GPU_RUNTIME", "/nonexistent/libcudart.so", 1);
  RunOutput r =
      run({"--loopback", "-n", "10", "--provider", "shm", "--gpu", "NVIDIA:0", "rdm_send_lat"});
  unsetenv("FABPERF_GPU_RUNTIME");
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "GPU runtime for NVIDIA not found: /nonexistent/libcudart.so"))
      << r.err;
}

TEST(E2eGpuChecks, RegistrationRefusedByTheProviderIsNamed) {
  REQUIRE_SHM_HMEM();
  FakeGpuEnv gpu(0, "libfabperf_fake_gpu_cuda_iface.so");
  RunOutput r =
      run({"--loopback", "-n", "10", "--provider", "shm", "--gpu", "NVIDIA:0", "rdm_write_lat"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err,
                       "provider shm cannot register NVIDIA GPU 0 memory: "
                       "fi_mr_regattr of GPU memory"))
      << r.err;
}

}  // namespace
}  // namespace fabperf::testing
