// fab_stat: cxi_stat's layout for every libfabric domain (device, driver, PCI, link), with
// -l (names only), -m (MACs), -a (PCIe AER counters) and -r (rates where counters exist).
#include <time.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "cxi/cxi_main.h"
#include "fabric/fabric_list.h"
#include "fabric/libfabric_loader.h"

namespace fabperf::cxi {

namespace {

std::string read_line(const std::string& path) {
  std::ifstream in(path);
  std::string s;
  std::getline(in, s);
  return s;
}

// IP providers name their domains after network interfaces; sysfs knows those.
std::string net_dir(const DomainInfo& d) {
  std::string dir = "/sys/class/net/" + d.domain;
  std::ifstream probe(dir + "/mtu");
  return probe ? dir : "";
}

std::string pci_of(const DomainInfo& d, const std::string& net) {
  if (!d.pci.empty()) return d.pci;
  if (net.empty()) return "";
  char buf[512];
  ssize_t n = readlink((net + "/device").c_str(), buf, sizeof buf - 1);
  if (n <= 0) return "";
  std::string target(buf, static_cast<size_t>(n));
  return target.substr(target.find_last_of('/') + 1);
}

std::string or_na(const std::string& s) { return s.empty() ? "N/A" : s; }

std::string speed_text(const DomainInfo& d, const std::string& net) {
  if (d.link_speed > 0) return std::to_string(d.link_speed / 1000000) + " Mb/s";
  std::string mbps = net.empty() ? "" : read_line(net + "/speed");
  if (mbps.empty() || mbps[0] == '-') return "N/A";
  return mbps + " Mb/s";
}

void print_device(const DomainInfo& d, const ProgramOptions& o) {
  std::string net = net_dir(d);
  std::string pci = pci_of(d, net);
  std::string pci_dir = pci.empty() ? "" : "/sys/bus/pci/devices/" + pci;
  std::printf("Device: %s\n", d.domain.c_str());
  std::printf("    Description: %s provider %s, fabric %s\n", d.provider.c_str(),
              d.provider_version.c_str(), d.fabric.c_str());
  std::string driver = d.driver;
  if (driver.empty() && !net.empty()) {
    char buf[512];
    ssize_t n = readlink((net + "/device/driver").c_str(), buf, sizeof buf - 1);
    if (n > 0) {
      std::string t(buf, static_cast<size_t>(n));
      driver = t.substr(t.find_last_of('/') + 1);
    }
  }
  std::printf("    Driver: %s\n", or_na(driver).c_str());
  std::printf("    FW Version: %s\n", or_na(d.firmware).c_str());
  std::printf("    Network device: %s\n", net.empty() ? "N/A" : d.domain.c_str());
  std::string mac = net.empty() ? d.link_address : read_line(net + "/address");
  std::printf("    MAC: %s\n", or_na(mac).c_str());
  std::string width = pci_dir.empty() ? "" : read_line(pci_dir + "/current_link_width");
  std::string gts = pci_dir.empty() ? "" : read_line(pci_dir + "/current_link_speed");
  std::printf("    PCIE speed/width: %s\n",
              gts.empty() ? "N/A" : (gts + " x" + width).c_str());
  std::printf("    PCIE slot: %s\n", or_na(pci).c_str());
  uint64_t mtu = d.mtu;
  if (mtu == 0 && !net.empty()) mtu = std::strtoull(read_line(net + "/mtu").c_str(), nullptr, 10);
  std::printf("        Link MTU: %s\n", mtu ? std::to_string(mtu).c_str() : "N/A");
  std::printf("        Link speed: %s\n", speed_text(d, net).c_str());
  std::string state = !net.empty() ? read_line(net + "/operstate") : d.link_state;
  std::printf("        Link state: %s\n", or_na(state).c_str());
  if (o.aer) {
    for (const char* kind : {"correctable", "nonfatal", "fatal"}) {
      std::string file = pci_dir.empty() ? "" : pci_dir + "/aer_dev_" + kind;
      std::ifstream in(file);
      std::string line;
      uint64_t total = 0;
      bool any = false;
      while (in && std::getline(in, line)) {
        if (line.rfind("TOTAL_", 0) == 0) {
          total = std::strtoull(line.substr(line.find(' ') + 1).c_str(), nullptr, 10);
          any = true;
        }
      }
      std::printf("    AER %s: %s\n", kind, any ? std::to_string(total).c_str() : "N/A");
    }
  }
}

struct Counters {
  uint64_t rx_bytes = 0, tx_bytes = 0, rx_packets = 0, tx_packets = 0;
};

Counters sample(const std::string& net) {
  auto get = [&](const char* f) {
    return std::strtoull(read_line(net + "/statistics/" + f).c_str(), nullptr, 10);
  };
  return {get("rx_bytes"), get("tx_bytes"), get("rx_packets"), get("tx_packets")};
}

}  // namespace

int run_stat(const Tool&, const CommandLine& cl) {
  const ProgramOptions& o = cl.program;
  RunOptions own = resolve_own_run_options(cl.assignments, Dialect::kCxi);
  if (Status lib = libfabric_status(); !lib.ok()) {
    std::fprintf(stderr, "%s\n", lib.message().c_str());
    return 1;
  }
  std::vector<DomainInfo> all = list_domains(own.provider);
  std::vector<DomainInfo> shown;
  for (const DomainInfo& d : all) {
    if (own.domain.empty() || d.domain == own.domain) shown.push_back(d);
  }
  if (shown.empty()) {
    std::fprintf(stderr, "%s\n", own.domain.empty()
                                     ? "No libfabric devices found"
                                     : ("Device " + own.domain + " not found").c_str());
    return 1;
  }
  if (o.list) {
    for (const DomainInfo& d : shown) std::printf("%s (%s)\n", d.domain.c_str(), d.provider.c_str());
    return 0;
  }
  if (o.mac_list) {
    for (const DomainInfo& d : shown) {
      std::string net = net_dir(d);
      std::string mac = net.empty() ? d.link_address : read_line(net + "/address");
      std::printf("%s: %s\n", d.domain.c_str(), or_na(mac).c_str());
    }
    return 0;
  }
  for (const DomainInfo& d : shown) print_device(d, o);
  if (o.rates) {
    // One sample per interface, however many providers share it.
    std::vector<std::pair<std::string, Counters>> before;
    for (const DomainInfo& d : shown) {
      std::string net = net_dir(d);
      bool seen = false;
      for (auto& [n, c] : before) seen = seen || n == net;
      if (!net.empty() && !seen) before.push_back({net, sample(net)});
    }
    if (before.empty()) {
      std::printf("Rates: no device here has traffic counters\n");
      return 0;
    }
    timespec ts{static_cast<time_t>(o.pause), static_cast<long>((o.pause - static_cast<time_t>(o.pause)) * 1e9)};
    nanosleep(&ts, nullptr);
    for (auto& [net, c0] : before) {
      Counters c1 = sample(net);
      double s = o.pause;
      std::printf("%s rates over %g s:\n", net.substr(net.find_last_of('/') + 1).c_str(), s);
      std::printf("    RX: %.2f MB/s  %.0f pkt/s\n", (c1.rx_bytes - c0.rx_bytes) / s / 1e6,
                  (c1.rx_packets - c0.rx_packets) / s);
      std::printf("    TX: %.2f MB/s  %.0f pkt/s\n", (c1.tx_bytes - c0.tx_bytes) / s / 1e6,
                  (c1.tx_packets - c0.tx_packets) / s);
    }
  }
  return 0;
}

}  // namespace fabperf::cxi
