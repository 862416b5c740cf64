// FabricSession set-up: provider choice, endpoints, memory and the control-channel exchanges.
#include "fabric/session.h"

#include <sys/socket.h>

#include <algorithm>
#include <cstdlib>

#include "core/host_buffer.h"
#include "core/text.h"
#include "fabric/address_codec.h"
#include "fabric/atomic_ops.h"
#include "fabric/cxi_controls.h"
#include "fabric/libfabric_loader.h"
#include "fabric/pattern.h"
#include "fabric/peer_address.h"
#include "net/control.h"
#include "net/socket.h"
#include "options/option_table.h"
#include "options/run_options.h"

namespace fabperf {

namespace {

// --domain, else the device part of qperf's --id DEVICE:PORT.
std::string domain_from(const RunOptions& opts) {
  if (!opts.domain.empty()) return opts.domain;
  return opts.id.substr(0, opts.id.find(':'));
}

// What the test does, as the cxi switches see it.
CxiOp cxi_op_of(const TestSpec& spec, const SessionNeeds& needs, const RunOptions& opts) {
  if (needs.caps & FI_ATOMIC) {
    auto atomic = atomic_spec_from_options(opts);
    return atomic.ok() && atomic->fetching() ? CxiOp::kFetchingAtomic : CxiOp::kAtomic;
  }
  if (needs.caps & FI_RMA) {
    return std::string(spec.name).find("_read_") != std::string::npos ? CxiOp::kRead
                                                                      : CxiOp::kWrite;
  }
  return CxiOp::kSend;
}

// What this side asks of libfabric, before the cxi switches and the peer have their say.
FabricRequest request_for(const SessionNeeds& needs, const RunOptions& opts, int control_fd) {
  FabricRequest request;
  request.ep_type = needs.ep_type;
  request.caps = needs.caps;
  // Buffers in GPU memory need a provider that registers it.
  if (!opts.gpu.empty()) request.caps |= FI_HMEM;
  request.want_delivery_complete = needs.delivery_complete;
  request.provider = opts.provider;
  request.domain = domain_from(opts);
  request.fabric = opts.fabric;
  request.node = local_address(control_fd).host();
  return request;
}

bool streams_operations(const TestSpec& spec) {
  return spec.kind == TestKind::kBandwidth || spec.kind == TestKind::kBiBandwidth ||
         spec.kind == TestKind::kMsgRate;
}

}  // namespace

CxiControls cxi_controls_for(const TestSpec& spec, const SessionNeeds& needs,
                             const RunOptions& opts) {
  return cxi_controls(opts, cxi_op_of(spec, needs, opts), streams_operations(spec));
}

// Peak resident memory (VmHWM) of the server's session process less its buffers, the most over
// rdm_* tests of 256 bytes to 4 MiB, windows of 16 to 4096, one way and both ways (libfabric
// 1.17, RelWithDebInfo build, measured with the run's info.rem.session_process; review N10
// found the old flat 64 MiB allowance 16 MB short over tcp;ofi_rxm). What depends on what:
//   shm           19.9 MiB with two-sided messages up to 4 KiB (its inline path), 16 otherwise
//   tcp;ofi_rxm  113.6 MiB with two-sided messages above 16 KiB, 96 both ways, 80 otherwise
//   udp;ofi_rxd   16.2 MiB;  sockets 12.3 MiB both ways, 10.8 otherwise
// None grows with the window (--tx_depth 16 and 1024 alike) or the message beyond the buffers.
// Each is taken with a little room above the measure.
uint64_t provider_process_bytes(const std::string& provider) {
  struct Measured {
    const char* provider;
    double mib;
  };
  static constexpr Measured kMeasured[] = {
      {"shm", 20.5}, {"tcp;ofi_rxm", 116}, {"udp;ofi_rxd", 16.75}, {"sockets", 12.75}};
  double most = 0;
  for (const Measured& m : kMeasured) {
    if (provider == m.provider) return static_cast<uint64_t>(m.mib * (1 << 20));
    most = std::max(most, m.mib);
  }
  return static_cast<uint64_t>(most * (1 << 20));
}

Needs fabric_needs(const SessionNeeds& needs, const RunOptions& opts) {
  Needs out;
  out.buffer_bytes = BufferLayout::of(needs, opts.msg_size, opts.verify).total() +
                     provider_process_bytes(opts.provider);
  out.threads = 2;  // the session's and a provider's progress thread
  out.descriptors = 16;
  return out;
}

FabricSession::~FabricSession() {
  // The remote key mapping and the region go before the domain they belong to. Closing may
  // block on a dead peer as a post can: watched as one call.
  StuckCallWatch* watch = cq.call_watch();
  if (watch != nullptr) watch->enter();
  mem.release();
  link.endpoint.reset();
  if (watch != nullptr) watch->leave();
}

Result<std::unique_ptr<FabricSession>> FabricSession::establish(TestContext& ctx,
                                                                const SessionNeeds& needs) {
  std::unique_ptr<FabricSession> session(new FabricSession(ctx));
  Status status = session->setup(needs);
  if (!status.ok()) return status;
  return session;
}

Status FabricSession::setup(const SessionNeeds& needs) {
  const RunOptions& opts = ctx.opts;
  FP_RETURN_IF_ERROR(adopt_options());
  FabricRequest request = request_for(needs, opts, ctx.control.fd());
  // The cxi switches: environment before the provider initialises, the auth key with the
  // domain, transmit attributes with the endpoint; on another provider, a note of what was
  // not applied.
  cxi_ = cxi_controls_for(ctx.spec, needs, opts);
  Status cxi_env = apply_cxi_environment(cxi_, libfabric_providers_initialised());
  request.cxi_svc_id = cxi_.svc_id;

  nlohmann::json peer_hello;
  FP_RETURN_IF_ERROR(choose_provider(request, cxi_env, peer_hello));
  std::string cxi_note = cxi_switch_warning(cxi_, link.provider());
  FP_RETURN_IF_ERROR(fit_message_size(needs));
  describe_choice(needs, cxi_note);
  const SessionNeeds sized = sized_needs(needs, peer_hello);
  if (needs.ep_type == FI_EP_MSG) {
    FP_RETURN_IF_ERROR(open_connected(request, sized));
  } else {
    FP_RETURN_IF_ERROR(open_connectionless(sized, peer_hello));
  }
  ctx.stats.info["cq_wait"] = link.endpoint->wait_mode();
  choose_inject(needs);
  ctx.stats.info["memory"] = mem.describe_buffer();
  if (mem.on_gpu() && !opts.use_hp.empty()) {
    ctx.stats.info["use_hp"] = "not used: this side's buffers are in GPU memory";
  }
  start_queues(sized);
  if (ctx.on_established) ctx.on_established();
  return Status::success();
}

Status FabricSession::adopt_options() {
  const RunOptions& opts = ctx.opts;
  mem.msg_size = std::max<uint64_t>(1, message_size_of(ctx.spec, opts));
  // The CXI tools' list method has no warm-up (run_support.h, WindowRun::lists).
  sync.warmup = opts.bw_method == "lists" && streams_operations(ctx.spec) ? 0 : opts.warmup;
  if (opts.no_msgs == 0 && opts.time <= 0) {
    return Status::usage("a fabric test needs a time (-t) or a message count (-n)");
  }
  mem.verify = opts.verify;
  mem.access_recv = opts.access_recv;
  bool client = ctx.role == Role::kClient;
  mem.my_seed = client ? kClientSeed : kServerSeed;
  mem.peer_seed = client ? kServerSeed : kClientSeed;
  cq.watch_calls();
  return Status::success();
}

Status FabricSession::choose_provider(FabricRequest& request, const Status& cxi_env,
                                      nlohmann::json& peer_hello) {
  const bool client = ctx.role == Role::kClient;
  if (!client) {
    // The client chose first; the server follows unless told otherwise on its own side.
    auto hello = ctx.control.expect(MsgType::kExchange, ctx.timeout_s());
    if (!hello.ok()) return hello.status();
    peer_hello = *hello;
    if (request.provider.empty()) request.provider = peer_hello.value("provider", "");
  }
  auto choice = select_fabric(request);
  if (!choice.ok()) return choice.status();
  link.choice = std::move(*choice);
  if (!client && link.provider() != peer_hello.value("provider", "")) {
    return Status::failed("the client uses provider " + peer_hello.value("provider", "?") +
                          " but this server chose " + link.provider());
  }
  if (link.provider() == "cxi") {
    if (!cxi_env.ok()) return cxi_env;
  } else {
    cxi_.tx_op_flags = 0;
    cxi_.tx_msg_order = 0;
    cxi_.no_inject = false;
  }
  return Status::success();
}

Status FabricSession::fit_message_size(const SessionNeeds& needs) {
  const RunOptions& opts = ctx.opts;
  const fi_info* info = link.choice.info.get();
  size_t max_msg = info->ep_attr->max_msg_size;
  uint64_t mtu = opts.mtu_size;
  if (needs.ep_type == FI_EP_DGRAM && mtu > 0) max_msg = std::min<size_t>(max_msg, mtu);
  if ((needs.caps & FI_MSG) && mem.msg_size > max_msg && !given(opts, &RunOptions::msg_size)) {
    // qperf's UD default (2K) is more than some providers carry; the default follows them.
    ctx.stats.info["msg_size"] = "default " + std::to_string(mem.msg_size) +
                                 " lowered to the provider limit " + std::to_string(max_msg);
    mem.msg_size = max_msg;
  }
  if ((needs.caps & FI_MSG) && mem.msg_size > max_msg) {
    return Status::usage(
        "message size " + std::to_string(mem.msg_size) + " exceeds the " +
        (max_msg == mtu ? std::string("--mtu_size") : "provider " + link.provider() + " limit") +
        " of " + std::to_string(max_msg) + " bytes");
  }
  return Status::success();
}

void FabricSession::describe_choice(const SessionNeeds& needs, const std::string& cxi_note) {
  nlohmann::json notes = ctx.stats.info;
  ctx.stats.info = link.choice.describe();
  ctx.stats.info.update(notes);
  if (!cxi_note.empty()) ctx.stats.info["cxi_switches"] = cxi_note;
  if (ctx.opts.mtu_size > 0 && needs.ep_type != FI_EP_DGRAM) {
    ctx.stats.info["mtu_size"] = "not settable through libfabric; provider default used";
  }
}

void FabricSession::choose_inject(const SessionNeeds& needs) {
  const fi_tx_attr* tx_attr = link.choice.info->tx_attr;
  // fi_inject takes no descriptor, so the provider could not tell GPU memory from host memory.
  link.inject = mem.msg_size > 0 && tx_attr != nullptr && mem.msg_size <= tx_attr->inject_size &&
                !mem.on_gpu() && !cxi_.no_inject;
  if (needs.windowed) {
    link.inject_bw = link.inject && *needs.windowed == WindowedOp::kSend &&
                     mem.msg_size <= link.window.inject_max;
    ctx.stats.info["window_choice"] = link.window.why;
    ctx.stats.info["inject"] = link.inject_bw ? link.window.inject_max : 0;
  }
}

void FabricSession::start_queues(const SessionNeeds& sized) {
  // Windows no deeper than the provider's queues: a deeper one never fills.
  size_t tx_window = sized.tx_window, rx_window = sized.rx_window;
  if (const fi_tx_attr* tx = link.choice.info->tx_attr;
      tx != nullptr && tx->size > 0 && tx_window > tx->size) {
    ctx.stats.info["tx_depth"] = "lowered from " + std::to_string(tx_window) +
                                 " to the provider's transmit queue size " +
                                 std::to_string(tx->size);
    tx_window = tx->size;
  }
  if (const fi_rx_attr* rx = link.choice.info->rx_attr;
      rx != nullptr && rx->size > 0 && rx_window > rx->size) {
    rx_window = rx->size;
  }
  int64_t now = now_ns();
  cq.attach(*link.endpoint, link.provider(), tx_window, rx_window, now);
  sync.start(now);
}

SessionNeeds FabricSession::sized_needs(const SessionNeeds& needs,
                                        const nlohmann::json& peer_hello) {
  if (!needs.windowed) return needs;
  const RunOptions& opts = ctx.opts;
  // --bw_method lists (the fab_* tools' default) posts lists of -l (--tx_depth), as the
  // originals do: the per-provider windows are the stream method's.
  const bool lists = opts.bw_method == "lists";
  link.window = window_choice(link.provider(), *needs.windowed, mem.msg_size,
                              lists || given(opts, &RunOptions::tx_depth), opts.tx_depth);
  if (lists) link.window.why = "the list size (--tx_depth, -l) of --bw_method lists";
  if (ctx.role == Role::kServer && peer_hello.contains("window")) {
    // The client's choice: whether its --tx_depth was given does not travel to the server.
    link.window.window = peer_hello.value("window", link.window.window);
    link.window.inject_max = peer_hello.value("inject_max", link.window.inject_max);
    link.window.why = peer_hello.value("window_choice", link.window.why);
  }
  SessionNeeds out = needs;
  auto sized = [&](size_t n) { return n == needs.tx_window ? link.window.window : n; };
  out.tx_slots = sized(needs.tx_slots);
  out.rx_slots = sized(needs.rx_slots);
  out.rx_window = sized(needs.rx_window);
  out.tx_window = link.window.window;
  return out;
}

void FabricSession::add_window(nlohmann::json& hello) const {
  hello["window"] = link.window.window;
  hello["inject_max"] = link.window.inject_max;
  hello["window_choice"] = link.window.why;
}

Status FabricSession::open_connectionless(const SessionNeeds& needs, nlohmann::json peer_hello) {
  EndpointOptions options;
  options.busy_poll = ctx.opts.cq_poll;
  options.tx_op_flags = cxi_.tx_op_flags;
  options.tx_msg_order = cxi_.tx_msg_order;
  auto ep = FabricEndpoint::open(link.choice.info.get(), options);
  if (!ep.ok()) return ep.status();
  link.endpoint = std::move(*ep);
  FP_RETURN_IF_ERROR(mem.register_buffer(needs, *link.endpoint, link.provider()));
  auto name = link.endpoint->name();
  if (!name.ok()) return name.status();
  nlohmann::json mine = {
      {"provider", link.provider()}, {"name", hex_encode(*name)}, {"memory", mem.describe()}};
  if (needs.windowed) add_window(mine);
  nlohmann::json peer = std::move(peer_hello);
  if (ctx.role == Role::kClient) {
    auto reply = ctx.exchange(mine);
    if (!reply.ok()) return reply.status();
    peer = *reply;
  } else {
    FP_RETURN_IF_ERROR(ctx.control.send(MsgType::kExchange, mine));
  }
  auto peer_name = hex_decode(peer.value("name", ""), "peer endpoint name");
  if (!peer_name.ok()) return peer_name.status();
  // Only the control connection's peer may receive this side's data (docs/security.md).
  FP_RETURN_IF_ERROR(check_fabric_peer(*link.choice.info, *peer_name, ctx.peer, ctx.role));
  auto addr = link.endpoint->insert_peer(*peer_name);
  if (!addr.ok()) return addr.status();
  link.peer = *addr;
  return mem.adopt_peer(peer, *link.endpoint);
}

Status FabricSession::open_connected(const FabricRequest& request, const SessionNeeds& needs) {
  EndpointOptions options;
  options.busy_poll = ctx.opts.cq_poll;
  Deadline deadline = Deadline::after(ctx.timeout_s());
  if (ctx.role == Role::kServer) {
    auto listener = FabricEndpoint::listen(link.choice.info.get(), options);
    if (!listener.ok()) return listener.status();
    link.endpoint = std::move(*listener);
    auto name = link.endpoint->name();
    if (!name.ok()) return name.status();
    FP_RETURN_IF_ERROR(
        ctx.control.send(MsgType::kExchange, {{"provider", link.provider()},
                                              {"name", hex_encode(*name)},
                                              {"addr_format", link.choice.info->addr_format}}));
    // A connection request from anyone but the control connection's peer is rejected.
    FP_RETURN_IF_ERROR(link.endpoint->accept(deadline, [&](const fi_info& connreq) {
      return check_connection_request(connreq, link.provider(), ctx.peer);
    }));
  } else {
    nlohmann::json hello = {{"provider", link.provider()}};
    if (needs.windowed) add_window(hello);
    auto reply = ctx.exchange(hello);
    if (!reply.ok()) return reply.status();
    auto server_name = hex_decode(reply->value("name", ""), "server endpoint name");
    if (!server_name.ok()) return server_name.status();
    uint32_t server_format = reply->value("addr_format", uint32_t{FI_FORMAT_UNSPEC});
    FP_RETURN_IF_ERROR(
        check_fabric_peer(server_format, link.provider(), *server_name, ctx.peer, true));
    FabricRequest connect = request;
    connect.provider = link.provider();
    connect.dest_addr = *server_name;
    connect.dest_addr_format = server_format;
    auto target = select_fabric(connect);
    if (!target.ok()) return target.status();
    auto ep = FabricEndpoint::connect(target->info.get(), options, deadline);
    if (!ep.ok())
      return ep.status().prefixed("connect to the server's " + link.provider() + " endpoint");
    link.endpoint = std::move(*ep);
  }
  FP_RETURN_IF_ERROR(mem.register_buffer(needs, *link.endpoint, link.provider()));
  auto peer = ctx.exchange({{"memory", mem.describe()}});
  if (!peer.ok()) return peer.status();
  return mem.adopt_peer(*peer, *link.endpoint);
}

}  // namespace fabperf
