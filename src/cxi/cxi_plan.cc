// From a fab_* command line to the runs of the fabperf test the tool names.
#include "cxi/cxi_plan.h"

#include <algorithm>
#include <cstring>

#include "fabric/address_codec.h"
#include "fabric/cxi_controls.h"
#include "fabric/gpu_runtime.h"
#include "fabric/libfabric_loader.h"
#include "fabric/peer_address.h"
#include "fabric/provider.h"
#include "options/gpu_spec.h"

namespace fabperf::cxi {

namespace {

bool is_read(const Tool& tool) { return tool.bit & (kCxiReadLat | kCxiReadBw); }
bool is_atomic(const Tool& tool) { return tool.bit & (kCxiAtomicLat | kCxiAtomicBw); }

std::string gpu_text(const ProgramOptions& p, int64_t gpu) {
  if (gpu < 0) return "";
  return p.gpu_type.empty() ? std::to_string(gpu) : p.gpu_type + ":" + std::to_string(gpu);
}

}  // namespace

void fill_discovered_gpu_type(ProgramOptions& p, const std::string& dev_root) {
  if (!p.gpu_type.empty() || (p.tx_gpu < 0 && p.rx_gpu < 0)) return;
  if (auto type = choose_gpu_type("", dev_root); type.ok()) p.gpu_type = gpu_type_name(*type);
}

namespace {

Assignment assign(FieldRef field, OptionValue value, Side side = Side::kBoth) {
  const OptionSpec& spec = option_of(field);
  const char* prefix = side == Side::kLocal ? "--loc_" : side == Side::kRemote ? "--rem_" : "--";
  return Assignment{&spec, side, std::move(value), prefix + std::string(spec.name)};
}

// The numeric IP address of a domain whose provider speaks IP ("" otherwise): where the
// control connection must come from so the peer check ties this side's fabric address to it.
std::string domain_ip(const FabricChoice& choice) {
  const fi_info* info = choice.info.get();
  if (info == nullptr || info->src_addr == nullptr || !uses_ip_addresses(info)) return "";
  const auto* bytes = static_cast<const uint8_t*>(info->src_addr);
  auto address = decode_fabric_address(info->addr_format, choice.provider(),
                                       std::vector<uint8_t>(bytes, bytes + info->src_addrlen));
  if (!address.ok() || address->kind != FabricAddressKind::kIp || address->ips.empty()) return "";
  return address->ips.front().host();
}

}  // namespace

uint64_t tool_caps(const Tool& tool) {
  if (tool.bit & (kCxiSendLat | kCxiSendBw)) return FI_MSG;
  if (is_atomic(tool)) return FI_ATOMIC;
  return FI_RMA;
}

DomainInUse domain_in_use(const std::string& provider, uint64_t caps, const std::string& domain,
                          const std::string& local_host) {
  FabricRequest want;
  want.ep_type = FI_EP_RDM;
  want.caps = caps;
  want.provider = provider;
  want.domain = domain;
  want.node = local_host;
  auto choice = select_fabric(want);
  if (!choice.ok() || choice->info->domain_attr->name == nullptr) return {domain, provider};
  return {choice->info->domain_attr->name, choice->provider()};
}

std::string domain_address(const std::string& provider, const std::string& domain) {
  FabricRequest want;
  want.ep_type = FI_EP_RDM;
  want.caps = FI_RMA;
  want.provider = provider;
  want.domain = domain;
  auto choice = select_fabric(want);
  return choice.ok() ? domain_ip(*choice) : "";
}

CxiOwnAddress cxi_own_address(const std::string& domain, uint64_t svc_id, uint64_t caps) {
  FabricRequest want;
  want.ep_type = FI_EP_RDM;
  want.caps = caps;
  want.provider = "cxi";
  want.domain = domain;
  want.cxi_svc_id = static_cast<uint32_t>(svc_id);
  auto choice = select_fabric(want);
  CxiOwnAddress out;
  if (!choice.ok() || choice->provider() != "cxi") return out;
  const fi_info& info = *choice->info;
  if (info.src_addr != nullptr && info.src_addrlen > 0) {
    out.hex = hex_encode(info.src_addr, info.src_addrlen);
  }
  const fi_domain_attr* attr = info.domain_attr;
  if (attr != nullptr && attr->auth_key != nullptr && attr->auth_key_size >= sizeof(CxiAuthKey)) {
    CxiAuthKey key{};
    std::memcpy(&key, attr->auth_key, sizeof key);
    out.vni = key.vni;
  }
  return out;
}

Result<std::string> own_buffer(const Tool& tool, const ProgramOptions& p, bool server,
                               bool bidirectional) {
  const bool both = bidirectional || (!server && p.bidirectional);
  // One process holds both ends (fab_loopback_bw, each fab_heatsink_check worker): -t the
  // writer's buffer, -r the target's.
  if (tool.kind == ToolKind::kLoopback || tool.kind == ToolKind::kHeatsink) {
    return gpu_text(p, p.tx_gpu);
  }
  if (both && p.tx_gpu != p.rx_gpu) {
    return Status::usage(std::string("-t and -r must name the same memory with -b") +
                         (server ? " (on this server)" : "") +
                         ": fabperf keeps one buffer per side, used both to send and receive");
  }
  // One direction: the client is the initiator (its -t), the server the target (its -r).
  return gpu_text(p, server && !both ? p.rx_gpu : p.tx_gpu);
}

CxiControls tool_cxi_controls(const Tool& tool, const RunOptions& own) {
  CxiOp op = CxiOp::kWrite;
  if (tool.bit & (kCxiSendLat | kCxiSendBw)) op = CxiOp::kSend;
  if (is_read(tool)) op = CxiOp::kRead;
  if (is_atomic(tool))
    op = own.fetching || own.atomic_op == "CSWAP" || own.atomic_op == "AXOR"
             ? CxiOp::kFetchingAtomic
             : CxiOp::kAtomic;
  return cxi_controls(own, op, tool.kind != ToolKind::kLatency);
}

uint64_t atomic_type_bytes(const std::string& type) {
  static const std::pair<const char*, uint64_t> sizes[] = {
      {"INT8", 1},          {"UINT8", 1},           {"INT16", 2},   {"UINT16", 2}, {"INT32", 4},
      {"UINT32", 4},        {"INT64", 8},           {"UINT64", 8},  {"FLOAT", 4},  {"DOUBLE", 8},
      {"FLOAT_COMPLEX", 8}, {"DOUBLE_COMPLEX", 16}, {"UINT128", 16}};
  for (const auto& [name, bytes] : sizes) {
    if (type == name) return bytes;
  }
  return 0;
}

bool duration_given(const CommandLine& cl) {
  return std::any_of(cl.assignments.begin(), cl.assignments.end(), [](const Assignment& a) {
    return a.spec->field == FieldRef(&RunOptions::time);
  });
}

namespace {

// The tool's own defaults (iterations, size, list size, warm-up, its buffers' --gpu) under what
// the user typed, and -n as iterations of the list. Usage error for -n with -D.
Result<ToolDefaults> tool_defaults(const Tool& tool, const ProgramOptions& p,
                                   const CommandLine& typed, const RunOptions& own) {
  const bool by_duration = duration_given(typed);
  if (given(p, &ProgramOptions::iters) && by_duration && tool.kind != ToolKind::kHeatsink) {
    return Status::usage("-n/--iters and -D/--duration cannot both be given");
  }
  ToolDefaults out;
  const uint64_t iters = given(p, &ProgramOptions::iters) ? p.iters : tool.iters;
  if (!given(p, &ProgramOptions::iters)) out.iters = tool.iters;
  if (by_duration && own.time <= 0) {
    return Status::usage("Invalid duration: " + option_value_text(OptionValue(own.time)) +
                         " (a duration is more than 0 seconds)");
  }
  std::vector<Assignment>& a = out.assignments;
  // fab_stat measures nothing: it has no list (0), and no window to assign.
  const bool bw = tool.kind != ToolKind::kLatency && tool.list_size > 0;
  uint64_t list = given(own, &RunOptions::tx_depth) ? own.tx_depth : tool.list_size;
  if (bw) a.push_back(assign(&RunOptions::tx_depth, list));
  // Reads and fetching atomics keep the whole list in flight too, as the originals post it
  // (fabperf's own dialect keeps --rd_atomic, 16, of them).
  if (bw && (tool.bit & (kCxiReadBw | kCxiAtomicBw))) {
    a.push_back(assign(&RunOptions::rd_atomic, std::max<uint64_t>(list, 1)));
  }
  uint64_t size = is_atomic(tool) ? atomic_type_bytes(own.atomic_type) : tool.size;
  a.push_back(assign(&RunOptions::msg_size, size));
  // -n counts iterations; a bandwidth tool's iteration is a list of operations.
  const uint64_t per_iter = bw ? std::max<uint64_t>(list, 1) : 1;
  if (!by_duration) {
    if (iters > UINT64_MAX / per_iter) return Status::usage("Invalid iteration count: too many");
    a.push_back(assign(&RunOptions::no_msgs, iters * per_iter));
  }
  // Latency tools warm up with --warmup iterations. Bandwidth tools: the originals' lists
  // have no warm-up; --stream (fabperf's window) warms up with one list.
  if (bw) a.push_back(assign(&RunOptions::warmup, own.bw_method == "stream" ? per_iter : 0));
  // -t/-r: this process's own buffers, as in the originals. A pair tool's client sends (or,
  // for reads, initiates) from its -t buffer, and its -r matters with -b only; the server
  // keeps its own -t/-r (cxi_main's server_own_options). fab_loopback_bw and
  // fab_heatsink_check hold both ends in one process.
  auto buffer = own_buffer(tool, p, false);
  if (!buffer.ok()) return buffer.status();
  if (!buffer->empty()) a.push_back(assign(&RunOptions::gpu, *buffer, Side::kLocal));
  if (tool.kind == ToolKind::kLoopback || tool.kind == ToolKind::kHeatsink) {
    if (std::string g = gpu_text(p, p.rx_gpu); !g.empty()) {
      a.push_back(assign(&RunOptions::gpu, g, Side::kRemote));
    }
  }
  out.test = p.bidirectional && tool.bi_test != nullptr ? tool.bi_test : tool.test;
  return out;
}

}  // namespace

Result<Invocation> resolve_tool_invocation(const Tool& tool, CommandLine parsed, bool measures,
                                           bool runs) {
  if (!measures && !runs) return resolve_invocation(std::move(parsed));
  auto rule = [&tool, measures, runs](ProgramOptions& p, const CommandLine& typed,
                                      const RunOptions& own) -> Result<ToolDefaults> {
    // The GPU type a buffer's index names, before the buffers' --gpu texts are made from it.
    if (measures) fill_discovered_gpu_type(p);
    if (!runs) return ToolDefaults{};
    return tool_defaults(tool, p, typed, own);
  };
  return resolve_invocation(std::move(parsed), rule);
}

std::vector<uint64_t> tool_sizes(const Invocation& inv) {
  std::vector<uint64_t> out;
  if (!inv.tests.empty()) {
    for (const LoopSpec& loop : inv.tests[0].loops) {
      if (loop.var->field != FieldRef(&RunOptions::msg_size)) continue;
      for (const OptionValue& v : loop.values) out.push_back(std::get<uint64_t>(v));
    }
  }
  if (out.empty()) out.push_back(inv.own.msg_size);
  return out;
}

Result<ToolPlan> plan_tool(const Tool& tool, Invocation& cl, const TestRegistry& tests) {
  const RunOptions& own = cl.own;
  // GPU buffers that cannot exist here are said before anything else: the type, its runtime,
  // the device.
  for (const Assignment& a : cl.tests.at(0).assignments) {
    if (a.spec->field != FieldRef(&RunOptions::gpu) || a.side == Side::kRemote) continue;
    auto spec = parse_gpu_spec(std::get<std::string>(a.value));
    if (!spec.ok()) return spec.status();
    auto runtime = open_gpu(*spec);
    if (!runtime.ok()) return runtime.status();
  }
  ToolPlan plan;
  // The cxi switches' environment goes in before libfabric first lists its providers (the
  // cxi provider reads it then); harmless to every other provider.
  plan.cxi = tool_cxi_controls(tool, own);
  Status cxi_env = apply_cxi_environment(plan.cxi, libfabric_providers_initialised());
  // The provider: the user's, or the best RDM provider with the tool's capabilities, chosen
  // here so both sides and the summary agree.
  FabricRequest want;
  want.ep_type = FI_EP_RDM;
  bool gpu_here = false;
  for (const Assignment& a : cl.tests.at(0).assignments) {
    if (a.spec->field == FieldRef(&RunOptions::gpu) && !std::get<std::string>(a.value).empty()) {
      gpu_here = true;
    }
  }
  want.caps = tool_caps(tool) | (gpu_here ? FI_HMEM : 0);
  want.provider = own.provider;
  want.domain = own.domain;
  want.cxi_svc_id = plan.cxi.svc_id;
  auto choice = select_fabric(want);
  if (!choice.ok()) return choice.status();
  plan.provider = choice->provider();
  if (plan.provider == "cxi" && !cxi_env.ok()) return cxi_env;
  plan.cxi_warning = cxi_switch_warning(plan.cxi, plan.provider);
  const char* domain = choice->info->domain_attr->name;
  plan.device = domain != nullptr ? domain : "";
  plan.by_duration = duration_given(cl);
  if (const fi_tx_attr* tx = choice->info->tx_attr; tx != nullptr) plan.tx_queue = tx->size;
  // -d NAME of a provider that speaks IP: the control connection comes from that device's
  // address, so the server's peer check finds this side's fabric address on it.
  if (!own.domain.empty() && cl.program.bind.empty()) cl.program.bind = domain_ip(*choice);
  if (own.provider.empty()) {
    Assignment chosen = assign(&RunOptions::provider, plan.provider);
    cl.assignments.push_back(chosen);
    cl.tests.at(0).assignments.push_back(chosen);
  }
  auto runs = plan_runs(cl, tests);
  if (!runs.ok()) return runs.status();
  plan.runs = std::move(*runs);
  plan.sizes = tool_sizes(cl);
  return plan;
}

}  // namespace fabperf::cxi
