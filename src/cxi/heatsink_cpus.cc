// fab_heatsink_check's CPUs: -c lists, and the cores the original pins its writers to
// without -c (get_proc_affinities), found in sysfs ($FABPERF_SYSFS_ROOT).
#include <sched.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "cxi/heatsink.h"
#include "cxi/sysfs.h"

namespace fabperf::cxi {

namespace {

// The first integer of a sysfs file ("0-3,8" gives 0), or -1.
int first_int(const std::string& path) {
  std::string text = read_line(path);
  if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return -1;
  return std::atoi(text.c_str());
}

// The NUMA nodes on the package (socket) of `node`, by their first CPU's package id, in
// number order; nodes without CPUs left out.
std::vector<int> socket_nodes(int node) {
  const std::string nodes = sysfs_root() + "/devices/system/node/";
  const std::string cpus = sysfs_root() + "/devices/system/cpu/cpu";
  auto package_of = [&](int n) {
    int cpu = first_int(nodes + "node" + std::to_string(n) + "/cpulist");
    return cpu < 0 ? -1 : first_int(cpus + std::to_string(cpu) + "/topology/physical_package_id");
  };
  const int package = package_of(node);
  std::vector<int> out;
  if (package < 0) return out;
  for (const std::string& entry : list_dir(nodes)) {
    if (entry.rfind("node", 0) != 0 || entry.size() == 4) continue;
    int n = std::atoi(entry.c_str() + 4);
    if (package_of(n) == package) out.push_back(n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// A node's cores: its CPUs, each the first thread of its core (thread_siblings_list).
std::vector<int> node_cores(int node) {
  const std::string cpus = sysfs_root() + "/devices/system/cpu/cpu";
  auto listed = parse_cpu_list(
      read_line(sysfs_root() + "/devices/system/node/node" + std::to_string(node) + "/cpulist"));
  std::vector<int> out;
  if (!listed.ok()) return out;
  for (int cpu : *listed) {
    int first = first_int(cpus + std::to_string(cpu) + "/topology/thread_siblings_list");
    if (first < 0 || first == cpu) out.push_back(cpu);
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

Result<std::vector<int>> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  auto bad = [&] { return Status::usage("Invalid CPU list: " + text); };
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part =
        text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t dash = part.find('-');
    std::string a = part.substr(0, dash), b = dash == std::string::npos ? a : part.substr(dash + 1);
    auto digits = [](const std::string& s) {
      return !s.empty() && s.size() < 6 && std::all_of(s.begin(), s.end(), ::isdigit);
    };
    if (!digits(a) || !digits(b)) return bad();
    int lo = std::atoi(a.c_str()), hi = std::atoi(b.c_str());
    if (lo > hi || hi >= CPU_SETSIZE) return bad();
    for (int c = lo; c <= hi; ++c) {
      if (std::find(cpus.begin(), cpus.end(), c) == cpus.end()) cpus.push_back(c);
    }
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  if (cpus.empty()) return bad();
  return cpus;
}

std::string cpu_list_text(std::vector<int> cpus) {
  std::sort(cpus.begin(), cpus.end());
  std::string out;
  for (size_t i = 0; i < cpus.size();) {
    size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ",";
    out += std::to_string(cpus[i]);
    if (j > i) out += "-" + std::to_string(cpus[j]);
    i = j + 1;
  }
  return out;
}

std::vector<int> numa_cpus(const std::string& dev_dir, const std::string& device, uint64_t procs) {
  const int node = dev_dir.empty() ? -1 : first_int(dev_dir + "/numa_node");
  if (node < 0) return {};
  const std::vector<int> nodes = socket_nodes(node);
  std::vector<std::vector<int>> cores;
  for (int n : nodes) cores.push_back(node_cores(n));
  // The cxi devices on these nodes share their cores: each takes every k-th, from its place.
  size_t offset = 0, competing = 0;
  const std::string cxi = sysfs_root() + "/class/cxi/";
  for (const std::string& other : list_dir(cxi)) {
    int other_node = first_int(cxi + other + "/device/numa_node");
    if (std::find(nodes.begin(), nodes.end(), other_node) == nodes.end()) continue;
    if (other == device) offset = competing;
    ++competing;
  }
  if (competing == 0) competing = 1;
  std::vector<int> out;
  for (bool assigned = true; out.size() < procs && assigned; offset += competing) {
    assigned = false;
    for (size_t i = 0; i < cores.size() && out.size() < procs; ++i) {
      if (offset < cores[i].size()) {
        out.push_back(cores[i][offset]);
        assigned = true;
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace fabperf::cxi
