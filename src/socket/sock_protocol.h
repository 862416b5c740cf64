// Kernel socket protocols behind one description with capability flags (TCP, UDP, SCTP, SDP, RDS).
#pragma once

#include <string>

#include "core/status.h"
#include "net/socket.h"

namespace fabperf {

// How one kernel protocol is opened and what it can do; tests check the flags, never names.
struct SocketProtocol {
  const char* name;     // "tcp"
  const char* display;  // "TCP"
  int family_override;  // 0: the control connection's family; else AF_INET_SDP, AF_RDS
  int type;             // SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET
  int protocol;         // IPPROTO_TCP, IPPROTO_SCTP, ...
  bool connected;       // listen/accept/connect, versus addressed datagrams
  bool byte_stream;     // no message boundaries: a message may arrive in pieces
  bool reliable;        // losses are impossible (else counted)
  // setsockopt name, at level `protocol`, of its NODELAY (Nagle off) option: TCP_NODELAY,
  // SCTP_NODELAY; 0 when it has none. Ping-pongs set it; bandwidth tests with --nodelay.
  int nodelay_opt;
  const char* hint;  // what to do when the kernel lacks it
};

const SocketProtocol* find_socket_protocol(const std::string& name);

// Opens a socket of `proto` for peers of `family` (AF_INET/AF_INET6). A kernel without the
// protocol gives Unsupported naming it: "SCTP is not available on this host: socket(...): ...".
Result<Fd> open_protocol_socket(const SocketProtocol& proto, int family);

// The address to use with `proto` for an IP address (SDP and RDS take IPv4 sockaddr_in).
SockAddr protocol_address(const SocketProtocol& proto, const SockAddr& ip);

}  // namespace fabperf
