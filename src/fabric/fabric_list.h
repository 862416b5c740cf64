// What libfabric offers on this host: every (provider, domain) with its NIC, for
// `fabperf --list-fabrics` and fab_stat.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "core/status.h"

namespace fabperf {

struct DomainInfo {
  std::string provider;          // "tcp;ofi_rxm"
  std::string fabric;            // "127.0.0.1/32"
  std::string domain;            // "lo", "cxi0"
  std::string endpoints;         // endpoint types offered: "msg rdm dgram"
  std::string provider_version;  // the provider's own version, "117.0"
  // From fi_info->nic where the provider fills it in; empty otherwise.
  std::string device_name, device_id, vendor_id, driver, firmware;
  std::string pci;          // "0000:41:00.0"
  uint64_t link_speed = 0;  // bits per second
  uint64_t mtu = 0;
  std::string link_state;  // "up", "down", "unknown"
  std::string link_address;
  std::string network_type;
};

// Every (provider, domain) pair libfabric lists for any endpoint type, once each, in the
// order fi_getinfo prefers them; `provider` ("" = all) filters.
std::vector<DomainInfo> list_domains(const std::string& provider);

// `fabperf --list-fabrics`: one line per provider and domain, with its endpoint types (what
// rc_*, rdm_* and ud_* tests need). kFailed where libfabric lists nothing.
Status list_fabrics(std::FILE* out);

}  // namespace fabperf
