// fi_getinfo queries for the CXI tools: the domain in use, FI_HMEM support, the domain list.
#include "cxi/fabric_probe.h"

#include <rdma/fabric.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <set>

#include "fabric/libfabric_loader.h"

namespace fabperf::cxi {

namespace {

struct InfoDeleter {
  void operator()(fi_info* i) const { fi_freeinfo(i); }
};
using InfoList = std::unique_ptr<fi_info, InfoDeleter>;

uint64_t caps_of(Needs needs) {
  switch (needs) {
    case Needs::kRma: return FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
    case Needs::kMsg: return FI_MSG;
    case Needs::kAtomic: return FI_ATOMIC;
  }
  return FI_MSG;
}

std::string str(const char* s) { return s != nullptr ? s : ""; }

DomainInfo describe(const fi_info* i) {
  DomainInfo d;
  d.provider = str(i->fabric_attr->prov_name);
  d.fabric = str(i->fabric_attr->name);
  d.domain = str(i->domain_attr->name);
  uint32_t v = i->fabric_attr->prov_version;
  d.provider_version = std::to_string(FI_MAJOR(v)) + "." + std::to_string(FI_MINOR(v));
  if (const fid_nic* nic = i->nic) {
    if (const fi_device_attr* dev = nic->device_attr) {
      d.device_name = str(dev->name);
      d.device_id = str(dev->device_id);
      d.vendor_id = str(dev->vendor_id);
      d.driver = str(dev->driver);
      d.firmware = str(dev->firmware);
    }
    if (const fi_bus_attr* bus = nic->bus_attr; bus && bus->bus_type == FI_BUS_PCI) {
      const fi_pci_attr& p = bus->attr.pci;
      char buf[32];
      std::snprintf(buf, sizeof buf, "%04x:%02x:%02x.%x", p.domain_id, p.bus_id, p.device_id,
                    p.function_id);
      d.pci = buf;
    }
    if (const fi_link_attr* link = nic->link_attr) {
      d.link_speed = link->speed;
      d.mtu = link->mtu;
      d.link_state = link->state == FI_LINK_UP     ? "up"
                     : link->state == FI_LINK_DOWN ? "down"
                                                   : "unknown";
      d.link_address = str(link->address);
      d.network_type = str(link->network_type);
    }
  }
  return d;
}

// fi_getinfo for RDM endpoints; nullptr when nothing fits.
InfoList query(const std::string& provider, const std::string& domain, uint64_t caps,
               const std::string& node) {
  InfoList hints(fi_allocinfo());
  hints->ep_attr->type = FI_EP_RDM;
  hints->caps = caps;
  hints->mode = ~0ull;
  hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                                FI_MR_ENDPOINT | FI_MR_RAW | FI_MR_HMEM;
  if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
  if (!domain.empty()) hints->domain_attr->name = strdup(domain.c_str());
  fi_info* out = nullptr;
  int rc = fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
                      node.empty() ? nullptr : node.c_str(), nullptr, node.empty() ? 0 : FI_SOURCE,
                      hints.get(), &out);
  return InfoList(rc == 0 ? out : nullptr);
}

}  // namespace

Result<DomainInfo> resolve_domain(const std::string& provider, const std::string& domain,
                                  Needs needs, const std::string& node, bool hmem) {
  FP_RETURN_IF_ERROR(libfabric_status());
  uint64_t caps = caps_of(needs) | (hmem ? FI_HMEM : 0);
  InfoList list;
  if (!node.empty()) list = query(provider, domain, caps, node);
  if (!list) list = query(provider, domain, caps, "");
  if (!list) {
    std::string what = provider.empty() ? "no libfabric provider" : "provider " + provider;
    if (!domain.empty()) what += " with device " + domain;
    what += provider.empty() ? " offers" : " offers no";
    std::string cap = needs == Needs::kRma ? "RMA" : needs == Needs::kMsg ? "MSG" : "ATOMIC";
    if (hmem) cap += " and GPU memory registration (FI_HMEM, for -t/-r)";
    return Status::Unsupported(what + " reliable datagram (FI_EP_RDM) endpoints with " +
                               cap + " on this host; fab_stat lists what is here");
  }
  return describe(list.get());
}

Status check_hmem(const std::string& provider, const std::string& domain, Needs needs) {
  if (query(provider, domain, caps_of(needs) | FI_HMEM, "")) return Status::Ok();
  const char* what = needs == Needs::kRma ? "RMA" : needs == Needs::kMsg ? "sends" : "atomics";
  const char* advice = "; GPU buffers (-t/-r) need a provider such as cxi, verbs or efa built "
                       "with it";
  if (provider.empty()) {
    return Status::Unsupported(std::string("no libfabric provider here can register GPU memory "
                                           "for ") + what + " (FI_HMEM)" + advice);
  }
  auto plain = resolve_domain(provider, domain, needs, "");
  std::string name = plain.ok() ? plain->provider : provider;
  return Status::Unsupported("provider " + name + " cannot register GPU memory for " + what +
                             " (no FI_HMEM support)" + advice);
}

std::vector<DomainInfo> list_domains(const std::string& provider) {
  std::vector<DomainInfo> out;
  std::set<std::pair<std::string, std::string>> seen;
  for (uint64_t caps : {caps_of(Needs::kRma), caps_of(Needs::kMsg)}) {
    InfoList list = query(provider, "", caps, "");
    for (const fi_info* i = list.get(); i != nullptr; i = i->next) {
      DomainInfo d = describe(i);
      if (seen.insert({d.provider, d.domain}).second) out.push_back(d);
    }
  }
  return out;
}

}  // namespace fabperf::cxi
