// What libfabric offers on this host, asked directly: the domain a tool will use, whether a
// provider registers GPU memory (FI_HMEM), and every domain with its NIC for fab_stat.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf::cxi {

struct DomainInfo {
  std::string provider;   // "tcp;ofi_rxm"
  std::string fabric;     // "127.0.0.1/32"
  std::string domain;     // "lo", "cxi0"
  std::string provider_version;  // "117.0"
  // From fi_info->nic where the provider fills it in; empty otherwise.
  std::string device_name, device_id, vendor_id, driver, firmware;
  std::string pci;        // "0000:41:00.0"
  uint64_t link_speed = 0;  // bits per second
  uint64_t mtu = 0;
  std::string link_state; // "up", "down", "unknown"
  std::string link_address;
  std::string network_type;
};

// Capabilities by tool: FI_RMA, FI_MSG or FI_ATOMIC (each with FI_EP_RDM).
enum class Needs { kRma, kMsg, kAtomic };

// The first RDM domain that fits provider ("" = any), domain ("" = any) and caps, with
// FI_HMEM when `hmem` (GPU buffers). `node`: a local numeric address tried first (IP
// providers pick the matching interface).
Result<DomainInfo> resolve_domain(const std::string& provider, const std::string& domain,
                                  Needs needs, const std::string& node, bool hmem = false);

// Unsupported, naming the provider, when it cannot register GPU memory (FI_HMEM).
Status check_hmem(const std::string& provider, const std::string& domain, Needs needs);

// Every (provider, domain) pair libfabric lists, once each, RDM endpoints first.
std::vector<DomainInfo> list_domains(const std::string& provider);

}  // namespace fabperf::cxi
