// Provider selection: fi_getinfo for an endpoint type and capabilities, with clear refusals.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/status.h"
#include "fabric/fi_util.h"

namespace fabperf {

// What a test needs from a provider.
struct FabricRequest {
  fi_ep_type ep_type = FI_EP_RDM;
  uint64_t caps = FI_MSG;               // FI_MSG, FI_RMA, FI_ATOMIC (+ FI_READ/FI_WRITE implied)
  bool want_delivery_complete = false;  // one-sided latency: completion = data at the target
  std::string provider;                 // "" = the best fi_getinfo offers
  std::string domain;                   // "" = any
  std::string fabric;                   // "" = any
  // Local numeric address to bind to, so data stays on the control connection's path; used
  // only by providers that take IP addresses.
  std::string node;
  // FI_EP_MSG client: the server's passive endpoint name, in the provider's address format.
  std::vector<uint8_t> dest_addr;
  uint32_t dest_addr_format = FI_FORMAT_UNSPEC;
  // -v/--svc-id: on the cxi provider, the domain's authorization key carries this service ID
  // (and a VNI, cxi_vni()); ignored by every other provider.
  std::optional<uint32_t> cxi_svc_id;
};

// The provider chosen for a test, and the completion level it runs with.
struct FabricChoice {
  InfoPtr info;            // one entry
  std::string completion;  // "FI_DELIVERY_COMPLETE", "FI_TRANSMIT_COMPLETE", "provider default"
  bool delivery_complete = false;
  std::string auth_key;  // "svc_id 5 vni 10" when a cxi auth key was set, else ""

  std::string provider() const;  // "tcp;ofi_rxm"
  // {"provider", "fabric", "domain", "endpoint", "mr_mode", "completion", ...} for SideStats.
  nlohmann::json describe() const;
};

// fi_getinfo with fabperf's hints. A refusal is Unsupported and names the provider, the
// missing capability, and the providers on this host that have it.
Result<FabricChoice> select_fabric(const FabricRequest& request);

// Providers on this host offering `ep_type` with all of `caps`, in preference order.
std::vector<std::string> providers_with(fi_ep_type ep_type, uint64_t caps);

// True for providers whose addresses are IP socket addresses (tcp, sockets, udp, verbs).
bool uses_ip_addresses(const fi_info* info);

}  // namespace fabperf
