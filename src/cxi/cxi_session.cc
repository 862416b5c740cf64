// The CXI pair protocol on fabperf's control channel, and the mapping of a tool's options
// onto the fabperf test it runs.
#include "cxi/cxi_session.h"

#include <unistd.h>

#include <cstdio>

#include "engine/registry.h"
#include "cxi/fabric_probe.h"
#include "fabric/gpu_runtime.h"
#include "fabric/libfabric_loader.h"
#include "engine/misc_tests.h"

namespace fabperf::cxi {

namespace {

const TestRegistry* g_tests = nullptr;

Needs needs_of(const Tool& tool) {
  if (tool.bit & (kSendLat | kSendBw)) return Needs::kMsg;
  if (tool.bit & (kAtomicLat | kAtomicBw)) return Needs::kAtomic;
  return Needs::kRma;
}

// "0.1" of "0.1.0": the originals require MAJ.MIN to match.
std::string major_minor(const std::string& version) {
  size_t dot = version.find('.');
  if (dot == std::string::npos) return version;
  size_t second = version.find('.', dot + 1);
  return version.substr(0, second);
}

std::string endpoint_text(const std::string& host) {
  return host + " PID " + std::to_string(::getpid());
}

Assignment assign(const char* name, ParamValue value, Side side = Side::kBoth) {
  const OptionSpec* spec = find_option(name);
  const char* prefix = side == Side::kLocal ? "--loc_" : side == Side::kRemote ? "--rem_" : "--";
  return Assignment{spec, side, std::move(value), prefix + std::string(name)};
}

// This side's GPU buffer, when one was asked for: reads put the client's buffer on the
// receiving end and the server's on the sending end.
int my_gpu(const Tool& tool, const CxiOptions& o, bool server) {
  bool read = tool.bit & (kReadLat | kReadBw);
  bool rx = server != read;
  return rx ? o.rx_gpu : o.tx_gpu;
}

// This side's buffer as fabperf's --gpu names it ("" in host memory).
std::string gpu_arg(const Tool& tool, const CxiOptions& o, bool server) {
  int gpu = my_gpu(tool, o, server);
  if (gpu < 0) return "";
  return o.gpu_type.empty() ? std::to_string(gpu) : o.gpu_type + ":" + std::to_string(gpu);
}

bool any_gpu(const CxiOptions& o) { return o.tx_gpu >= 0 || o.rx_gpu >= 0; }

// A GPU buffer that cannot exist on this side fails before the run: its type, runtime and
// device, then the provider's FI_HMEM support, each missing piece named.
Status check_side(const Tool& tool, const CxiOptions& o, bool server, const std::string& domain) {
  std::string gpu = gpu_arg(tool, o, server);
  if (gpu.empty()) return Status::Ok();
  auto spec = parse_gpu_spec(gpu);
  if (!spec.ok()) return spec.status();
  auto runtime = open_gpu(*spec);
  if (!runtime.ok()) return runtime.status();
  return check_hmem(o.provider, domain, needs_of(tool));
}

void print(std::FILE* out, const std::string& text) {
  if (out == nullptr) return;
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

}  // namespace

void set_test_registry(const TestRegistry* tests) { g_tests = tests; }

uint64_t atomic_type_bytes(const std::string& type) {
  static const std::pair<const char*, uint64_t> sizes[] = {
      {"INT8", 1},   {"UINT8", 1},  {"INT16", 2},         {"UINT16", 2},
      {"INT32", 4},  {"UINT32", 4}, {"INT64", 8},         {"UINT64", 8},
      {"FLOAT", 4},  {"DOUBLE", 8}, {"FLOAT_COMPLEX", 8}, {"DOUBLE_COMPLEX", 16},
      {"UINT128", 16}};
  for (const auto& [name, bytes] : sizes) {
    if (type == name) return bytes;
  }
  return 0;
}

Result<const TestSpec*> test_for(const Tool& tool, const CxiOptions& o) {
  const char* name = o.bidirectional && tool.bi_test != nullptr ? tool.bi_test : tool.test;
  const TestSpec* spec = g_tests->find(name);
  if (spec == nullptr) {
    return Status::Unsupported(std::string(tool.name) + " runs fabperf's " + name +
                               " test, which this build lacks (no libfabric tests)");
  }
  return spec;
}

Result<RunParams> params_for(const Tool& tool, const CxiOptions& o, const TestSpec& test,
                             uint64_t size) {
  std::vector<Assignment> a;
  const bool bw = tool.kind != ToolKind::kLatency;
  uint64_t per_iter = tool.kind == ToolKind::kLoopback ? o.num_xfers : bw ? o.list_size : 1;
  a.push_back(assign("msg_size", size));
  if (o.by_duration()) {
    a.push_back(assign("time", o.duration));
  } else {
    a.push_back(assign("no_msgs", o.iters * per_iter));
  }
  // Bandwidth tools warm up with one list; latency tools with --warmup iterations.
  a.push_back(assign("warmup", bw ? per_iter : o.warmup));
  if (bw) a.push_back(assign("tx_depth", std::min<uint64_t>(per_iter, 65536)));
  if (!o.provider.empty()) a.push_back(assign("provider", o.provider));
  if (!o.device.empty()) a.push_back(assign("domain", o.device));
  if (!o.use_hp.empty()) a.push_back(assign("use_hp", o.use_hp));
  // -t/-r: each side's own buffer, client and server apart.
  if (std::string g = gpu_arg(tool, o, false); !g.empty()) a.push_back(assign("gpu", g, Side::kLocal));
  if (std::string g = gpu_arg(tool, o, true); !g.empty()) a.push_back(assign("gpu", g, Side::kRemote));
  if (tool.bit & (kAtomicLat | kAtomicBw)) {
    a.push_back(assign("atomic_op", o.atomic_op));
    a.push_back(assign("atomic_type", o.atomic_type));
    a.push_back(assign("cswap_op", o.cswap_op));
    a.push_back(assign("fetching", o.fetching));
  }
  std::vector<Assignment> used;
  for (const Assignment& x : a) {
    bool known = std::any_of(test.options.begin(), test.options.end(),
                             [&](const char* n) { return std::string(n) == x.spec->name; });
    if (known) used.push_back(x);
  }
  return resolve_params(test, used, {}, nullptr);
}

// ---- server ----

Status serve_one_client(const Tool& tool, const CxiOptions& own, int listen_fd, std::FILE* out) {
  auto conn = accept_until(listen_fd, Deadline(INT64_MAX), nullptr);
  if (!conn.ok()) return conn.status();
  ControlChannel ch(conn->release());
  ch.set_peer_label("client");
  auto hello = ch.expect(MsgType::kHello, 5);
  if (!hello.ok()) return hello.status();
  if (hello->value("tool", std::string()) != tool.name) {
    ch.send_error(kNamesDiffer, 1);
    return Status::Failed(kNamesDiffer);
  }
  if (major_minor(hello->value("version", std::string())) != major_minor(FABPERF_VERSION)) {
    ch.send_error(kVersionsDiffer, 1);
    return Status::Failed(kVersionsDiffer);
  }
  auto adopted = CxiOptions::from_json(hello->value("options", nlohmann::json()), tool);
  if (!adopted.ok()) {
    ch.send_error(adopted.status().message(), 1);
    return adopted.status();
  }
  CxiOptions o = *adopted;
  o.device = own.device;  // the server's own device, as the originals' -d
  std::string local_host = local_address(ch.fd()).host();
  auto domain = resolve_domain(o.provider, o.device, needs_of(tool), local_host, any_gpu(o));
  Status ok = domain.ok() ? check_side(tool, o, true, o.device) : domain.status();
  if (!ok.ok()) {
    ch.send_error(ok.message(), 1);
    return ok;
  }
  Endpoints ep{domain->domain, domain->provider, true, endpoint_text(local_host),
               ch.peer_host() + " PID " + std::to_string(hello->value("pid", 0))};
  FP_RETURN_IF_ERROR(ch.send(MsgType::kWelcome, {{"pid", ::getpid()},
                                                  {"device", domain->domain},
                                                  {"server", node_info()}}));
  print(out, summary_block(tool, o, ep));
  if (tool.kind == ToolKind::kLatency) print(out, "See client for results.\n" + dash_line());
  while (true) {
    auto frame = ch.recv(3600);
    if (!frame.ok()) return frame.status();
    if (frame->type == MsgType::kBye) break;
    if (frame->type == MsgType::kExchange) {
      print(out, frame->body.value("text", std::string()));
      continue;
    }
    if (frame->type != MsgType::kRun) {
      return Status::Failed(std::string("protocol error: unexpected ") + msg_type_name(frame->type));
    }
    const TestSpec* spec = g_tests->find(frame->body.value("test", std::string()));
    if (spec == nullptr || spec->family != TransportFamily::kFabric) {
      ch.send_error("unknown test", 1);
      return Status::Failed("client asked for an unknown test");
    }
    auto params = params_from_json(frame->body.value("params", nlohmann::json::object()));
    if (!params.ok()) {
      ch.send_error(params.status().message(), 1);
      return params.status();
    }
    // This side's device is the server's own -d.
    params->set("domain", own.device, !own.device.empty());
    TestContext ctx(Role::kServer, *spec, *params, ch, ch.peer_host());
    FP_RETURN_IF_ERROR(ch.send(MsgType::kReady, nlohmann::json::object()));
    Status s = spec->server(ctx);
    if (!s.ok()) {
      ch.send_error(s.message(), 1);
      return s;
    }
    nlohmann::json result = {{"stats", ctx.stats.to_json()}};
    if (ctx.latency.count() > 0) result["latency"] = ctx.latency.to_json();
    FP_RETURN_IF_ERROR(ch.send(MsgType::kResult, result));
  }
  return Status::Ok();
}

// ---- client ----

Result<std::unique_ptr<PairClient>> PairClient::connect(const Tool& tool, CxiOptions& o,
                                                        const std::string& host, uint16_t port) {
  // No libfabric, or GPU buffers that cannot exist: said here, before the server is bothered.
  FP_RETURN_IF_ERROR(libfabric_status());
  FP_RETURN_IF_ERROR(check_side(tool, o, false, o.device));
  ConnectOptions copts;
  copts.wait_s = 0;  // the originals try once
  auto fd = connect_tcp(host, port, copts);
  if (!fd.ok()) return Status::Failed("Failed to connect to " + host + ": " + fd.status().message());
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("server");
  std::string local_host = local_address(ch->fd()).host();
  // With GPU buffers on either side, a provider that registers GPU memory.
  auto domain = resolve_domain(o.provider, o.device, needs_of(tool), local_host, any_gpu(o));
  if (!domain.ok()) return domain.status();
  // Both sides and the summary use the provider found here, not each its own best guess.
  if (o.provider.empty()) o.provider = domain->provider;
  nlohmann::json hello = {{"tool", tool.name},
                          {"version", FABPERF_VERSION},
                          {"dialect", "cxi"},
                          {"pid", ::getpid()},
                          {"options", o.to_json()}};
  FP_RETURN_IF_ERROR(ch->send(MsgType::kHello, hello));
  auto welcome = ch->expect(MsgType::kWelcome, 10);
  if (!welcome.ok()) {
    // "server: Client and server program names do not match!" reads better without the label.
    std::string m = welcome.status().message();
    if (m.rfind("server: ", 0) == 0) m = m.substr(8);
    return Status::Failed(m);
  }
  std::unique_ptr<PairClient> client(new PairClient(tool, std::move(ch)));
  client->endpoints_ = Endpoints{domain->domain, domain->provider, false,
                                 endpoint_text(local_host),
                                 client->ch_->peer_host() + " PID " +
                                     std::to_string(welcome->value("pid", 0))};
  return client;
}

Result<TestResult> PairClient::run(const TestSpec& test, const RunParams& params,
                                   LatencyRecorder::SampleSink sink, void* sink_arg,
                                   const std::vector<double>& percentiles) {
  TestResult result;
  result.spec = &test;
  result.test = test.name;
  result.local_params = params.local;
  result.remote_params = params.remote;
  FP_RETURN_IF_ERROR(ch_->send(MsgType::kRun, {{"test", test.name},
                                               {"params", params.remote.to_json()}}));
  double timeout = params.local.seconds("timeout");
  auto ready = ch_->expect(MsgType::kReady, timeout + 5);
  if (!ready.ok()) return ready.status();
  TestContext ctx(Role::kClient, test, params.local, *ch_, ch_->peer_host());
  ctx.latency.set_sink(sink, sink_arg);
  Status s = test.client(ctx);
  if (!s.ok()) {
    auto peer = ch_->recv(0.5);
    if (!peer.ok() && peer.status().message().rfind("server: ", 0) == 0) return peer.status();
    ch_->send_error(s.message(), 1);
    return s;
  }
  auto reply = ch_->expect(MsgType::kResult, timeout + 5);
  if (!reply.ok()) return reply.status();
  result.loc = ctx.stats;
  result.rem = SideStats::from_json(reply->value("stats", nlohmann::json::object()));
  LatencyRecorder latency = ctx.latency;
  latency.set_sink(nullptr, nullptr);
  // The side that measured holds the samples (the client, for every CXI latency tool).
  if (latency.count() == 0 && reply->contains("latency")) {
    auto remote = LatencyRecorder::from_json((*reply)["latency"]);
    if (!remote.ok()) return remote.status();
    latency.merge(*remote);
  }
  derive_figures(result, latency, percentiles);
  if (!result.ok) return Status::Failed(result.error);
  return result;
}

Status PairClient::share(const std::string& text) {
  return ch_->send(MsgType::kExchange, {{"text", text}});
}

void PairClient::bye() { ch_->send(MsgType::kBye, nlohmann::json::object(), 1); }

Result<std::unique_ptr<LoopbackPair>> LoopbackPair::start(const Tool& tool, CxiOptions& o) {
  auto listener = listen_tcp("127.0.0.1", 0, 1);
  if (!listener.ok()) return listener.status();
  uint16_t port = local_address(listener->get()).port();
  std::unique_ptr<LoopbackPair> pair(new LoopbackPair());
  CxiOptions own = o;
  LoopbackPair* raw = pair.get();
  pair->server_ = std::thread([raw, &tool, own, fd = std::move(*listener)]() mutable {
    raw->server_status_ = serve_one_client(tool, own, fd.get(), nullptr);
  });
  auto client = PairClient::connect(tool, o, "127.0.0.1", port);
  if (!client.ok()) {
    // A server thread still waiting for its client gets one that leaves at once.
    { auto nudge = connect_tcp("127.0.0.1", port, ConnectOptions{0, 1, "", ""}); }
    pair->server_.join();
    return client.status();
  }
  pair->client_ = std::move(*client);
  return pair;
}

LoopbackPair::~LoopbackPair() {
  if (client_) client_->bye();
  if (server_.joinable()) server_.join();
}

}  // namespace fabperf::cxi
