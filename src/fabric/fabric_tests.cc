// Registry rows of the libfabric tests: each row names its endpoint type, kind, options, one
// role function (it serves both sides: it looks at ctx.role) and what its server side holds.
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

// Every fabric test chooses its provider and buffers the same way, takes the cxi provider's
// switches (applied where the provider is cxi), and runs each side on the CPUs -lca/-rca give
// (the client and serve_run pin every test's side before it starts).
std::vector<const char*> with_common(std::vector<const char*> extra) {
  std::vector<const char*> out = {
      "msg_size", "time",    "no_msgs",      "warmup",   "id",     "provider",    "domain",
      "fabric",   "cq_poll", "use_hp",       "gpu",      "svc_id", "no_idc",      "no_ll",
      "no_hrp",   "no_ple",  "unrestricted", "matching", "rdzv",   "cpu_affinity"};
  out.insert(out.end(), extra.begin(), extra.end());
  return out;
}

Status check_atomic(const RunOptions& opts) { return atomic_spec_from_options(opts).status(); }

Status unsupported_role(TestContext& ctx) { return unsupported_transport(ctx); }

// A row: the role serves both sides; `needs` is the server side's (nullptr: nothing to speak
// of). Datagram (ud) tests count their losses; atomic tests check their op and type fit.
TestSpec row(const char* name, TestKind kind, const char* transport, const char* summary,
             std::vector<const char*> options, uint64_t size, TestRole role,
             Needs (*needs)(const RunOptions&), const char* description = "") {
  TestSpec spec{name,    TransportFamily::kFabric,
                kind,    transport,
                summary, std::move(options),
                size,    role,
                role,    description};
  spec.reliable = std::string(transport) != "ud";
  spec.needs = needs;
  for (const char* o : spec.options) {
    if (std::string(o) == "atomic_op") spec.check = check_atomic;
  }
  return spec;
}

// The server side's needs of each role family, as the roles allocate them.
template <SessionNeeds (*F)(const RunOptions&, Role, fi_ep_type, bool), fi_ep_type T, bool B>
Needs stream_server(const RunOptions& o) {
  return fabric_needs(F(o, Role::kServer, T, B), o);
}
template <fi_ep_type T>
Needs pingpong_server(const RunOptions& o) {
  return fabric_needs(pingpong_needs(Role::kServer, T), o);
}
template <fi_ep_type T, bool CountAtTarget>
Needs write_bw_server(const RunOptions& o) {
  return fabric_needs(rma_write_bw_needs(o, T, CountAtTarget), o);
}
template <fi_ep_type T, bool B>
Needs read_bw_server(const RunOptions& o) {
  return fabric_needs(rma_read_bw_needs(o, T, B), o);
}
template <fi_ep_type T, bool Read>
Needs one_sided_server(const RunOptions& o) {
  return fabric_needs(one_sided_needs(T, Read), o);
}
template <fi_ep_type T>
Needs rma_pingpong_server(const RunOptions& o) {
  return fabric_needs(rma_pingpong_needs(T), o);
}
template <fi_ep_type T>
Needs poll_server(const RunOptions& o) {
  return fabric_needs(poll_needs(T), o);
}
template <fi_ep_type T>
Needs atomic_server(const RunOptions& o) {
  return fabric_needs(atomic_needs(T, o.tx_depth, false), o);
}

}  // namespace

Status unsupported_transport(TestContext& ctx) {
  std::string transport = ctx.spec.transport;
  std::string what = transport == "uc" ? "an unreliable connected (UC) queue pair"
                                       : "an extended reliable connected (XRC) queue pair";
  return Status::unsupported(
      std::string(ctx.spec.name) + " needs " + what +
      " (ibverbs); libfabric has no such endpoint type (only FI_EP_MSG, FI_EP_DGRAM and "
      "FI_EP_RDM), so no provider can run it; the rc_* tests give reliable connected "
      "semantics over any provider");
}

const std::vector<TestSpec>& fabric_tests() {
  using K = TestKind;
  constexpr fi_ep_type MSG = FI_EP_MSG, DGRAM = FI_EP_DGRAM, RDM = FI_EP_RDM;
  const auto lat =
      with_common({"access_recv", "verify", "latency_gap", "latency_gap_mode", "clock"});
  const auto bw = with_common({"tx_depth", "access_recv", "verify", "bw_method"});
  const auto ud = with_common({"tx_depth", "access_recv", "verify", "mtu_size", "bw_method"});
  const auto ud_lat = with_common(
      {"access_recv", "verify", "mtu_size", "latency_gap", "latency_gap_mode", "clock"});
  const auto rma_bw = with_common({"tx_depth", "verify", "bw_method"});
  const auto rma_lat = with_common({"verify", "latency_gap", "latency_gap_mode", "clock"});
  const auto read_bw = with_common({"tx_depth", "rd_atomic", "verify", "bw_method"});
  const auto rate = with_common({"tx_depth", "rd_atomic", "bw_method"});
  const auto ver = with_common({});
  const auto amo = with_common(
      {"tx_depth", "rd_atomic", "atomic_op", "atomic_type", "cswap_op", "fetching", "bw_method"});
  const auto amo_lat = with_common({"atomic_op", "atomic_type", "cswap_op", "fetching",
                                    "latency_gap", "latency_gap_mode", "clock"});
  const auto none = std::vector<const char*>{"msg_size"};

  static const std::vector<TestSpec> tests = {
      // FI_EP_MSG: qperf's RC tests.
      row(
          "rc_bw", K::kBandwidth, "rc", "RC streaming one way bandwidth", bw, kBwSize,
          [](TestContext& c) { return send_stream(c, FI_EP_MSG, false); },
          stream_server<stream_needs, MSG, false>,
          "Sends over a connected (FI_EP_MSG) endpoint with tx_depth messages in flight."),
      row(
          "rc_bi_bw", K::kBiBandwidth, "rc", "RC streaming two way bandwidth", bw, kBwSize,
          [](TestContext& c) { return send_stream(c, FI_EP_MSG, true); },
          stream_server<stream_needs, MSG, true>,
          "Both sides send and receive at once over a connected endpoint."),
      row(
          "rc_lat", K::kLatency, "rc", "RC one way latency", lat, kLatSize,
          [](TestContext& c) { return send_pingpong(c, FI_EP_MSG); }, pingpong_server<MSG>,
          "Send/receive ping-pong; latency is half the round trip."),
      row(
          "rc_rdma_read_bw", K::kBandwidth, "rc", "RC RDMA read bandwidth", read_bw, kBwSize,
          [](TestContext& c) { return rma_read_bw(c, FI_EP_MSG, false); },
          read_bw_server<MSG, false>,
          "The client reads from the server's memory, min(tx_depth, rd_atomic) reads in "
          "flight."),
      row(
          "rc_rdma_read_lat", K::kLatency, "rc", "RC RDMA read latency", rma_lat, kLatSize,
          [](TestContext& c) { return rma_read_lat(c, FI_EP_MSG); }, one_sided_server<MSG, true>,
          "One read at a time; the latency is the full round trip of each read."),
      row(
          "rc_rdma_write_bw", K::kBandwidth, "rc", "RC RDMA write bandwidth", rma_bw, kBwSize,
          [](TestContext& c) { return rma_write_bw(c, FI_EP_MSG, false, true); },
          write_bw_server<MSG, true>,
          "Writes with remote CQ data, so the receiver counts (the writer does where the "
          "provider has no remote CQ data)."),
      row(
          "rc_rdma_write_lat", K::kLatency, "rc", "RC RDMA write one way latency", rma_lat,
          kLatSize, [](TestContext& c) { return rma_write_pingpong(c, FI_EP_MSG); },
          rma_pingpong_server<MSG>, "Write-with-data ping-pong; latency is half the round trip."),
      row(
          "rc_rdma_write_poll_lat", K::kLatency, "rc", "RC RDMA write one way polling latency",
          rma_lat, kLatSize, [](TestContext& c) { return rma_write_poll_lat(c, FI_EP_MSG); },
          poll_server<MSG>,
          "Write ping-pong where each side spins on the first and last byte of its buffer."),
      row(
          "rc_compare_swap_mr", K::kMsgRate, "rc", "RC compare and swap messaging rate", rate,
          kAtomicSize, [](TestContext& c) { return compare_swap_rate(c, FI_EP_MSG); },
          atomic_server<MSG>, "64-bit compare-and-swap on one remote word, many in flight."),
      row(
          "rc_fetch_add_mr", K::kMsgRate, "rc", "RC fetch and add messaging rate", rate,
          kAtomicSize, [](TestContext& c) { return fetch_add_rate(c, FI_EP_MSG); },
          atomic_server<MSG>, "64-bit fetch-and-add on one remote word, many in flight."),
      row(
          "ver_rc_compare_swap", K::kVerify, "rc", "Verify RC compare and swap", ver, kAtomicSize,
          [](TestContext& c) { return verify_compare_swap(c, FI_EP_MSG); }, atomic_server<MSG>,
          "Each compare-and-swap must return the previous value of the "
          "sequence."),
      row(
          "ver_rc_fetch_add", K::kVerify, "rc", "Verify RC fetch and add", ver, kAtomicSize,
          [](TestContext& c) { return verify_fetch_add(c, FI_EP_MSG); }, atomic_server<MSG>,
          "Each fetch-and-add must return the previous value of the sequence."),
      // FI_EP_DGRAM: qperf's UD tests; losses are counted.
      row(
          "ud_bw", K::kBandwidth, "ud", "UD streaming one way bandwidth", ud, kUdSize,
          [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, false); },
          stream_server<stream_needs, DGRAM, false>,
          "Datagrams with tx_depth in flight; what never arrives counts as lost."),
      row(
          "ud_bi_bw", K::kBiBandwidth, "ud", "UD streaming two way bandwidth", ud, kUdSize,
          [](TestContext& c) { return send_stream(c, FI_EP_DGRAM, true); },
          stream_server<stream_needs, DGRAM, true>,
          "Datagrams both ways at once; losses counted on each side."),
      row(
          "ud_lat", K::kLatency, "ud", "UD one way latency", ud_lat, kLatSize,
          [](TestContext& c) { return send_pingpong(c, FI_EP_DGRAM); }, pingpong_server<DGRAM>,
          "Datagram ping-pong; a reply missing for a second counts as lost."),
      // FI_EP_RDM: the CXI tools' operations.
      row(
          "rdm_send_lat", K::kLatency, "rdm", "RDM send one way latency", lat, kLatSize,
          [](TestContext& c) { return send_pingpong(c, FI_EP_RDM); }, pingpong_server<RDM>,
          "Send/receive ping-pong over reliable datagrams; latency is half the round trip."),
      row(
          "rdm_write_lat", K::kLatency, "rdm", "RDM RDMA write latency", rma_lat, kLatSize,
          [](TestContext& c) { return rma_write_lat(c, FI_EP_RDM); }, one_sided_server<RDM, false>,
          "Issue to completion of one write, with FI_DELIVERY_COMPLETE where offered."),
      row(
          "rdm_read_lat", K::kLatency, "rdm", "RDM RDMA read latency", rma_lat, kLatSize,
          [](TestContext& c) { return rma_read_lat(c, FI_EP_RDM); }, one_sided_server<RDM, true>,
          "Issue to completion of one read."),
      row(
          "rdm_atomic_lat", K::kLatency, "rdm", "RDM atomic latency", amo_lat, kAtomicSize,
          [](TestContext& c) { return atomic_lat(c, FI_EP_RDM); }, atomic_server<RDM>,
          "Issue to completion of one atomic (--atomic_op, --atomic_type, --cswap_op, "
          "--fetching)."),
      row(
          "rdm_send_bw", K::kBandwidth, "rdm", "RDM send bandwidth", bw, kBwSize,
          [](TestContext& c) { return send_stream(c, FI_EP_RDM, false); },
          stream_server<stream_needs, RDM, false>,
          "Sends with tx_depth in flight; the server counts what arrives."),
      row(
          "rdm_write_bw", K::kBandwidth, "rdm", "RDM RDMA write bandwidth", rma_bw, kBwSize,
          [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, false, false); },
          write_bw_server<RDM, false>,
          "Writes with tx_depth in flight; the writer's completions count."),
      row(
          "rdm_read_bw", K::kBandwidth, "rdm", "RDM RDMA read bandwidth", read_bw, kBwSize,
          [](TestContext& c) { return rma_read_bw(c, FI_EP_RDM, false); },
          read_bw_server<RDM, false>, "Reads with min(tx_depth, rd_atomic) in flight."),
      row(
          "rdm_atomic_bw", K::kBandwidth, "rdm", "RDM atomic rate", amo, kAtomicSize,
          [](TestContext& c) { return atomic_bw(c, FI_EP_RDM, false); }, atomic_server<RDM>,
          "Atomics with tx_depth in flight (fetching ones limited by rd_atomic)."),
      row(
          "rdm_send_bi_bw", K::kBiBandwidth, "rdm", "RDM send two way bandwidth", bw, kBwSize,
          [](TestContext& c) { return send_stream(c, FI_EP_RDM, true); },
          stream_server<stream_needs, RDM, true>, "Both sides send and receive at once."),
      row(
          "rdm_write_bi_bw", K::kBiBandwidth, "rdm", "RDM RDMA write two way bandwidth", rma_bw,
          kBwSize, [](TestContext& c) { return rma_write_bw(c, FI_EP_RDM, true, false); },
          write_bw_server<RDM, false>, "Both sides write into each other's memory at once."),
      row(
          "rdm_read_bi_bw", K::kBiBandwidth, "rdm", "RDM RDMA read two way bandwidth", read_bw,
          kBwSize, [](TestContext& c) { return rma_read_bw(c, FI_EP_RDM, true); },
          read_bw_server<RDM, true>, "Both sides read from each other's memory at once."),
      row(
          "rdm_atomic_bi_bw", K::kBiBandwidth, "rdm", "RDM atomic two way rate", amo, kAtomicSize,
          [](TestContext& c) { return atomic_bw(c, FI_EP_RDM, true); }, atomic_server<RDM>,
          "Both sides issue atomics to each other's memory at once."),
      // qperf's UC and XRC names: known, refused with the reason.
      row("uc_bw", K::kBandwidth, "uc", "UC streaming one way bandwidth", none, kBwSize,
          unsupported_role, nullptr),
      row("uc_bi_bw", K::kBiBandwidth, "uc", "UC streaming two way bandwidth", none, kBwSize,
          unsupported_role, nullptr),
      row("uc_lat", K::kLatency, "uc", "UC one way latency", none, kLatSize, unsupported_role,
          nullptr),
      row("uc_rdma_write_bw", K::kBandwidth, "uc", "UC RDMA write bandwidth", none, kBwSize,
          unsupported_role, nullptr),
      row("uc_rdma_write_lat", K::kLatency, "uc", "UC RDMA write one way latency", none, kLatSize,
          unsupported_role, nullptr),
      row("uc_rdma_write_poll_lat", K::kLatency, "uc", "UC RDMA write one way polling latency",
          none, kLatSize, unsupported_role, nullptr),
      row("xrc_bw", K::kBandwidth, "xrc", "XRC streaming one way bandwidth", none, kBwSize,
          unsupported_role, nullptr),
      row("xrc_bi_bw", K::kBiBandwidth, "xrc", "XRC streaming two way bandwidth", none, kBwSize,
          unsupported_role, nullptr),
      row("xrc_lat", K::kLatency, "xrc", "XRC one way latency", none, kLatSize, unsupported_role,
          nullptr),
  };
  return tests;
}

}  // namespace fabperf
