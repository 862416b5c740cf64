// Finding the local process at the other end of a TCP connection through /proc.
#include "net/peer_process.h"

#include <dirent.h>
#include <netinet/in.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace fabperf {

namespace {

// A hex field of /proc/net/tcp: digits only, at most 8 (one 32-bit word).
bool parse_hex_u32(std::string_view text, uint32_t* out) {
  if (text.empty() || text.size() > 8) return false;
  uint32_t value = 0;
  for (char c : text) {
    int digit = (c >= '0' && c <= '9')   ? c - '0'
                : (c >= 'A' && c <= 'F') ? c - 'A' + 10
                : (c >= 'a' && c <= 'f') ? c - 'a' + 10
                                         : -1;
    if (digit < 0) return false;
    value = value << 4 | static_cast<uint32_t>(digit);
  }
  *out = value;
  return true;
}

// "0100007F:1F90" (IPv4) or 32 hex digits and a port (IPv6). The kernel prints each 32-bit word
// of the address as a number in host byte order, so each word's bytes go back as they were.
bool parse_endpoint(std::string_view text, int family, SockAddr* out) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  std::string_view addr = text.substr(0, colon);
  uint32_t port = 0;
  if (!parse_hex_u32(text.substr(colon + 1), &port) || port > 0xffff) return false;
  size_t words = family == AF_INET ? 1 : 4;
  if (addr.size() != words * 8) return false;
  uint8_t bytes[16];
  for (size_t w = 0; w < words; ++w) {
    uint32_t word = 0;
    if (!parse_hex_u32(addr.substr(w * 8, 8), &word)) return false;
    std::memcpy(bytes + 4 * w, &word, 4);
  }
  *out = SockAddr{};
  if (family == AF_INET) {
    auto* a = reinterpret_cast<sockaddr_in*>(&out->storage);
    a->sin_family = AF_INET;
    std::memcpy(&a->sin_addr, bytes, 4);
    out->len = sizeof(sockaddr_in);
  } else {
    auto* a = reinterpret_cast<sockaddr_in6*>(&out->storage);
    a->sin6_family = AF_INET6;
    std::memcpy(&a->sin6_addr, bytes, 16);
    out->len = sizeof(sockaddr_in6);
  }
  out->set_port(static_cast<uint16_t>(port));
  return true;
}

std::string read_whole(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

bool all_digits(const char* s) {
  if (*s == '\0') return false;
  for (; *s != '\0'; ++s) {
    if (*s < '0' || *s > '9') return false;
  }
  return true;
}

}  // namespace

std::vector<TcpSocketRow> parse_proc_net_tcp(std::string_view text, int family) {
  std::vector<TcpSocketRow> rows;
  std::istringstream lines{std::string(text)};
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) {
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
    std::istringstream fields(line);
    std::string sl, local, remote, state, queues, timer, retransmits, uid, timeout, inode;
    if (!(fields >> sl >> local >> remote >> state >> queues >> timer >> retransmits >> uid >>
          timeout >> inode)) {
      continue;
    }
    TcpSocketRow row;
    if (!parse_endpoint(local, family, &row.local) ||
        !parse_endpoint(remote, family, &row.remote) || !all_digits(inode.c_str())) {
      continue;
    }
    row.inode = std::strtoull(inode.c_str(), nullptr, 10);
    rows.push_back(row);
  }
  return rows;
}

bool same_endpoint(const SockAddr& a, const SockAddr& b) {
  return a.port() == b.port() && a.host() == b.host();
}

std::vector<pid_t> processes_holding_socket(uint64_t inode, int* unreadable,
                                            const std::string& proc_root) {
  const std::string wanted = "socket:[" + std::to_string(inode) + "]";
  std::vector<pid_t> pids;
  int closed = 0;
  DIR* proc = opendir(proc_root.c_str());
  if (proc == nullptr) return pids;
  while (dirent* entry = readdir(proc)) {
    if (!all_digits(entry->d_name)) continue;
    std::string fd_dir = proc_root + "/" + entry->d_name + "/fd";
    DIR* fds = opendir(fd_dir.c_str());
    if (fds == nullptr) {
      if (errno == EACCES || errno == EPERM) ++closed;
      continue;  // otherwise the process exited meanwhile
    }
    bool holds = false;
    while (dirent* fd = readdir(fds)) {
      if (!all_digits(fd->d_name)) continue;
      char target[64];
      ssize_t n = readlinkat(dirfd(fds), fd->d_name, target, sizeof target - 1);
      if (n <= 0) continue;
      target[n] = '\0';
      if (wanted == target) {
        holds = true;
        break;
      }
    }
    closedir(fds);
    if (holds) pids.push_back(static_cast<pid_t>(std::strtol(entry->d_name, nullptr, 10)));
  }
  closedir(proc);
  std::sort(pids.begin(), pids.end());
  if (unreadable != nullptr) *unreadable = closed;
  return pids;
}

Result<uid_t> process_uid(pid_t pid, const std::string& proc_root) {
  std::ifstream status(proc_root + "/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Uid:", 0) != 0) continue;
    std::istringstream fields(line.substr(4));
    unsigned long real = 0, effective = 0;
    if (fields >> real >> effective) return static_cast<uid_t>(effective);
    break;
  }
  return Status::failed("cannot read the uid of process " + std::to_string(pid));
}

char process_state(pid_t pid, const std::string& proc_root) {
  std::ifstream stat(proc_root + "/" + std::to_string(pid) + "/stat");
  std::string text;
  std::getline(stat, text);
  // "PID (comm) S ...": the command may hold spaces and parentheses; the state follows the
  // last ')'.
  size_t close = text.rfind(')');
  if (close == std::string::npos || close + 2 >= text.size()) return 0;
  return text[close + 2];
}

Result<std::vector<pid_t>> peer_processes(int fd) {
  struct stat own {};
  if (fstat(fd, &own) != 0 || !S_ISSOCK(own.st_mode)) {
    return Status::failed("the control connection is not a socket");
  }
  SockAddr mine = local_address(fd);
  SockAddr peer = peer_address(fd);
  if (peer.family() != AF_INET && peer.family() != AF_INET6) {
    return Status::failed("the control connection has no IP peer");
  }
  // The peer's socket has our ends swapped. Both tables are read: an IPv4 client of a
  // dual-stack listener is in tcp, the listener's side in tcp6.
  std::vector<uint64_t> inodes;
  for (auto [path, family] : {std::pair{"/proc/net/tcp", AF_INET}, {"/proc/net/tcp6", AF_INET6}}) {
    for (const TcpSocketRow& row : parse_proc_net_tcp(read_whole(path), family)) {
      if (row.inode == 0 || row.inode == own.st_ino) continue;
      if (same_endpoint(row.local, peer) && same_endpoint(row.remote, mine)) {
        inodes.push_back(row.inode);
      }
    }
  }
  if (inodes.empty()) {
    return Status::failed(peer.to_string() +
                          " is not a socket on this host (the peer runs on another host or in "
                          "another network namespace)");
  }
  std::vector<pid_t> pids;
  int unreadable = 0;
  for (uint64_t inode : inodes) {
    int closed = 0;
    for (pid_t pid : processes_holding_socket(inode, &closed)) pids.push_back(pid);
    unreadable = std::max(unreadable, closed);
  }
  std::sort(pids.begin(), pids.end());
  pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
  if (pids.empty()) {
    return Status::failed("no process this side may inspect holds " + peer.to_string() + " (" +
                          std::to_string(unreadable) +
                          " processes' descriptors are unreadable: another user's process?)");
  }
  return pids;
}

ControlPeer ControlPeer::of_connection(int fd) {
  ControlPeer peer;
  SockAddr addr = peer_address(fd);
  peer.host = addr.host();
  if (addr.family() == AF_INET6) {
    peer.scope_id = reinterpret_cast<const sockaddr_in6*>(&addr.storage)->sin6_scope_id;
  }
  peer.fd = fd;
  peer.self_pid = getpid();
  return peer;
}

ControlPeer ControlPeer::resolved(int fd, bool trust_fabric_only) {
  ControlPeer peer = of_connection(fd);
  peer.trust_fabric_only = trust_fabric_only;
  auto found = peer_processes(fd);
  peer.pids = found.ok() ? *found : std::vector<pid_t>{};  // a remote peer has none here
  return peer;
}

nlohmann::json ControlPeer::to_json() const {
  return {{"host", host},
          {"scope_id", scope_id},
          {"pids", pids.value_or(std::vector<pid_t>{})},
          {"self_pid", self_pid},
          {"trust_fabric_only", trust_fabric_only},
          {"sends_heartbeats", sends_heartbeats}};
}

ControlPeer ControlPeer::from_json(const nlohmann::json& j) {
  ControlPeer peer;
  if (!j.is_object()) return peer;
  peer.host = j.value("host", std::string());
  peer.scope_id = j.value("scope_id", uint32_t{0});
  std::vector<pid_t> pids;
  if (auto it = j.find("pids"); it != j.end() && it->is_array()) {
    for (const auto& p : *it) {
      if (p.is_number_integer()) pids.push_back(p.get<pid_t>());
    }
  }
  peer.pids = pids;
  peer.self_pid = j.value("self_pid", pid_t{0});
  peer.trust_fabric_only = j.value("trust_fabric_only", false);
  peer.sends_heartbeats = j.value("sends_heartbeats", false);
  return peer;
}

Result<std::vector<pid_t>> ControlPeer::processes() const {
  if (pids.has_value()) return *pids;
  if (fd < 0) return Status::failed("the control connection's process is unknown");
  return peer_processes(fd);
}

std::string ControlPeer::describe(const std::vector<pid_t>& known) const {
  if (known.empty()) return host;
  std::string text = host + " (process";
  if (known.size() > 1) text += "es";
  for (size_t i = 0; i < known.size(); ++i)
    text += (i == 0 ? " " : ", ") + std::to_string(known[i]);
  return text + ")";
}

}  // namespace fabperf
