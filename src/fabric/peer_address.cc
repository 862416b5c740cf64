// Decoding endpoint names by address format, and the fabric peer check built on it.
#include "fabric/peer_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <rdma/fabric.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstring>

#include "fabric/address_codec.h"

namespace fabperf {

namespace {

constexpr std::string_view kShmPrefix = "fi_shm://";
constexpr size_t kMaxShownBytes = 32;  // of an opaque name, in messages

bool provider_has(std::string_view provider, std::string_view component) {
  while (!provider.empty()) {
    size_t end = provider.find(';');
    if (provider.substr(0, end) == component) return true;
    if (end == std::string_view::npos) break;
    provider.remove_prefix(end + 1);
  }
  return false;
}

Status malformed(uint32_t format, const std::string& why) {
  return Status::failed("malformed " + addr_format_name(format) + " address: " + why);
}

// A decimal number made of digits only (no sign, no spaces), at most `max`.
bool parse_decimal(std::string_view text, uint64_t max, uint64_t* out) {
  if (text.empty() || text.size() > 19) return false;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value > max) return false;
  *out = value;
  return true;
}

// "PID:UID:INDEX" after the optional "fi_shm://": what shm's endpoints call themselves when
// no name was chosen for them (libfabric 1.17 smr_endpoint_name). shm opens /dev/shm/ + that.
bool parse_shm_name(std::string_view text, pid_t* pid, uid_t* uid) {
  if (text.substr(0, kShmPrefix.size()) == kShmPrefix) text.remove_prefix(kShmPrefix.size());
  uint64_t parts[3];
  for (int i = 0; i < 3; ++i) {
    size_t colon = i < 2 ? text.find(':') : text.size();
    if (colon == std::string_view::npos) return false;
    if (!parse_decimal(text.substr(0, colon), 0x7fffffff, &parts[i])) return false;
    text.remove_prefix(i < 2 ? colon + 1 : colon);
  }
  if (parts[0] == 0) return false;
  *pid = static_cast<pid_t>(parts[0]);
  *uid = static_cast<uid_t>(parts[1]);
  return true;
}

// One IP socket address of `family` from its text form "A.B.C.D:PORT" / "[ADDR]:PORT".
bool parse_ip_text(std::string_view text, int family, SockAddr* out) {
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) return false;
  std::string host(text.substr(0, colon));
  uint64_t port = 0;
  if (!parse_decimal(text.substr(colon + 1), 65535, &port)) return false;
  if (family == AF_INET6) {
    if (host.size() < 2 || host.front() != '[' || host.back() != ']') return false;
    host = host.substr(1, host.size() - 2);
  }
  *out = SockAddr{};
  void* dst = family == AF_INET
                  ? static_cast<void*>(&reinterpret_cast<sockaddr_in*>(&out->storage)->sin_addr)
                  : static_cast<void*>(&reinterpret_cast<sockaddr_in6*>(&out->storage)->sin6_addr);
  if (inet_pton(family, host.c_str(), dst) != 1) return false;
  out->storage.ss_family = static_cast<sa_family_t>(family);
  out->len = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
  out->set_port(static_cast<uint16_t>(port));
  return true;
}

// FI_SOCKADDR*: one or more socket addresses back to back (ofi_mrail joins its rails' names),
// each of a family the format allows. All of them are returned: each must pass the check.
Result<std::vector<SockAddr>> decode_sockaddrs(uint32_t format, const std::vector<uint8_t>& name) {
  std::vector<SockAddr> out;
  size_t at = 0;
  while (at < name.size() || out.empty()) {
    sa_family_t family = 0;
    if (name.size() - at < sizeof family) {
      return malformed(format, std::to_string(name.size()) + " bytes hold no socket address");
    }
    std::memcpy(&family, name.data() + at, sizeof family);
    bool allowed = (family == AF_INET && format != FI_SOCKADDR_IN6) ||
                   (family == AF_INET6 && format != FI_SOCKADDR_IN);
    if (!allowed) {
      return malformed(
          format, "address family " + std::to_string(family) + " at byte " + std::to_string(at));
    }
    size_t size = family == AF_INET ? sizeof(sockaddr_in) : sizeof(sockaddr_in6);
    if (name.size() - at < size) {
      return malformed(format, "a " +
                                   std::string(family == AF_INET ? "sockaddr_in" : "sockaddr_in6") +
                                   " needs " + std::to_string(size) + " bytes, " +
                                   std::to_string(name.size() - at) + " given");
    }
    SockAddr addr;
    std::memcpy(&addr.storage, name.data() + at, size);
    addr.len = static_cast<socklen_t>(size);
    out.push_back(addr);
    at += size;
  }
  return out;
}

// What an opaque name shows in a message: its format, cxi's fields, and its first bytes.
std::string describe_opaque(uint32_t format, const std::vector<uint8_t>& name) {
  std::string text = addr_format_name(format);
  if (format == FI_ADDR_CXI && name.size() >= 6) {
    // struct cxip_addr: pid (9 bits), NIC (20 bits), pad (3); then a 16-bit VNI.
    uint32_t word = 0;
    uint16_t vni = 0;
    std::memcpy(&word, name.data(), 4);
    std::memcpy(&vni, name.data() + 4, 2);
    char fields[64];
    std::snprintf(fields, sizeof fields, " NIC 0x%05x pid %u VNI %u", (word >> 9) & 0xfffff,
                  word & 0x1ff, vni);
    text += fields;
  }
  size_t shown = std::min(name.size(), kMaxShownBytes);
  text += " " + hex_encode(name.data(), shown) + (shown < name.size() ? "..." : "") + " (" +
          std::to_string(name.size()) + " bytes)";
  return text;
}

Status refuse(std::string_view provider, const std::string& why) {
  return Status::failed("fabric peer check: provider " + std::string(provider) + ": " + why);
}

bool same_ip(const SockAddr& addr, const ControlPeer& peer) {
  if (addr.host() != peer.host) return false;
  if (addr.family() != AF_INET6) return true;
  // A link-local address means one host only on one link.
  uint32_t scope = reinterpret_cast<const sockaddr_in6*>(&addr.storage)->sin6_scope_id;
  return scope == 0 || peer.scope_id == 0 || scope == peer.scope_id;
}

}  // namespace

std::string addr_format_name(uint32_t addr_format) {
  static const char* const kNames[] = {
      "FI_FORMAT_UNSPEC", "FI_SOCKADDR",   "FI_SOCKADDR_IN", "FI_SOCKADDR_IN6",
      "FI_SOCKADDR_IB",   "FI_ADDR_PSMX",  "FI_ADDR_GNI",    "FI_ADDR_BGQ",
      "FI_ADDR_MLX",      "FI_ADDR_STR",   "FI_ADDR_PSMX2",  "FI_ADDR_IB_UD",
      "FI_ADDR_EFA",      "FI_ADDR_PSMX3", "FI_ADDR_OPX",    "FI_ADDR_CXI"};
  if (addr_format < sizeof kNames / sizeof kNames[0]) return kNames[addr_format];
  return "address format " + std::to_string(addr_format);
}

Result<FabricAddress> decode_fabric_address(uint32_t addr_format, std::string_view provider,
                                            const std::vector<uint8_t>& name) {
  FabricAddress out;
  out.format = addr_format_name(addr_format);
  const bool shm = provider_has(provider, "shm");
  if (addr_format == FI_SOCKADDR || addr_format == FI_SOCKADDR_IN ||
      addr_format == FI_SOCKADDR_IN6) {
    auto addrs = decode_sockaddrs(addr_format, name);
    if (!addrs.ok()) return addrs.status();
    out.kind = FabricAddressKind::kIp;
    out.ips = std::move(*addrs);
    for (const SockAddr& addr : out.ips)
      out.text += (out.text.empty() ? "" : ", ") + addr.to_string();
    return out;
  }
  if (addr_format == FI_ADDR_STR || shm) {
    if (name.empty() || name.back() != '\0' ||
        std::find(name.begin(), name.end() - 1, '\0') != name.end() - 1) {
      return malformed(addr_format, "not one NUL-terminated string");
    }
    std::string_view text(reinterpret_cast<const char*>(name.data()), name.size() - 1);
    out.text = std::string(text.substr(0, 128));
    if (shm || text.substr(0, kShmPrefix.size()) == kShmPrefix) {
      if (!parse_shm_name(text, &out.pid, &out.uid)) {
        return malformed(addr_format, "\"" + out.text + "\" is not a shm name PID:UID:INDEX");
      }
      out.kind = FabricAddressKind::kShm;
      return out;
    }
    for (auto [prefix, family] : {std::pair{std::string_view("fi_sockaddr_in://"), AF_INET},
                                  {std::string_view("fi_sockaddr_in6://"), AF_INET6}}) {
      if (text.substr(0, prefix.size()) != prefix) continue;
      SockAddr addr;
      if (!parse_ip_text(text.substr(prefix.size()), family, &addr)) {
        return malformed(addr_format, "\"" + out.text + "\" is not an IP address and port");
      }
      out.kind = FabricAddressKind::kIp;
      out.ips.push_back(addr);
      return out;
    }
    out.kind = FabricAddressKind::kFabricOnly;
    return out;
  }
  if (name.empty()) return malformed(addr_format, "empty");
  out.kind = FabricAddressKind::kFabricOnly;
  out.text = describe_opaque(addr_format, name);
  return out;
}

Status check_fabric_peer(uint32_t addr_format, std::string_view provider,
                         const std::vector<uint8_t>& name, const ControlPeer& peer,
                         bool trust_fabric_only) {
  auto address = decode_fabric_address(addr_format, provider, name);
  if (!address.ok()) {
    return refuse(provider, "refused the address the control connection's peer " + peer.host +
                                " gave: " + address.status().message());
  }
  switch (address->kind) {
    case FabricAddressKind::kIp:
      for (const SockAddr& addr : address->ips) {
        if (same_ip(addr, peer)) continue;
        return refuse(provider, "address " + addr.to_string() +
                                    " is not the control connection's peer " + peer.host +
                                    "; test data goes only to the host the control connection "
                                    "comes from");
      }
      return Status::success();
    case FabricAddressKind::kShm: {
      auto pids = peer.processes();
      if (!pids.ok()) {
        return refuse(provider, address->text + " names process " + std::to_string(address->pid) +
                                    " on this host, but the control connection's peer " +
                                    peer.host + " is not a process this side can identify (" +
                                    pids.status().message() +
                                    "); shm is only for a peer on this host");
      }
      if (std::find(pids->begin(), pids->end(), address->pid) == pids->end()) {
        return refuse(provider, address->text + " names process " + std::to_string(address->pid) +
                                    ", but the control connection's peer is " +
                                    peer.describe(*pids) +
                                    "; shm goes only to the peer's own process");
      }
      // Each side opens the other's region, which its owner created mode 600: only two
      // processes of one user can talk (root too cannot be reached by another user). Said
      // here, before fi_av_insert fails with a bare EINVAL.
      if (address->uid != geteuid()) {
        return refuse(provider, "the peer's shm region belongs to uid " +
                                    std::to_string(address->uid) + " and this side runs as uid " +
                                    std::to_string(geteuid()) +
                                    "; shm regions are mode 600, so both sides must be one user "
                                    "(a root server runs each session as its local client's user "
                                    "unless --run_as names another)");
      }
      return Status::success();
    }
    case FabricAddressKind::kFabricOnly: {
      if (trust_fabric_only) return Status::success();
      // A process asking itself (--loopback, fab_loopback_bw) names its own endpoint.
      auto pids = peer.processes();
      if (pids.ok() && std::find(pids->begin(), pids->end(), peer.self_pid) != pids->end()) {
        return Status::success();
      }
      return refuse(
          provider,
          address->text + " cannot be tied to the control connection's peer " + peer.host +
              "; a server accepts such addresses only when started with "
              "--trust_fabric_addrs (fab_* servers: --trust-fabric-addrs; docs/security.md, "
              "\"Fabric peers\")");
    }
  }
  return Status::success();
}

namespace {
const char* provider_of(const fi_info& info) {
  return info.fabric_attr != nullptr && info.fabric_attr->prov_name != nullptr
             ? info.fabric_attr->prov_name
             : "?";
}
}  // namespace

Status check_fabric_peer(const fi_info& info, const std::vector<uint8_t>& name,
                         const ControlPeer& peer, Role self) {
  bool trust = self == Role::kClient || peer.trust_fabric_only;
  return check_fabric_peer(info.addr_format, provider_of(info), name, peer, trust);
}

Status check_connection_request(const fi_info& connreq, std::string_view provider,
                                const ControlPeer& peer) {
  if (connreq.dest_addr == nullptr || connreq.dest_addrlen == 0) {
    return refuse(provider,
                  "a connection request whose source the provider does not give; only the "
                  "control connection's peer " +
                      peer.host + " may connect");
  }
  const auto* bytes = static_cast<const uint8_t*>(connreq.dest_addr);
  std::vector<uint8_t> source(bytes, bytes + connreq.dest_addrlen);
  return check_fabric_peer(connreq.addr_format, provider, source, peer, peer.trust_fabric_only);
}

}  // namespace fabperf
