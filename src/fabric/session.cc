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

// Together the tx and rx slots stay under these; beyond them slots are shared between
// operations in flight (every message carries the same pattern). A plain run keeps its slots
// within 1 MiB, as its peers send from and receive into one buffer (ucx_perftest, perftest,
// qperf): with a slot per operation, 128 in flight of 1 MiB spread each side over 128 MiB and
// the copies ran from memory, not cache (tcp;ofi_rxm rdm_send_bw 1 MiB 5.6-6.9 GB/s against
// 8.3-11.6 shared, shm 6.0-6.6 against 15.3-15.8; ucx tag_bw 10.4 and 15.4; 64 KiB 1.0-1.3x,
// 4 KiB unchanged). --verify gives every operation its own slot up to 1 GiB, so a write that
// never lands leaves its own slot's poison for the check to find.
constexpr size_t kSharedSlotBytes = size_t{1} << 20;
constexpr size_t kVerifySlotBytes = size_t{1} << 30;

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

BufferLayout BufferLayout::of(const SessionNeeds& needs, uint64_t msg_size, bool verify) {
  BufferLayout out;
  out.stride = (std::max<uint64_t>(1, msg_size) + 63) / 64 * 64;
  out.tx_slots = std::max<size_t>(1, needs.tx_slots);
  out.rx_slots = std::max<size_t>(1, needs.rx_slots);
  const size_t budget = verify ? kVerifySlotBytes : kSharedSlotBytes;
  while ((out.tx_slots + out.rx_slots) * out.stride > budget &&
         (out.tx_slots > 1 || out.rx_slots > 1)) {
    out.tx_slots = (out.tx_slots + 1) / 2;
    out.rx_slots = (out.rx_slots + 1) / 2;
  }
  out.atomic_slots = std::max<size_t>(1, needs.tx_window);
  out.atomic_bytes = (out.atomic_slots * (64 + 3 * 16) + 63) / 64 * 64;
  return out;
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

void ContextPool::init(OpKind kind, size_t count) {
  contexts_.assign(count, OpContext{});
  free_.clear();
  free_.reserve(count);
  for (size_t i = count; i-- > 0;) {
    contexts_[i].kind = kind;
    contexts_[i].index = static_cast<uint32_t>(i);
    free_.push_back(static_cast<uint32_t>(i));
  }
}

void FabricSession::spin_for_good() {
  // A spin lock's wait: no system call, nothing a signal handler could end.
  // The empty asm is a side effect the compiler must keep (an empty loop it may not assume
  // ends), without C++20's deprecated volatile arithmetic.
  for (;;) asm volatile("" ::: "memory");
}

FabricSession::~FabricSession() {
  // The remote key mapping and the region go before the domain they belong to. Closing may
  // block on a dead peer as a post can: watched as one call.
  if (stuck_watch_) stuck_watch_->enter();
  remote_.reset();
  mr_.reset();
  endpoint_.reset();
  if (stuck_watch_) stuck_watch_->leave();
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
  std::string cxi_note = cxi_switch_warning(cxi_, choice_.provider());
  FP_RETURN_IF_ERROR(fit_message_size(needs));
  describe_choice(needs, cxi_note);
  const SessionNeeds sized = sized_needs(needs, peer_hello);
  if (needs.ep_type == FI_EP_MSG) {
    FP_RETURN_IF_ERROR(open_connected(request, sized));
  } else {
    FP_RETURN_IF_ERROR(open_connectionless(request, sized, peer_hello));
  }
  ctx.stats.info["cq_wait"] = endpoint_->wait_mode();
  choose_inject(needs);
  ctx.stats.info["memory"] = buffer_.describe();
  if (on_gpu_ && !opts.use_hp.empty()) {
    ctx.stats.info["use_hp"] = "not used: this side's buffers are in GPU memory";
  }
  size_queues(sized);
  int64_t now = now_ns();
  next_check_ns_ = now + kPeerCheckNs;
  last_progress_ns_ = now;
  if (ctx.on_established) ctx.on_established();
  return Status::success();
}

Status FabricSession::adopt_options() {
  const RunOptions& opts = ctx.opts;
  msg_size = std::max<uint64_t>(1, message_size_of(ctx.spec, opts));
  // The CXI tools' list method has no warm-up (run_support.h, WindowRun::lists).
  warmup = opts.bw_method == "lists" && streams_operations(ctx.spec) ? 0 : opts.warmup;
  if (opts.no_msgs == 0 && opts.time <= 0) {
    return Status::usage("a fabric test needs a time (-t) or a message count (-n)");
  }
  verify = opts.verify;
  access_recv = opts.access_recv;
  bool client = ctx.role == Role::kClient;
  my_seed = client ? kClientSeed : kServerSeed;
  peer_seed = client ? kServerSeed : kClientSeed;

  if (client && ctx.on_stuck) {
    stuck_watch_ = std::make_unique<StuckCallWatch>(ctx.timeout_s(), ctx.on_stuck);
    if (const char* after = std::getenv("FABPERF_TEST_STUCK_CALL_AFTER")) {
      stuck_after_ = std::strtoull(after, nullptr, 10);
    }
  }
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
  choice_ = std::move(*choice);
  if (!client && choice_.provider() != peer_hello.value("provider", "")) {
    return Status::failed("the client uses provider " + peer_hello.value("provider", "?") +
                          " but this server chose " + choice_.provider());
  }
  if (choice_.provider() == "cxi") {
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
  const fi_info* info = choice_.info.get();
  size_t max_msg = info->ep_attr->max_msg_size;
  uint64_t mtu = opts.mtu_size;
  if (needs.ep_type == FI_EP_DGRAM && mtu > 0) max_msg = std::min<size_t>(max_msg, mtu);
  if ((needs.caps & FI_MSG) && msg_size > max_msg && !given(opts, &RunOptions::msg_size)) {
    // qperf's UD default (2K) is more than some providers carry; the default follows them.
    ctx.stats.info["msg_size"] = "default " + std::to_string(msg_size) +
                                 " lowered to the provider limit " + std::to_string(max_msg);
    msg_size = max_msg;
  }
  if ((needs.caps & FI_MSG) && msg_size > max_msg) {
    return Status::usage(
        "message size " + std::to_string(msg_size) + " exceeds the " +
        (max_msg == mtu ? std::string("--mtu_size") : "provider " + choice_.provider() + " limit") +
        " of " + std::to_string(max_msg) + " bytes");
  }
  return Status::success();
}

void FabricSession::describe_choice(const SessionNeeds& needs, const std::string& cxi_note) {
  nlohmann::json notes = ctx.stats.info;
  ctx.stats.info = choice_.describe();
  ctx.stats.info.update(notes);
  if (!cxi_note.empty()) ctx.stats.info["cxi_switches"] = cxi_note;
  if (ctx.opts.mtu_size > 0 && needs.ep_type != FI_EP_DGRAM) {
    ctx.stats.info["mtu_size"] = "not settable through libfabric; provider default used";
  }
}

void FabricSession::choose_inject(const SessionNeeds& needs) {
  const fi_tx_attr* tx_attr = choice_.info->tx_attr;
  // fi_inject takes no descriptor, so the provider could not tell GPU memory from host memory.
  inject = msg_size > 0 && tx_attr != nullptr && msg_size <= tx_attr->inject_size && !on_gpu_ &&
           !cxi_.no_inject;
  if (needs.windowed) {
    inject_bw = inject && *needs.windowed == WindowedOp::kSend && msg_size <= window.inject_max;
    ctx.stats.info["window_choice"] = window.why;
    ctx.stats.info["inject"] = inject_bw ? window.inject_max : 0;
  }
}

void FabricSession::size_queues(const SessionNeeds& sized) {
  // Windows no deeper than the provider's queues: a deeper one never fills.
  size_t tx_window = sized.tx_window, rx_window = sized.rx_window;
  if (const fi_tx_attr* tx = choice_.info->tx_attr;
      tx != nullptr && tx->size > 0 && tx_window > tx->size) {
    ctx.stats.info["tx_depth"] = "lowered from " + std::to_string(tx_window) +
                                 " to the provider's transmit queue size " +
                                 std::to_string(tx->size);
    tx_window = tx->size;
  }
  if (const fi_rx_attr* rx = choice_.info->rx_attr;
      rx != nullptr && rx->size > 0 && rx_window > rx->size) {
    rx_window = rx->size;
  }
  tx_pool.init(OpKind::kTx, tx_window);
  rx_pool.init(OpKind::kRx, rx_window);
}

SessionNeeds FabricSession::sized_needs(const SessionNeeds& needs,
                                        const nlohmann::json& peer_hello) {
  if (!needs.windowed) return needs;
  const RunOptions& opts = ctx.opts;
  // --bw_method lists (the fab_* tools' default) posts lists of -l (--tx_depth), as the
  // originals do: the per-provider windows are the stream method's.
  const bool lists = opts.bw_method == "lists";
  window = window_choice(choice_.provider(), *needs.windowed, msg_size,
                         lists || given(opts, &RunOptions::tx_depth), opts.tx_depth);
  if (lists) window.why = "the list size (--tx_depth, -l) of --bw_method lists";
  if (ctx.role == Role::kServer && peer_hello.contains("window")) {
    // The client's choice: whether its --tx_depth was given does not travel to the server.
    window.window = peer_hello.value("window", window.window);
    window.inject_max = peer_hello.value("inject_max", window.inject_max);
    window.why = peer_hello.value("window_choice", window.why);
  }
  SessionNeeds out = needs;
  auto sized = [&](size_t n) { return n == needs.tx_window ? window.window : n; };
  out.tx_slots = sized(needs.tx_slots);
  out.rx_slots = sized(needs.rx_slots);
  out.rx_window = sized(needs.rx_window);
  out.tx_window = window.window;
  return out;
}

void FabricSession::add_window(nlohmann::json& hello) const {
  hello["window"] = window.window;
  hello["inject_max"] = window.inject_max;
  hello["window_choice"] = window.why;
}

Status FabricSession::open_connectionless(const FabricRequest& request, const SessionNeeds& needs,
                                          nlohmann::json peer_hello) {
  (void)request;
  EndpointOptions options;
  options.busy_poll = ctx.opts.cq_poll;
  options.tx_op_flags = cxi_.tx_op_flags;
  options.tx_msg_order = cxi_.tx_msg_order;
  auto ep = FabricEndpoint::open(choice_.info.get(), options);
  if (!ep.ok()) return ep.status();
  endpoint_ = std::move(*ep);
  FP_RETURN_IF_ERROR(register_memory(needs));
  auto name = endpoint_->name();
  if (!name.ok()) return name.status();
  nlohmann::json mine = {
      {"provider", choice_.provider()}, {"name", hex_encode(*name)}, {"memory", describe_memory()}};
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
  FP_RETURN_IF_ERROR(check_fabric_peer(*choice_.info, *peer_name, ctx.peer, ctx.role));
  auto addr = endpoint_->insert_peer(*peer_name);
  if (!addr.ok()) return addr.status();
  peer_ = *addr;
  return adopt_peer_memory(peer);
}

Status FabricSession::open_connected(const FabricRequest& request, const SessionNeeds& needs) {
  EndpointOptions options;
  options.busy_poll = ctx.opts.cq_poll;
  Deadline deadline = Deadline::after(ctx.timeout_s());
  if (ctx.role == Role::kServer) {
    auto listener = FabricEndpoint::listen(choice_.info.get(), options);
    if (!listener.ok()) return listener.status();
    endpoint_ = std::move(*listener);
    auto name = endpoint_->name();
    if (!name.ok()) return name.status();
    FP_RETURN_IF_ERROR(
        ctx.control.send(MsgType::kExchange, {{"provider", choice_.provider()},
                                              {"name", hex_encode(*name)},
                                              {"addr_format", choice_.info->addr_format}}));
    // A connection request from anyone but the control connection's peer is rejected.
    FP_RETURN_IF_ERROR(endpoint_->accept(deadline, [&](const fi_info& connreq) {
      return check_connection_request(connreq, choice_.provider(), ctx.peer);
    }));
  } else {
    nlohmann::json hello = {{"provider", choice_.provider()}};
    if (needs.windowed) add_window(hello);
    auto reply = ctx.exchange(hello);
    if (!reply.ok()) return reply.status();
    auto server_name = hex_decode(reply->value("name", ""), "server endpoint name");
    if (!server_name.ok()) return server_name.status();
    uint32_t server_format = reply->value("addr_format", uint32_t{FI_FORMAT_UNSPEC});
    FP_RETURN_IF_ERROR(
        check_fabric_peer(server_format, choice_.provider(), *server_name, ctx.peer, true));
    FabricRequest connect = request;
    connect.provider = choice_.provider();
    connect.dest_addr = *server_name;
    connect.dest_addr_format = server_format;
    auto target = select_fabric(connect);
    if (!target.ok()) return target.status();
    auto ep = FabricEndpoint::connect(target->info.get(), options, deadline);
    if (!ep.ok())
      return ep.status().prefixed("connect to the server's " + choice_.provider() + " endpoint");
    endpoint_ = std::move(*ep);
  }
  FP_RETURN_IF_ERROR(register_memory(needs));
  auto peer = ctx.exchange({{"memory", describe_memory()}});
  if (!peer.ok()) return peer.status();
  return adopt_peer_memory(*peer);
}

Status FabricSession::register_memory(const SessionNeeds& needs) {
  BufferLayout layout = BufferLayout::of(needs, msg_size, verify);
  stride = layout.stride;
  tx_slots_ = layout.tx_slots;
  rx_slots_ = layout.rx_slots;
  tx_offset_ = 0;
  rx_offset_ = tx_slots_ * stride;
  atomic_offset_ = rx_offset_ + rx_slots_ * stride;
  atomic_slots_ = layout.atomic_slots;
  size_t total = layout.total();
  const std::string& gpu = ctx.opts.gpu;
  auto buffer = TestBuffer::allocate(total, gpu.empty() ? ctx.opts.use_hp : "", gpu);
  if (!buffer.ok()) return buffer.status();
  buffer_ = std::move(*buffer);
  on_gpu_ = buffer_.on_gpu();
  // Before the peer learns where the region is, so no peer write can race with this.
  for (size_t slot = 0; slot < rx_slots_; ++slot) {
    if (needs.rx_init == RxInit::kPattern && !write_pattern(rx(slot), fill_pattern, my_seed)) {
      return error_;
    }
    if (needs.rx_init == RxInit::kPoison && verify && !poison_rx(slot)) return error_;
  }
  uint64_t access = FI_SEND | FI_RECV;
  if (needs.caps & (FI_RMA | FI_ATOMIC)) {
    access |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  }
  auto mr = MemoryRegion::register_buffer(endpoint_->domain(), endpoint_->ep(), endpoint_->info(),
                                          buffer_.data(), total, access, buffer_.placement());
  if (!mr.ok()) {
    if (!on_gpu_) return mr.status();
    return mr.status().prefixed("provider " + choice_.provider() + " cannot register " +
                                buffer_.describe() + " memory");
  }
  mr_ = std::move(*mr);
  return Status::success();
}

nlohmann::json FabricSession::describe_memory() const {
  uint64_t len = buffer_.size() - rx_offset_;
  return {{"region", encode_region(mr_->describe(rx_offset_, len))},
          {"rx_slots", rx_slots_},
          {"stride", stride},
          {"atomic_offset", atomic_offset_ - rx_offset_},
          {"atomic_slots", atomic_slots_}};
}

Status FabricSession::adopt_peer_memory(const nlohmann::json& peer) {
  if (!peer.contains("memory") || !peer["memory"].is_object()) {
    return Status::failed("peer sent no memory description");
  }
  const nlohmann::json& memory = peer["memory"];
  auto region = decode_region(memory.value("region", nlohmann::json()), "peer memory region");
  if (!region.ok()) return region.status();
  if (memory.value("stride", uint64_t{0}) != stride) {
    return Status::failed("client and server disagree on the message size");
  }
  peer_rx_slots_ = std::max<uint64_t>(1, memory.value("rx_slots", uint64_t{1}));
  peer_atomic_offset_ = memory.value("atomic_offset", uint64_t{0});
  peer_atomic_slots_ = std::max<uint64_t>(1, memory.value("atomic_slots", uint64_t{1}));
  auto remote = RemoteRegion::resolve(endpoint_->domain(), *region);
  if (!remote.ok()) return remote.status();
  remote_ = std::move(*remote);
  return Status::success();
}

bool FabricSession::has_remote_cq_data() const {
  return choice_.info->domain_attr->cq_data_size >= 4;
}

bool FabricSession::periodic(int64_t now) {
  if (now < next_check_ns_) return true;
  next_check_ns_ = now + kPeerCheckNs;
  if (ctx.stop_requested()) stopped_ = true;
  Status peer = ctx.check_peer();
  if (!peer.ok()) return fail(peer);
  if (ctx.role == Role::kClient) {
    Status beat = ctx.control.heartbeat(now);
    if (!beat.ok()) return fail(beat);
  }
  return true;
}

bool FabricSession::client_alive(int64_t now) {
  // The server's side of its READY's promise: a heartbeat every 0.5 s while it waits.
  Status beat = ctx.control.heartbeat(now);
  if (!beat.ok()) return fail(beat);
  int64_t silent = now - ctx.control.last_heard_ns();
  if (silent <= static_cast<int64_t>(ctx.timeout_s() * 1e9)) return true;
  return fail(Status::timeout("nothing from the client for " + seconds_text(ctx.timeout_s()) +
                              " (stopped or gone?)"));
}

bool FabricSession::peer_alive(int64_t now) {
  if (ctx.role == Role::kServer) {
    // A client that predates heartbeats while it waits (RUN without "heartbeats") is silent
    // while this side drains: only its completions say it lives then.
    return !ctx.peer.sends_heartbeats || client_alive(now);
  }
  return waiting_on_server(now);
}

bool FabricSession::waiting_on_server(int64_t now) {
  if (now < next_alive_check_ns_) return true;
  next_alive_check_ns_ = now + kPeerCheckNs;
  // The server's heartbeats are taken; a message of its own stays for the reader (periodic()
  // would take it for an error here).
  ctx.control.message_waiting();
  Status s = ctx.control.heartbeat(now);
  if (s.ok()) s = ctx.control.alive(now);
  return s.ok() || fail(s);
}

bool FabricSession::not_stalled(int64_t now) {
  if (now - last_progress_ns(now) <= static_cast<int64_t>(ctx.timeout_s() * 1e9)) return true;
  return fail(Status::timeout("no completion from provider " + choice_.provider() + " for " +
                              std::to_string(ctx.timeout_s()) + " s (peer gone?)"));
}

Status FabricSession::send_done(const nlohmann::json& counts) {
  return ctx.control.send(MsgType::kExchange, counts);
}

bool FabricSession::peer_message_waiting(int64_t now) {
  if (now < next_done_check_ns_) return false;
  next_done_check_ns_ = now + kDoneCheckNs;
  return ctx.control.message_waiting();
}

bool FabricSession::control_message_waiting() { return ctx.control.message_waiting(); }

Result<nlohmann::json> FabricSession::read_peer_done() {
  return ctx.control.expect(MsgType::kExchange, ctx.timeout_s());
}

bool FabricSession::write_pattern(uint8_t* at, PatternFn pattern, uint8_t seed) {
  if (!on_gpu_) {
    pattern(at, msg_size, seed);
    return true;
  }
  staging_.resize(std::max(staging_.size(), msg_size));
  pattern(staging_.data(), msg_size, seed);
  return put(at, staging_.data(), msg_size);
}

bool FabricSession::fill_tx(size_t slot) { return write_pattern(tx(slot), fill_pattern, my_seed); }

bool FabricSession::poison_tx(size_t slot) {
  return write_pattern(tx(slot), poison_pattern, peer_seed);
}

bool FabricSession::poison_rx(size_t slot) {
  return write_pattern(rx(slot), poison_pattern, peer_seed);
}

bool FabricSession::check_rx(const uint8_t* data, size_t len, size_t skip) {
  ctx.stats.verify_checked++;
  if (len != msg_size) {
    ctx.stats.verify_errors++;
    return true;
  }
  const uint8_t* bytes = view(data, msg_size);
  if (bytes == nullptr) return false;
  if (!check_pattern(bytes + skip, msg_size - skip, peer_seed, skip)) ctx.stats.verify_errors++;
  return true;
}

bool FabricSession::rx_holds_peer_pattern(size_t slot) {
  const uint8_t* bytes = view(rx(slot), msg_size);
  return bytes != nullptr && check_pattern(bytes, msg_size, peer_seed);
}

uint64_t FabricSession::touch(const uint8_t* data, size_t len) {
  const uint8_t* bytes = view(data, len);
  return bytes == nullptr ? 0 : touch_bytes(bytes, len);
}

}  // namespace fabperf
