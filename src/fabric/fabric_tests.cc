// Registry rows of the libfabric tests: each row names its endpoint type, kind and options.
#include "fabric/fabric_tests.h"

#include <string>

#include "fabric/atomic_ops.h"
#include "fabric/roles.h"

namespace fabperf {

namespace {

constexpr uint64_t kBwSize = 65536;
constexpr uint64_t kUdSize = 2048;
constexpr uint64_t kLatSize = 1;
constexpr uint64_t kAtomicSize = 8;

// Every fabric test chooses its provider and buffers the same way.
std::vector<const char*> with_common(std::vector<const char*> extra) {
  std::vector<const char*> out = {"msg_size", "time",  "no_msgs", "warmup",  "id",
                                  "provider", "domain", "fabric", "cq_poll", "use_hp",
                                  "gpu"};
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

Status unsupported_role(TestContext& ctx) { return unsupported_transport(ctx); }

Status check_atomic(const RunOptions& opts) { return atomic_spec_from_options(opts).status(); }

// FI_EP_DGRAM tests (ud_*) lose datagrams by design: the engine counts them, not fails. The
// tests that take --atomic_op and --atomic_type check that they fit together.
std::vector<TestSpec> mark_datagrams(std::vector<TestSpec> tests) {
  for (TestSpec& t : tests) {
    t.reliable = std::string(t.transport) != "ud";
    for (const char* o : t.options) {
      if (std::string(o) == "atomic_op") t.check = check_atomic;
    }
  }
  return tests;
}

}  // namespace

Status unsupported_transport(TestContext& ctx) {
  std::string transport = ctx.spec.transport;
  std::string what = transport == "uc" ? "an unreliable connected (UC) queue pair"
                                       : "an extended reliable connected (XRC) queue pair";
  return Status::Unsupported(
      std::string(ctx.spec.name) + " needs " + what +
      " (ibverbs); libfabric has no such endpoint type (only FI_EP_MSG, FI_EP_DGRAM and "
      "FI_EP_RDM), so no provider can run it; the rc_* tests give reliable connected "
      "semantics over any provider");
}

const std::vector<TestSpec>& fabric_tests() {
  using K = TestKind;
  const auto F = TransportFamily::kFabric;
  const auto lat = with_common({"access_recv", "verify"});
  const auto bw = with_common({"tx_depth", "access_recv", "verify"});
  const auto ud = with_common({"tx_depth", "access_recv", "verify", "mtu_size"});
  const auto ud_lat = with_common({"access_recv", "verify", "mtu_size"});
  const auto rma_bw = with_common({"tx_depth", "verify"});
  const auto rma_lat = with_common({"verify"});
  const auto read_bw = with_common({"tx_depth", "rd_atomic", "verify"});
  const auto rate = with_common({"tx_depth", "rd_atomic"});
  const auto ver = with_common({});
  const auto amo = with_common({"tx_depth", "rd_atomic", "atomic_op", "atomic_type", "cswap_op",
                                "fetching"});
  const auto amo_lat = with_common({"atomic_op", "atomic_type", "cswap_op", "fetching"});
  const auto none = std::vector<const char*>{"msg_size"};

  static const std::vector<TestSpec> tests = mark_datagrams({
      // FI_EP_MSG: qperf's RC tests.
      {"rc_bw", F, K::kBandwidth, "rc", "RC streaming one way bandwidth", bw, kBwSize,
       [](TestContext& c) { return send_stream(c, FI_EP_MSG, false); },
       [](TestContext& c) { return send_stream(c, FI_EP_MSG, false); },
       "Sends over a connected (FI_EP_MSG) endpoint with tx_depth messages in flight."},
      {"rc_bi_bw", F, K::kBiBandwidth, "rc", "RC streaming two way bandwidth", bw, kBwSize,
       [](TestContext& c) { return send_stream(c, FI_EP_MSG, true); },
       [](TestContext& c) { return send_stream(c, FI_EP_MSG, true); },
       "Both sides send and receive at once over a connected endpoint."},
      {"rc_lat", F, K::kLatency, "rc", "RC one way latency", lat, kLatSize,
       [](TestContext& c) { return send_pingpong(c, FI_EP_MSG); },
       [](TestContext& c) { return send_pingpong(c, FI_EP_MSG); },
       "Send/receive ping-pong; latency is half the round trip."},
      {"rc_rdma_read_bw", F, K::kBandwidth, "rc", "RC RDMA read bandwidth", read_bw, kBwSize,
       [](TestContext& c) { return rma_read_bw(c, FI_EP_MSG); },
       [](TestContext& c) { return rma_read_bw(c, FI_EP_MSG); },
       "The client reads from the server's memory, min(tx_depth, rd_atomic) reads in flight."},
      {"rc_rdma_read_lat", F, K::kLatency, "rc", "RC RDMA read latency", rma_lat, kLatSize,
       [](TestContext& c) { return rma_read_lat(c, FI_EP_MSG); },
       [](TestContext& c) { return rma_read_lat(c, FI_EP_MSG); },
       "One read at a time; the latency is the full round trip of each read."},
      {"rc_rdma_write_bw", F, K::kBandwidth, "rc", "RC RDMA write bandwidth", rma_bw, kBwSize,
       [](TestContext& c) { return rma_write_bw(c, FI_EP_MSG, false, true); },
       [](TestContext& c) { return rma_write_bw(c, FI_EP_MSG, false, true); },
       "Writes with remote CQ data, so the receiver counts (the writer does where the "
       "provider has no remote CQ data)."},
      {"rc_rdma_write_lat", F, K::kLatency, "rc", "RC RDMA write one way latency", rma_lat,
       kLatSize, [](TestContext& c) { return rma_write_pingpong(c, FI_EP_MSG); },
       [](TestContext& c) { return rma_write_pingpong(c, FI_EP_MSG); },
       "Write-with-data ping-pong; latency is half the round trip."},
      {"rc_rdma_write_poll_lat", F, K::kLatency, "rc", "RC RDMA write one way polling latency",
       rma_lat, kLatSize, [](TestContext& c) { return rma_write_poll_lat(c, FI_EP_MSG); },
       [](TestContext& c) { return rma_write_poll_lat(c, FI_EP_MSG); },
       "Write ping-pong where each side spins on the first and last byte of its buffer."},
      {"rc_compare_swap_mr", F, K::kMsgRate, "rc", "RC compare and swap messaging rate", rate,
       kAtomicSize, [](TestContext& c) { return compare_swap_rate(c, FI_EP_MSG); },
       [](TestContext& c) { return compare_swap_rate(c, FI_EP_MSG); },
       "64-bit compare-and-swap on one remote word, many in flight."},
      {"rc_fetch_add_mr", F, K::kMsgRate, "rc", "RC fetch and add messaging rate", rate,
       kAtomicSize, [](TestContext& c) { return fetch_add_rate(c, FI_EP_MSG); },
       [](TestContext& c) { return fetch_add_rate(c, FI_EP_MSG); },
       "64-bit fetch-and-add on one remote word, many in flight."},
      {"ver_rc_compare_swap", F, K::kVerify, "rc", "Verify RC compare and swap", ver,
       kAtomicSize, [](TestContext& c) { return verify_compare_swap(c, FI_EP_MSG); },
       [](TestContext& c) { return verify_compare_swap(c, FI_EP_MSG); },
       "Each compare-and-swap must return the previous value of the sequence."},
      {"ver_rc_fetch_add", F, K::kVerify, "rc", "Verify RC fetch and add", ver, kAtomicSize,
       [](TestContext& c) { return verify_fetch_add(c, FI_EP_MSG); },
       [](TestContext& c) { return verify_fetch_add(c, FI_EP_MSG); },
       "Each fetch-and-add must return the previous value of the sequence."},
      // FI_EP_DGRAM: qperf's UD tests; losses are counted.
      {"ud_bw", F, K::kBandwidth, "ud", "UD streaming one way bandwidth", ud, kUdSize,
       [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, false); },
       [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, false); },
       "Datagrams with tx_depth in flight; what never arrives counts as lost."},
      {"ud_bi_bw", F, K::kBiBandwidth, "ud", "UD streaming two way bandwidth", ud, kUdSize,
       [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, true); },
       [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, true); },
       "Datagrams both ways at once; losses counted on each side."},
      {"ud_lat", F, K::kLatency, "ud", "UD one way latency", ud_lat, kLatSize,
       [](TestContext& c) { return send_pingpong(c, FI_EP_DGRAM); },
       [](TestContext& c) { return send_pingpong(c, FI_EP_DGRAM); },
       "Datagram ping-pong; a reply missing for a second counts as lost."},
      // FI_EP_RDM: the CXI tools' operations.
      {"rdm_send_lat", F, K::kLatency, "rdm", "RDM send one way latency", lat, kLatSize,
       [](TestContext& c) { return send_pingpong(c, FI_EP_RDM); },
       [](TestContext& c) { return send_pingpong(c, FI_EP_RDM); },
       "Send/receive ping-pong over reliable datagrams; latency is half the round trip."},
      {"rdm_write_lat", F, K::kLatency, "rdm", "RDM RDMA write latency", rma_lat, kLatSize,
       [](TestContext& c) { return rma_write_lat(c, FI_EP_RDM); },
       [](TestContext& c) { return rma_write_lat(c, FI_EP_RDM); },
       "Issue to completion of one write, with FI_DELIVERY_COMPLETE where offered."},
      {"rdm_read_lat", F, K::kLatency, "rdm", "RDM RDMA read latency", rma_lat, kLatSize,
       [](TestContext& c) { return rma_read_lat(c, FI_EP_RDM); },
       [](TestContext& c) { return rma_read_lat(c, FI_EP_RDM); },
       "Issue to completion of one read."},
      {"rdm_atomic_lat", F, K::kLatency, "rdm", "RDM atomic latency", amo_lat, kAtomicSize,
       [](TestContext& c) { return atomic_lat(c, FI_EP_RDM); },
       [](TestContext& c) { return atomic_lat(c, FI_EP_RDM); },
       "Issue to completion of one atomic (--atomic_op, --atomic_type, --cswap_op, "
       "--fetching)."},
      {"rdm_send_bw", F, K::kBandwidth, "rdm", "RDM send bandwidth", bw, kBwSize,
       [](TestContext& c) { return send_stream(c, FI_EP_RDM, false); },
       [](TestContext& c) { return send_stream(c, FI_EP_RDM, false); },
       "Sends with tx_depth in flight; the server counts what arrives."},
      {"rdm_write_bw", F, K::kBandwidth, "rdm", "RDM RDMA write bandwidth", rma_bw, kBwSize,
       [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, false, false); },
       [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, false, false); },
       "Writes with tx_depth in flight; the writer's completions count."},
      {"rdm_read_bw", F, K::kBandwidth, "rdm", "RDM RDMA read bandwidth", read_bw, kBwSize,
       [](TestContext& c) { return rma_read_bw(c, FI_EP_RDM); },
       [](TestContext& c) { return rma_read_bw(c, FI_EP_RDM); },
       "Reads with min(tx_depth, rd_atomic) in flight."},
      {"rdm_atomic_bw", F, K::kBandwidth, "rdm", "RDM atomic rate", amo, kAtomicSize,
       [](TestContext& c) { return atomic_bw(c, FI_EP_RDM); },
       [](TestContext& c) { return atomic_bw(c, FI_EP_RDM); },
       "Atomics with tx_depth in flight (fetching ones limited by rd_atomic)."},
      {"rdm_send_bi_bw", F, K::kBiBandwidth, "rdm", "RDM send two way bandwidth", bw, kBwSize,
       [](TestContext& c) { return send_stream(c, FI_EP_RDM, true); },
       [](TestContext& c) { return send_stream(c, FI_EP_RDM, true); },
       "Both sides send and receive at once."},
      {"rdm_write_bi_bw", F, K::kBiBandwidth, "rdm", "RDM RDMA write two way bandwidth", rma_bw,
       kBwSize, [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, true, false); },
       [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, true, false); },
       "Both sides write into each other's memory at once."},
      // qperf's UC and XRC names: known, refused with the reason.
      {"uc_bw", F, K::kBandwidth, "uc", "UC streaming one way bandwidth", none, kBwSize,
       unsupported_role, unsupported_role},
      {"uc_bi_bw", F, K::kBiBandwidth, "uc", "UC streaming two way bandwidth", none, kBwSize,
       unsupported_role, unsupported_role},
      {"uc_lat", F, K::kLatency, "uc", "UC one way latency", none, kLatSize, unsupported_role,
       unsupported_role},
      {"uc_rdma_write_bw", F, K::kBandwidth, "uc", "UC RDMA write bandwidth", none, kBwSize,
       unsupported_role, unsupported_role},
      {"uc_rdma_write_lat", F, K::kLatency, "uc", "UC RDMA write one way latency", none,
       kLatSize, unsupported_role, unsupported_role},
      {"uc_rdma_write_poll_lat", F, K::kLatency, "uc", "UC RDMA write one way polling latency",
       none, kLatSize, unsupported_role, unsupported_role},
      {"xrc_bw", F, K::kBandwidth, "xrc", "XRC streaming one way bandwidth", none, kBwSize,
       unsupported_role, unsupported_role},
      {"xrc_bi_bw", F, K::kBiBandwidth, "xrc", "XRC streaming two way bandwidth", none, kBwSize,
       unsupported_role, unsupported_role},
      {"xrc_lat", F, K::kLatency, "xrc", "XRC one way latency", none, kLatSize,
       unsupported_role, unsupported_role},
  });
  return tests;
}

}  // namespace fabperf
