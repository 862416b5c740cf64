// The kernel socket protocols table and opening sockets with a protocol-naming error.
#include "socket/sock_protocol.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>

#include <vector>

namespace fabperf {

namespace {
constexpr int kAfInetSdp = 27;   // AF_INET_SDP: not in glibc headers
constexpr int kAfRds = 21;       // AF_RDS
constexpr int kSctpNodelay = 3;  // SCTP_NODELAY (linux/sctp.h; 1 there is SCTP_ASSOCINFO)

const std::vector<SocketProtocol>& protocols() {
  static const std::vector<SocketProtocol> table = {
      {"tcp", "TCP", 0, SOCK_STREAM, IPPROTO_TCP, true, true, true, TCP_NODELAY, ""},
      {"udp", "UDP", 0, SOCK_DGRAM, IPPROTO_UDP, false, false, false, 0, ""},
      {"sctp", "SCTP", 0, SOCK_STREAM, IPPROTO_SCTP, true, true, true, kSctpNodelay,
       "load the kernel's sctp module (modprobe sctp)"},
      {"sdp", "SDP", kAfInetSdp, SOCK_STREAM, 0, true, true, true, 0,
       "SDP needs an out-of-tree kernel module (OFED's ib_sdp) and InfiniBand"},
      {"rds", "RDS", kAfRds, SOCK_SEQPACKET, 0, false, false, true, 0,
       "load the kernel's rds and rds_tcp (or rds_rdma) modules"},
  };
  return table;
}
}  // namespace

const SocketProtocol* find_socket_protocol(const std::string& name) {
  for (const SocketProtocol& p : protocols()) {
    if (name == p.name) return &p;
  }
  return nullptr;
}

Result<Fd> open_protocol_socket(const SocketProtocol& proto, int family) {
  int fam = proto.family_override != 0 ? proto.family_override : family;
  Fd fd(socket(fam, proto.type | SOCK_CLOEXEC, proto.protocol));
  if (fd.valid()) return fd;
  int err = errno;
  std::string msg = std::string(proto.display) + " is not available on this host: socket(" +
                    (proto.family_override == kAfInetSdp ? "AF_INET_SDP"
                     : proto.family_override == kAfRds   ? "AF_RDS"
                     : family == AF_INET6                ? "AF_INET6"
                                                         : "AF_INET") +
                    "): " + strerror(err);
  if (proto.hint[0] != '\0') msg += " (" + std::string(proto.hint) + ")";
  if (err == EAFNOSUPPORT || err == EPROTONOSUPPORT || err == ESOCKTNOSUPPORT ||
      err == EPFNOSUPPORT) {
    return Status::unsupported(msg);
  }
  return Status::failed(msg);
}

SockAddr protocol_address(const SocketProtocol& proto, const SockAddr& ip) {
  SockAddr out = ip;
  if (proto.family_override != 0) {
    // SDP and RDS address IPv4 peers with a sockaddr_in whose family is AF_INET.
    auto* a4 = reinterpret_cast<sockaddr_in*>(&out.storage);
    a4->sin_family = AF_INET;
    out.len = sizeof(sockaddr_in);
  }
  return out;
}

}  // namespace fabperf
