// Provider selection through fi_getinfo, and the diagnosis of why nothing matched.
#include "fabric/provider.h"

#include <rdma/fi_domain.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>

#include "core/environment.h"
#include "fabric/cxi_controls.h"
#include "fabric/libfabric_loader.h"

namespace fabperf {

namespace {

// mr_mode bits fabperf honours (see memory.cc); a provider needing others is skipped.
constexpr int kMrModes = FI_MR_LOCAL | FI_MR_RAW | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                         FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_MMU_NOTIFY | FI_MR_HMEM;
// Every operation carries a fi_context2, and write-with-data tests post receives.
constexpr uint64_t kModes = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;

char* dup_or_null(const std::string& text) { return text.empty() ? nullptr : strdup(text.c_str()); }

uint64_t full_caps(uint64_t caps) {
  uint64_t out = caps;
  if (caps & (FI_RMA | FI_ATOMIC)) {
    out |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  }
  if (caps & FI_MSG) out |= FI_SEND | FI_RECV;
  return out;
}

InfoPtr make_hints(const FabricRequest& request, uint64_t caps, uint64_t op_flags) {
  InfoPtr hints(fi_allocinfo());
  hints->caps = full_caps(caps);
  hints->mode = kModes;
  hints->ep_attr->type = request.ep_type;
  hints->domain_attr->mr_mode = kMrModes;
  hints->domain_attr->threading = FI_THREAD_DOMAIN;
  hints->tx_attr->op_flags = op_flags;
  hints->fabric_attr->prov_name = dup_or_null(request.provider);
  hints->fabric_attr->name = dup_or_null(request.fabric);
  hints->domain_attr->name = dup_or_null(request.domain);
  if (!request.dest_addr.empty()) {
    hints->addr_format = request.dest_addr_format;
    hints->dest_addrlen = request.dest_addr.size();
    hints->dest_addr = std::malloc(request.dest_addr.size());
    std::memcpy(hints->dest_addr, request.dest_addr.data(), request.dest_addr.size());
  }
  return hints;
}

struct Query {
  InfoPtr list;
  int ret = 0;
};

Query get_info(const fi_info* hints, const char* node, uint64_t flags) {
  fi_info* list = nullptr;
  int ret = fi_getinfo(kFiApiVersion, node, nullptr, flags, hints, &list);
  return {InfoPtr(ret == 0 ? list : nullptr), ret};
}

std::vector<std::string> unique_names(const fi_info* list, bool domains) {
  std::vector<std::string> out;
  for (const fi_info* info = list; info != nullptr; info = info->next) {
    const char* name = domains ? info->domain_attr->name : info->fabric_attr->prov_name;
    if (name == nullptr) continue;
    if (std::find(out.begin(), out.end(), name) == out.end()) out.emplace_back(name);
  }
  return out;
}

// Providers ignore the domain and fabric names in the hints, so filter here.
const fi_info* first_match(const fi_info* list, const FabricRequest& request) {
  for (const fi_info* info = list; info != nullptr; info = info->next) {
    const char* domain = info->domain_attr->name;
    const char* fabric = info->fabric_attr->name;
    if (!request.domain.empty() && (domain == nullptr || request.domain != domain)) continue;
    if (!request.fabric.empty() && (fabric == nullptr || request.fabric != fabric)) continue;
    return info;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& items) {
  if (items.empty()) return "none";
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Explains an empty fi_getinfo answer: unknown provider, missing endpoint type, missing
// capability, or an unknown domain or fabric.
Status diagnose(const FabricRequest& request) {
  const char* ep = ep_type_name(request.ep_type);
  std::string wanted = std::string(ep) + " endpoints with " + caps_text(request.caps);
  std::string here = join(providers_with(request.ep_type, request.caps));
  if (request.provider.empty()) {
    std::string where;
    if (!request.domain.empty()) where += " on domain \"" + request.domain + "\"";
    if (!request.fabric.empty()) where += " in fabric \"" + request.fabric + "\"";
    return Status::unsupported("no libfabric provider on this host offers " + wanted + where +
                               "; providers with it: " + here);
  }
  std::string prov = "provider \"" + request.provider + "\"";
  InfoPtr any(fi_allocinfo());
  any->fabric_attr->prov_name = strdup(request.provider.c_str());
  Query exists = get_info(any.get(), nullptr, 0);
  if (exists.ret != 0) {
    return Status::unsupported("no libfabric " + prov + " on this host; providers: " +
                               join(unique_names(get_info(nullptr, nullptr, 0).list.get(), false)));
  }
  FabricRequest bare = request;
  bare.domain.clear();
  bare.fabric.clear();
  bare.dest_addr.clear();
  if (get_info(make_hints(bare, 0, 0).get(), nullptr, 0).ret != 0) {
    return Status::unsupported(prov + " has no " + std::string(ep) + " endpoints; providers with " +
                               wanted + ": " + here);
  }
  for (uint64_t cap : {FI_MSG, FI_RMA, FI_ATOMIC, FI_HMEM}) {
    if ((request.caps & cap) == 0) continue;
    if (get_info(make_hints(bare, cap, 0).get(), nullptr, 0).ret != 0) {
      return Status::unsupported(prov + " lacks " + caps_text(cap) + " on " + ep +
                                 " endpoints; providers on this host with it: " +
                                 join(providers_with(request.ep_type, request.caps)));
    }
  }
  if (get_info(make_hints(bare, request.caps, 0).get(), nullptr, 0).ret != 0) {
    return Status::unsupported(prov + " does not offer " + caps_text(request.caps) +
                               " together on " + ep +
                               " endpoints; providers on this host "
                               "that do: " +
                               here);
  }
  if (!request.domain.empty() || !request.fabric.empty()) {
    Query all = get_info(make_hints(bare, request.caps, 0).get(), nullptr, 0);
    std::string what = request.domain.empty() ? "fabric \"" + request.fabric + "\""
                                              : "domain \"" + request.domain + "\"";
    if (!request.domain.empty() && !request.fabric.empty()) {
      what += " in fabric \"" + request.fabric + "\"";
    }
    return Status::unsupported(prov + " has no " + what + " for " + wanted +
                               "; its domains: " + join(unique_names(all.list.get(), true)));
  }
  return Status::unsupported(prov + " offers " + wanted +
                             " only with modes or memory registration rules fabperf cannot meet");
}

// The cxi provider's auth key on the chosen domain: the service ID asked for and the VNI
// cxi_vni() picks. The endpoint inherits it.
void set_cxi_auth_key(fi_info* info, uint32_t svc_id, std::string* described) {
  std::optional<unsigned> nic_vni;
  if (info->nic != nullptr && info->nic->prov_attr != nullptr) {
    const auto* attr = static_cast<const CxiNicAttr*>(info->nic->prov_attr);
    if (attr->version >= kCxiNicAttrVersion) nic_vni = attr->default_vni;
  }
  CxiAuthKey key{svc_id, cxi_vni(environment().slingshot_vnis.c_str(), nic_vni)};
  std::free(info->domain_attr->auth_key);
  info->domain_attr->auth_key = static_cast<uint8_t*>(std::malloc(sizeof key));
  std::memcpy(info->domain_attr->auth_key, &key, sizeof key);
  info->domain_attr->auth_key_size = sizeof key;
  // An endpoint key, where the provider filled one in, must be the domain's.
  if (info->ep_attr->auth_key != nullptr) {
    std::free(info->ep_attr->auth_key);
    info->ep_attr->auth_key = static_cast<uint8_t*>(std::malloc(sizeof key));
    std::memcpy(info->ep_attr->auth_key, &key, sizeof key);
    info->ep_attr->auth_key_size = sizeof key;
  }
  *described = "svc_id " + std::to_string(key.svc_id) + " vni " + std::to_string(key.vni);
}

}  // namespace

std::string FabricChoice::provider() const {
  return info && info->fabric_attr->prov_name ? info->fabric_attr->prov_name : "";
}

nlohmann::json FabricChoice::describe() const {
  nlohmann::json j = nlohmann::json::object();
  if (!info) return j;
  j["provider"] = provider();
  j["fabric"] = info->fabric_attr->name ? info->fabric_attr->name : "";
  j["domain"] = info->domain_attr->name ? info->domain_attr->name : "";
  j["endpoint"] = ep_type_name(info->ep_attr->type);
  j["mr_mode"] = mr_mode_text(info->domain_attr->mr_mode);
  j["completion"] = completion;
  if (!auth_key.empty()) j["auth_key"] = auth_key;
  return j;
}

bool uses_ip_addresses(const fi_info* info) {
  switch (info->addr_format) {
    case FI_SOCKADDR:
    case FI_SOCKADDR_IN:
    case FI_SOCKADDR_IN6:
      return true;
    default:
      return false;
  }
}

std::vector<std::string> providers_with(fi_ep_type ep_type, uint64_t caps) {
  FabricRequest request;
  request.ep_type = ep_type;
  return unique_names(get_info(make_hints(request, caps, 0).get(), nullptr, 0).list.get(), false);
}

Result<FabricChoice> select_fabric(const FabricRequest& request) {
  FP_RETURN_IF_ERROR(libfabric_status());
  // Strongest completion level first. One-sided operations (nobody at the target counts them)
  // fall back to transmit-complete on reliable endpoints, so a completion still means the
  // target has the data. Sends are counted by their receiver: the provider's default (the
  // buffer may be reused) is enough, and transmit-complete would cost an acknowledgement per
  // message (1.7x fi_pingpong's send latency over tcp when asked for).
  struct Level {
    uint64_t flag;
    const char* name;
  };
  std::vector<Level> levels;
  if (request.want_delivery_complete)
    levels.push_back({FI_DELIVERY_COMPLETE, "FI_DELIVERY_COMPLETE"});
  const bool one_sided = (request.caps & (FI_RMA | FI_ATOMIC)) != 0;
  if (request.ep_type != FI_EP_DGRAM && (request.want_delivery_complete || one_sided)) {
    levels.push_back({FI_TRANSMIT_COMPLETE, "FI_TRANSMIT_COMPLETE"});
  }
  levels.push_back({0, "provider default"});

  for (const Level& level : levels) {
    InfoPtr hints = make_hints(request, request.caps, level.flag);
    Query found = get_info(hints.get(), nullptr, 0);
    if (found.ret == -FI_ENODATA) continue;
    if (found.ret != 0) return fi_status("fi_getinfo", found.ret);
    const fi_info* match = first_match(found.list.get(), request);
    if (match == nullptr) continue;
    FabricChoice choice;
    choice.info = dup_one_info(match);
    // Bind to the control connection's local address where the provider speaks IP, pinned to
    // the provider just chosen so the preference order is kept. A named domain wins.
    bool bind = !request.node.empty() && request.dest_addr.empty() && request.domain.empty() &&
                uses_ip_addresses(match);
    if (bind) {
      FabricRequest pinned = request;
      pinned.provider = choice.provider();
      InfoPtr bound_hints = make_hints(pinned, request.caps, level.flag);
      Query bound = get_info(bound_hints.get(), request.node.c_str(), FI_SOURCE);
      const fi_info* bound_match = bound.ret == 0 ? first_match(bound.list.get(), pinned) : nullptr;
      if (bound_match != nullptr) choice.info = dup_one_info(bound_match);
    }
    if (request.cxi_svc_id.has_value() && choice.provider() == "cxi") {
      set_cxi_auth_key(choice.info.get(), *request.cxi_svc_id, &choice.auth_key);
    }
    choice.completion = level.name;
    choice.delivery_complete = level.flag == FI_DELIVERY_COMPLETE;
    return choice;
  }
  return diagnose(request);
}

}  // namespace fabperf
