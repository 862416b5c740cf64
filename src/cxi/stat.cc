// fab_stat: cxi_stat's layout for the devices libfabric offers (each device once, whatever
// the number of providers on it; the cxi ones alone where there are any, unless --all):
// -l (bare names), -m (bare MACs), the per-device fields from sysfs (cxi's own where the
// device is a cxi NIC), -a (PCIe AER), -r (the link's rates, stat_rates.h) and --traffic
// (RX/TX rates of network devices).
// The sysfs root is $FABPERF_SYSFS_ROOT (default /sys), so tests run over a fake tree.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cxi/cxi_main.h"
#include "cxi/stat_rates.h"
#include "cxi/sysfs.h"
#include "fabric/fabric_list.h"
#include "fabric/libfabric_loader.h"

namespace fabperf::cxi {

namespace {

// One device as fab_stat shows it: a libfabric domain name and the providers offering it.
struct Device {
  std::string name;
  std::vector<DomainInfo> offers;  // first: the provider fi_getinfo prefers
  std::string cxi_dir;             // <sysfs>/class/cxi/NAME/device, when it is a cxi NIC
  std::string dev_dir;             // its sysfs device directory (canonical), "" for lo/shm
  std::string netdev;              // its network interface ("" when none)
  std::string pci;                 // PCI slot
};

std::string or_na(const std::string& s) { return s.empty() ? "N/A" : s; }

bool exists(const std::string& path) { return !real_path(path).empty(); }

// The network interface of a device: itself when it is one; for a cxi NIC the interface on
// the same PCI function (cxi_stat finds hsn0 for cxi0 so).
std::string find_netdev(const Device& d) {
  const std::string net = sysfs_root() + "/class/net/";
  if (exists(net + d.name)) return d.name;
  if (d.pci.empty()) return "";
  for (const std::string& n : list_dir(net)) {
    if (link_name(net + n + "/device") == d.pci) return n;
  }
  return "";
}

std::vector<Device> devices_of(const std::vector<DomainInfo>& domains) {
  std::vector<Device> out;
  for (const DomainInfo& info : domains) {
    Device* d = nullptr;
    for (Device& e : out) d = e.name == info.domain ? &e : d;
    if (d == nullptr) {
      out.push_back(Device{info.domain, {}, "", "", "", ""});
      d = &out.back();
    }
    d->offers.push_back(info);
    if (d->pci.empty()) d->pci = info.pci;
  }
  const std::string root = sysfs_root();
  for (Device& d : out) {
    if (exists(root + "/class/cxi/" + d.name + "/device")) {
      d.cxi_dir = root + "/class/cxi/" + d.name + "/device";
    }
    d.dev_dir = device_dir(d.name, d.pci);
    if (d.pci.empty() && !d.dev_dir.empty()) {
      // A PCI function's directory is named by its slot (0000:41:00.0); virtio and others
      // are not PCI slots.
      std::string base = d.dev_dir.substr(d.dev_dir.find_last_of('/') + 1);
      if (base.size() == 12 && base[4] == ':' && base[7] == ':' && base[10] == '.') d.pci = base;
      // virtio: the PCI function is the parent directory.
      if (d.pci.empty()) {
        std::string parent = d.dev_dir.substr(0, d.dev_dir.find_last_of('/'));
        std::string pb = parent.substr(parent.find_last_of('/') + 1);
        if (pb.size() == 12 && pb[4] == ':' && pb[7] == ':' && pb[10] == '.') d.pci = pb;
      }
    }
    d.netdev = find_netdev(d);
  }
  return out;
}

// A cxi NIC: offered by the cxi provider, or one the cxi driver lists in sysfs.
bool is_cxi_device(const Device& d) {
  if (!d.cxi_dir.empty()) return true;
  for (const DomainInfo& info : d.offers) {
    if (info.provider == "cxi") return true;
  }
  return false;
}

std::string mac_of(const Device& d) {
  if (!d.netdev.empty()) return read_line(sysfs_root() + "/class/net/" + d.netdev + "/address");
  return d.offers.front().link_address;
}

// The first readable file of `paths` (cxi's sysfs differs between Cassini 1 and 2).
std::string first_line(const std::vector<std::string>& paths) {
  for (const std::string& p : paths) {
    std::ifstream in(p);
    std::string s;
    if (in && std::getline(in, s)) return s;
  }
  return "";
}

std::string pci_dir(const Device& d) {
  if (!d.dev_dir.empty() && exists(d.dev_dir + "/current_link_speed")) return d.dev_dir;
  if (!d.pci.empty()) return sysfs_root() + "/bus/pci/devices/" + d.pci;
  return "";
}

void print_device(const Device& d) {
  const DomainInfo& info = d.offers.front();
  const std::string net = d.netdev.empty() ? "" : sysfs_root() + "/class/net/" + d.netdev;
  const std::string pci = pci_dir(d);
  const bool cxi = !d.cxi_dir.empty();
  const std::string c1 = d.cxi_dir + "/port", c2 = d.cxi_dir + "/port/0";
  std::printf("Device: %s\n", d.name.c_str());
  std::string description = cxi ? read_line(d.cxi_dir + "/fru/description") : "";
  if (description.empty()) {
    description = info.provider + " provider " + info.provider_version + ", fabric " + info.fabric;
    for (size_t i = 1; i < d.offers.size(); ++i) {
      description += (i == 1 ? "; also " : ", ") + d.offers[i].provider;
    }
  }
  std::printf("    Description: %s\n", description.c_str());
  if (cxi) {
    std::printf("    Part Number: %s\n", or_na(read_line(d.cxi_dir + "/fru/part_number")).c_str());
    std::printf("    Serial Number: %s\n",
                or_na(read_line(d.cxi_dir + "/fru/serial_number")).c_str());
  }
  if (!cxi) {
    // (an addition: cxi_stat's layout has no Driver line, and a cxi device shows none)
    std::string driver = info.driver;
    if (driver.empty() && !d.dev_dir.empty()) driver = link_name(d.dev_dir + "/driver");
    std::printf("    Driver: %s\n", or_na(driver).c_str());
  }
  std::string fw = cxi ? read_line(d.cxi_dir + "/uc/qspi_blob_version") : "";
  if (fw.empty()) fw = info.firmware;
  std::printf("    FW Version: %s\n", or_na(fw).c_str());
  std::printf("    Network device: %s\n", or_na(d.netdev).c_str());
  std::printf("    MAC: %s\n", or_na(mac_of(d)).c_str());
  if (cxi) {
    std::string nid = read_line(d.cxi_dir + "/properties/nid");
    char* end = nullptr;
    unsigned long v = std::strtoul(nid.c_str(), &end, 0);
    if (!nid.empty() && end != nullptr && *end == '\0') {
      std::printf("    NID: %lu (0x%05lx)\n", v, v);
    } else {
      std::printf("    NID: N/A\n");
    }
    std::printf("    PID granule: %s\n",
                or_na(read_line(d.cxi_dir + "/properties/pid_granule")).c_str());
  }
  std::string width = pci.empty() ? "" : read_line(pci + "/current_link_width");
  std::string gts = cxi ? read_line(d.cxi_dir + "/properties/current_esm_link_speed") : "";
  if (gts.empty() || gts == "Absent" || gts == "Disabled") {
    gts = pci.empty() ? "" : read_line(pci + "/current_link_speed");
  }
  std::printf("    PCIE speed/width: %s\n", gts.empty() ? "N/A" : (gts + " x" + width).c_str());
  std::printf("    PCIE slot: %s\n", or_na(d.pci).c_str());
  if (cxi) {
    std::printf("        Link layer retry: %s\n",
                or_na(first_line({c2 + "/llr/state", c1 + "/link_layer_retry"})).c_str());
    std::printf("        Link loopback: %s\n",
                or_na(first_line({c2 + "/link/config/loopback", c1 + "/loopback"})).c_str());
    std::printf("        Link media: %s\n",
                or_na(first_line({c2 + "/media/type", c1 + "/media"})).c_str());
  }
  std::string mtu = cxi ? read_line(d.cxi_dir + "/properties/hpc_mtu") : "";
  if (mtu.empty() && !net.empty()) mtu = read_line(net + "/mtu");
  if (mtu.empty() && info.mtu > 0) mtu = std::to_string(info.mtu);
  std::printf("        Link MTU: %s\n", or_na(mtu).c_str());
  std::string speed = cxi ? first_line({c2 + "/link/speed", c1 + "/speed"}) : "";
  if (speed.empty() && !net.empty()) {
    std::string mbps = read_line(net + "/speed");
    if (!mbps.empty() && mbps[0] != '-') speed = mbps + " Mb/s";
  }
  if (speed.empty() && info.link_speed > 0)
    speed = std::to_string(info.link_speed / 1000000) + " Mb/s";
  std::printf("        Link speed: %s\n", or_na(speed).c_str());
  std::string state = cxi ? first_line({c2 + "/link/state", c1 + "/link"}) : "";
  if (state.empty() && !net.empty()) state = read_line(net + "/operstate");
  if (state.empty()) state = info.link_state;
  std::printf("        Link state: %s\n", or_na(state).c_str());
}

// -a: the PCIe AER files as they are, indented (cxi_stat's layout), "No data" without one.
void print_aer(const Device& d) {
  const std::string pci = pci_dir(d);
  for (const auto& [title, file] :
       {std::pair{"CORRECTABLE", "aer_dev_correctable"}, std::pair{"FATAL", "aer_dev_fatal"},
        std::pair{"NONFATAL", "aer_dev_nonfatal"}}) {
    std::printf("    AER %s:\n", title);
    std::ifstream in(pci.empty() ? "" : pci + "/" + file);
    std::string line;
    bool any = false;
    while (in && std::getline(in, line)) {
      std::printf("        %s\n", line.c_str());
      any = true;
    }
    if (!any) std::printf("        No data\n");
  }
}

void sleep_s(double s) {
  timespec ts{static_cast<time_t>(s), static_cast<long>((s - static_cast<time_t>(s)) * 1e9)};
  nanosleep(&ts, nullptr);
}

// -r: cxi_stat's rates, from the second reading of the device's counters.
void print_rates(const Device& d, const LinkCounters& first, double pause) {
  const std::string c1 = d.cxi_dir + "/port", c2 = d.cxi_dir + "/port/0";
  const std::string speed =
      d.cxi_dir.empty() ? "" : first_line({c2 + "/link/speed", c1 + "/speed"});
  const std::string state =
      d.cxi_dir.empty() ? "" : first_line({c2 + "/link/config/pause_map", c1 + "/pause"});
  std::fputs(first.report(LinkCounters::read(d.cxi_dir), pause, speed, state).c_str(), stdout);
}

// --traffic: each network device's byte and packet rates from its netdev statistics.
void print_traffic(const std::vector<Device>& devices, double pause) {
  struct Counters {
    uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
  };
  auto sample = [](const std::string& net) {
    auto get = [&](const char* f) {
      return std::strtoull(read_line(net + "/statistics/" + f).c_str(), nullptr, 10);
    };
    return Counters{get("rx_bytes"), get("tx_bytes"), get("rx_packets"), get("tx_packets")};
  };
  std::vector<std::pair<std::string, Counters>> before;  // each interface once
  for (const Device& d : devices) {
    bool seen = false;
    for (auto& [n, c] : before) seen = seen || n == d.netdev;
    if (!d.netdev.empty() && !seen) {
      before.push_back({d.netdev, sample(sysfs_root() + "/class/net/" + d.netdev)});
    }
  }
  if (before.empty()) {
    std::printf("Traffic: no device here has traffic counters\n");
    return;
  }
  sleep_s(pause);
  for (auto& [netdev, c0] : before) {
    Counters c1 = sample(sysfs_root() + "/class/net/" + netdev);
    std::printf("%s traffic over %g s:\n", netdev.c_str(), pause);
    std::printf("    RX: %.2f MB/s  %.0f pkt/s\n", (c1.rx_bytes - c0.rx_bytes) / pause / 1e6,
                (c1.rx_packets - c0.rx_packets) / pause);
    std::printf("    TX: %.2f MB/s  %.0f pkt/s\n", (c1.tx_bytes - c0.tx_bytes) / pause / 1e6,
                (c1.tx_packets - c0.tx_packets) / pause);
  }
}

}  // namespace

Status run_stat(const Tool&, const Invocation& cl) {
  const ProgramOptions& o = cl.program;
  const RunOptions& own = cl.own;
  if (Status lib = libfabric_status(); !lib.ok()) return Status::failed(lib.message());
  std::vector<DomainInfo> shown_domains;
  for (const DomainInfo& d : list_domains(own.provider)) {
    if (own.domain.empty() || d.domain == own.domain) shown_domains.push_back(d);
  }
  if (shown_domains.empty()) {
    return Status::failed(own.domain.empty() ? "No libfabric devices found"
                                             : "Device " + own.domain + " not found");
  }
  std::vector<Device> devices = devices_of(shown_domains);
  // Where there are cxi devices, they alone (as cxi_stat lists), so scripts looping over
  // fab_stat -l meet no lo, eth0 or shm; --all, --provider or -d show the others.
  const bool any_cxi = std::any_of(devices.begin(), devices.end(), is_cxi_device);
  if (any_cxi && !o.all_devices && own.provider.empty() && own.domain.empty()) {
    devices.erase(std::remove_if(devices.begin(), devices.end(),
                                 [](const Device& d) { return !is_cxi_device(d); }),
                  devices.end());
  }
  if (o.list || o.mac_list) {
    // Bare names or MACs, one a line, as cxi_stat prints them for scripts (a device without
    // a MAC has no line under -m).
    for (const Device& d : devices) {
      std::string text = o.mac_list ? mac_of(d) : d.name;
      if (!text.empty()) std::printf("%s\n", text.c_str());
    }
    return Status::success();
  }
  std::vector<LinkCounters> first;
  if (o.rates) {
    bool any = false;
    for (const Device& d : devices) {
      first.push_back(LinkCounters::read(d.cxi_dir));
      any |= first.back().any();
    }
    if (any) sleep_s(o.pause);
  }
  for (size_t i = 0; i < devices.size(); ++i) {
    print_device(devices[i]);
    if (o.rates) print_rates(devices[i], first[i], o.pause);
    if (o.aer) print_aer(devices[i]);
  }
  if (o.traffic) print_traffic(devices, o.pause);
  return Status::success();
}

}  // namespace fabperf::cxi
