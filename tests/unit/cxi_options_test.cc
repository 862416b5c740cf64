// The CXI tools' grammar: getopt_long spellings, defaults per tool, and every validation message.
#include <gtest/gtest.h>

#include "cxi/cxi_options.h"
#include "cxi/fabric_probe.h"
#include "fabric/gpu_runtime.h"

namespace fabperf::cxi {
namespace {

Result<CxiOptions> parse(const char* tool, std::vector<std::string> args) {
  return parse_cxi_options(*find_tool(tool), args);
}

std::string error_of(const char* tool, std::vector<std::string> args) {
  auto o = parse(tool, args);
  return o.ok() ? "(accepted)" : o.status().message();
}

TEST(CxiOptions, EveryToolHasARowAndFindsItsOriginalName) {
  for (const char* name : {"fab_write_lat", "fab_read_lat", "fab_send_lat", "fab_atomic_lat",
                           "fab_write_bw", "fab_read_bw", "fab_send_bw", "fab_atomic_bw",
                           "fab_loopback_bw", "fab_heatsink_check", "fab_stat"}) {
    ASSERT_NE(find_tool(name), nullptr) << name;
    EXPECT_EQ(find_tool(find_tool(name)->original), find_tool(name));
  }
  EXPECT_EQ(find_tool("fabperf"), nullptr);
}

TEST(CxiOptions, GetoptLongSpellings) {
  for (auto args : std::vector<std::vector<std::string>>{{"-n", "5"},
                                                         {"-n5"},
                                                         {"--iters=5"},
                                                         {"--iters", "5"},
                                                         {"--it=5"}}) {
    auto o = parse("fab_write_lat", args);
    ASSERT_TRUE(o.ok()) << args[0] << ": " << o.status().message();
    EXPECT_EQ(o->iters, 5u) << args[0];
  }
  // Operands anywhere; clustered flags; "--" ends the options.
  auto o = parse("fab_send_bw", {"-bR", "server", "-l", "64"});
  ASSERT_TRUE(o.ok()) << o.status().message();
  EXPECT_TRUE(o->bidirectional && o->rdzv);
  EXPECT_EQ(o->server_addr, "server");
  EXPECT_EQ(o->list_size, 64u);
  auto dashdash = parse("fab_write_lat", {"--", "-host"});
  ASSERT_TRUE(dashdash.ok());
  EXPECT_EQ(dashdash->server_addr, "-host");
}

TEST(CxiOptions, DefaultsAreTheOriginals) {
  auto lat = parse("fab_write_lat", {});
  ASSERT_TRUE(lat.ok());
  EXPECT_EQ(lat->iters, 100u);
  EXPECT_EQ(lat->warmup, 10u);
  EXPECT_EQ(lat->gap_us, 1000u);
  EXPECT_EQ(lat->min_size, 8u);
  EXPECT_EQ(lat->port, 49194);
  EXPECT_TRUE(lat->server_addr.empty());
  auto bw = parse("fab_write_bw", {});
  EXPECT_EQ(bw->iters, 1000u);
  EXPECT_EQ(bw->min_size, 65536u);
  EXPECT_EQ(bw->list_size, 256u);
  EXPECT_EQ(bw->buf_size, 4294967296ull);
  EXPECT_EQ(bw->buf_align, 64u);
  auto amo = parse("fab_atomic_bw", {});
  EXPECT_EQ(amo->iters, 10000u);
  EXPECT_EQ(amo->list_size, 4096u);
  auto loop = parse("fab_loopback_bw", {});
  EXPECT_EQ(loop->iters, 25u);
  EXPECT_EQ(loop->num_xfers, 8192u);
  EXPECT_EQ(loop->min_size, 524288u);
  auto heat = parse("fab_heatsink_check", {});
  EXPECT_EQ(heat->duration, 600);
  EXPECT_EQ(heat->interval, 10);
  EXPECT_EQ(heat->min_size, 512u);
  EXPECT_GE(heat->procs, 1u);
  EXPECT_EQ(parse("fab_stat", {})->pause, 4);
}

TEST(CxiOptions, SizeRangeIsEveryPowerOfTwo) {
  auto o = parse("fab_write_lat", {"-s", "1:1024"});
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->sizes().size(), 11u);
  EXPECT_EQ(o->sizes().front(), 1u);
  EXPECT_EQ(o->sizes().back(), 1024u);
  EXPECT_EQ(parse("fab_write_lat", {"-s", "100"})->sizes(), std::vector<uint64_t>{100});
  EXPECT_EQ(parse("fab_write_lat", {"-s", "4294967295"})->min_size, 4294967295ull);
}

TEST(CxiOptions, ValidationMessages) {
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "3:1024"}),
            "Invalid size: 3:1024 (ranges must be powers of 2)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "1:1000"}),
            "Invalid size: 1:1000 (ranges must be powers of 2)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "1024:2"}), "Invalid size: 1024:2 (MIN is above MAX)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "0"}),
            "Invalid size: 0 (sizes are 1 to 4294967295 bytes)");
  EXPECT_EQ(error_of("fab_write_lat", {"-s", "4294967296"}),
            "Invalid size: 4294967296 (sizes are 1 to 4294967295 bytes)");
  EXPECT_EQ(error_of("fab_write_lat", {"-n", "0"}), "Invalid iteration count");
  EXPECT_EQ(error_of("fab_write_lat", {"-n", "x"}), "Invalid iteration count");
  EXPECT_EQ(error_of("fab_write_lat", {"-D", "0"}), "Invalid duration");
  EXPECT_EQ(error_of("fab_write_lat", {"--warmup", "-1"}), "Invalid warmup count");
  EXPECT_EQ(error_of("fab_write_lat", {"--latency-gap", "x"}), "Invalid iteration gap");
  EXPECT_EQ(error_of("fab_write_lat", {"-p", "0"}), "Invalid port");
  EXPECT_EQ(error_of("fab_write_lat", {"-p", "65536"}), "Invalid port");
  EXPECT_EQ(error_of("fab_write_lat", {"--use-hp", "4M"}),
            "Invalid hugepage type: 4M. Must be 2M or 1G");
  EXPECT_EQ(error_of("fab_write_lat", {"-g", "ARM"}),
            "Invalid GPU type: ARM. Must be AMD, NVIDIA or INTEL");
  EXPECT_EQ(error_of("fab_write_lat", {"a", "b"}), "Unexpected argument: b");
  EXPECT_EQ(error_of("fab_stat", {"x"}), "Unexpected argument: x");
  EXPECT_EQ(error_of("fab_write_lat", {"-n", "5", "-D", "1"}),
            "-n/--iters and -D/--duration cannot both be given");
  EXPECT_EQ(error_of("fab_write_lat", {"--bogus"}),
            "fab_write_lat: unrecognized option '--bogus'\n"
            "Try 'fab_write_lat --help' for more information.");
  EXPECT_EQ(error_of("fab_write_lat", {"--iter=3"}).substr(0, 3), "(ac");  // unique prefix
  EXPECT_EQ(error_of("fab_write_lat", {"-b"}),
            "fab_write_lat: invalid option -- 'b'\nTry 'fab_write_lat --help' for more information.");
  EXPECT_EQ(error_of("fab_write_lat", {"-n"}), "fab_write_lat: option requires an argument -- 'n'");
  EXPECT_EQ(error_of("fab_write_lat", {"--report-all=1"}),
            "fab_write_lat: option '--report-all' doesn't allow an argument");
  // Options a tool does not have are refused, not ignored.
  EXPECT_NE(error_of("fab_read_lat", {"--no-idc"}).find("unrecognized option"), std::string::npos);
  EXPECT_NE(error_of("fab_atomic_lat", {"-s", "8"}).find("invalid option"), std::string::npos);
}

TEST(CxiOptions, AtomicOpsAndTypesMustFit) {
  EXPECT_EQ(error_of("fab_atomic_lat", {"-A", "BAND", "-T", "FLOAT"}),
            "Invalid Op and Type combination: BAND FLOAT");
  EXPECT_EQ(error_of("fab_atomic_bw", {"-A", "NAND"}), "Invalid atomic operation: NAND");
  EXPECT_EQ(error_of("fab_atomic_bw", {"-T", "INT7"}), "Invalid atomic type: INT7");
  EXPECT_EQ(error_of("fab_atomic_lat", {"-A", "cswap", "-C", "lt", "-T", "float"}), "(accepted)");
}

TEST(CxiOptions, ProviderSpellingsAndHeatsinksOwnP) {
  EXPECT_EQ(parse("fab_write_lat", {"-P", "shm"})->provider, "shm");
  EXPECT_EQ(parse("fab_write_lat", {"--provider=tcp"})->provider, "tcp");
  auto heat = parse("fab_heatsink_check", {"-P", "3", "--provider", "shm"});
  ASSERT_TRUE(heat.ok()) << heat.status().message();
  EXPECT_EQ(heat->procs, 3u);
  EXPECT_EQ(heat->provider, "shm");
}

TEST(CxiOptions, OptionsTravelByName) {
  auto o = parse("fab_atomic_lat", {"h", "-A", "max", "-T", "int16", "-n", "7", "--fetching"});
  ASSERT_TRUE(o.ok());
  auto back = CxiOptions::from_json(o->to_json(), *find_tool("fab_atomic_lat"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->atomic_op, "MAX");
  EXPECT_EQ(back->atomic_type, "INT16");
  EXPECT_EQ(back->iters, 7u);
  EXPECT_TRUE(back->fetching);
  auto j = o->to_json();
  j.erase("iters");
  EXPECT_FALSE(CxiOptions::from_json(j, *find_tool("fab_atomic_lat")).ok());
}

TEST(CxiOptions, UsageListsOnlyTheToolsOptions) {
  std::string lat = cxi_usage(*find_tool("fab_write_lat"));
  EXPECT_NE(lat.find("--latency-gap"), std::string::npos);
  EXPECT_EQ(lat.find("--list-size"), std::string::npos);
  std::string heat = cxi_usage(*find_tool("fab_heatsink_check"));
  EXPECT_NE(heat.find("-P, --procs"), std::string::npos);
}

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
  Result<void*> allocate(int, size_t) override { return Status::Unsupported("fake"); }
  void release(int, void*) override {}
  Status copy_to_device(int, void*, const void*, size_t) override { return Status::Ok(); }
  Status copy_from_device(int, void*, const void*, size_t) override { return Status::Ok(); }

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
  Status s = check_hmem("tcp", "", Needs::kRma);
  if (s.ok()) GTEST_SKIP() << "this libfabric's tcp provider registers GPU memory";
  EXPECT_NE(s.message().find("cannot register GPU memory for RMA (no FI_HMEM support)"),
            std::string::npos)
      << s.message();
  EXPECT_NE(s.message().find("provider tcp"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace fabperf::cxi
