// Listing libfabric's providers and domains with their NICs.
#include "fabric/fabric_list.h"

#include <rdma/fabric.h>

#include <cstring>

#include "fabric/fi_util.h"
#include "fabric/libfabric_loader.h"

namespace fabperf {

namespace {

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

}  // namespace

std::vector<DomainInfo> list_domains(const std::string& provider) {
  std::vector<DomainInfo> out;
  if (!libfabric_status().ok()) return out;
  for (fi_ep_type type : {FI_EP_RDM, FI_EP_MSG, FI_EP_DGRAM}) {
    InfoPtr hints(fi_allocinfo());
    hints->ep_attr->type = type;
    hints->mode = ~0ull;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY |
                                  FI_MR_ENDPOINT | FI_MR_RAW | FI_MR_HMEM;
    if (!provider.empty()) hints->fabric_attr->prov_name = strdup(provider.c_str());
    fi_info* list = nullptr;
    if (fi_getinfo(kFiApiVersion, nullptr, nullptr, 0, hints.get(), &list) != 0) continue;
    InfoPtr owned(list);
    const char* name = type == FI_EP_RDM ? "rdm" : type == FI_EP_MSG ? "msg" : "dgram";
    for (const fi_info* i = list; i != nullptr; i = i->next) {
      DomainInfo d = describe(i);
      bool found = false;
      for (DomainInfo& seen : out) {
        if (seen.provider == d.provider && seen.domain == d.domain) {
          if (seen.endpoints.find(name) == std::string::npos)
            seen.endpoints += std::string(" ") + name;
          found = true;
        }
      }
      if (!found) {
        d.endpoints = name;
        out.push_back(d);
      }
    }
  }
  return out;
}

Status list_fabrics(std::FILE* out) {
  if (Status lib = libfabric_status(); !lib.ok()) return Status::failed(lib.message());
  std::vector<DomainInfo> all = list_domains("");
  if (all.empty()) return Status::failed("no libfabric providers found");
  std::fprintf(out, "%-16s %-14s %-10s %s\n", "provider", "endpoints", "domain", "fabric");
  for (const DomainInfo& d : all) {
    std::fprintf(out, "%-16s %-14s %-10s %s\n", d.provider.c_str(), d.endpoints.c_str(),
                 d.domain.c_str(), d.fabric.c_str());
  }
  std::fprintf(out,
               "(-P/--provider and --domain take these names; msg endpoints run the\n"
               " rc_* tests, rdm the rdm_* tests and fab_* tools, dgram the ud_* tests)\n");
  return Status::success();
}

}  // namespace fabperf
