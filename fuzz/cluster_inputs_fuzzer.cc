// libFuzzer target: the files --matrix reads from disk, a fabric model (--simulate) and an
// earlier run (--baseline). Any input must end in a model or baseline, or a usage error naming
// the file; nothing may throw or abort (review N6: "1e999999" ended both with SIGABRT).
#include <cstddef>
#include <cstdint>
#include <string>

#include "cluster/baseline.h"
#include "cluster/fabric_model.h"

using namespace fabperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  auto model = cluster::FabricModel::parse(text, "fuzz.json");
  if (!model.ok() && model.status().message().rfind("fuzz.json: ", 0) != 0) __builtin_trap();
  auto base = cluster::parse_baseline(
      text, "fuzz.json", {{"tcp_lat", "latency_ns.p50"}, {"tcp_bw", "bandwidth.recv_Bps"}});
  if (!base.ok() && base.status().message().rfind("--baseline fuzz.json: ", 0) != 0) {
    __builtin_trap();
  }
  return 0;
}
