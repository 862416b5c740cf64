// What a libfabric endpoint name designates (an IP socket address, a process's shm region, or
// a fabric address that names no IP), and the check that a peer's name belongs to the control
// connection's peer before any data moves (docs/security.md, "Fabric peers").
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "engine/test_spec.h"
#include "net/peer_process.h"
#include "net/socket.h"

struct fi_info;

namespace fabperf {

// How a name can be tied to the control connection's peer.
enum class FabricAddressKind {
  kIp,          // an IP socket address: tcp, udp, sockets, net, verbs over IP, and ofi_rxm /
                // ofi_rxd over them (they hand out their core provider's name)
  kShm,         // shm's "fi_shm://PID:UID:INDEX": the region of process PID on this host
  kFabricOnly,  // cxi NIC addresses, efa and InfiniBand GIDs, psm2/psm3 and opx ids, unknown
                // formats: nothing in them can be compared with an IP address
};

// A decoded endpoint name.
struct FabricAddress {
  FabricAddressKind kind = FabricAddressKind::kFabricOnly;
  std::vector<SockAddr> ips;  // kIp: one, or one per rail (ofi_mrail joins its rails' names)
  pid_t pid = 0;              // kShm
  uid_t uid = 0;              // kShm: the user whose region it is (mode 600 in /dev/shm)
  std::string format;         // "FI_SOCKADDR_IN", "FI_ADDR_STR", ...
  std::string text;  // what it designates, for messages: "127.0.0.3:52060", "fi_shm://9:0:0"
};

// "FI_SOCKADDR_IN", ..., "address format 99" for a number the headers do not know.
std::string addr_format_name(uint32_t addr_format);

// Decodes `name` as provider `provider` ("tcp;ofi_rxm") with `addr_format` writes it. Failed
// when the bytes are not a whole name of that format (too short, a family other than the
// format's, an unterminated string, a shm name that is not PID:UID:INDEX): libfabric would
// read past them or open whatever they say.
Result<FabricAddress> decode_fabric_address(uint32_t addr_format, std::string_view provider,
                                            const std::vector<uint8_t>& name);

// The rule (docs/security.md):
// - kIp: the address's IP equals the control peer's (v4-mapped IPv6 folded; a link-local
//   address also on the same interface). Any port: the peer's own host chooses it.
// - kShm: PID is one of the processes holding the control connection's other end, found through
//   /proc; so shm works only for a client on this host that this side may inspect.
// - kFabricOnly: refused unless `trust_fabric_only`, or the control peer is this very process
//   (its self_pid: --loopback, fab_loopback_bw, which name their own endpoint).
// A refusal is Failed, starts "fabric peer check: ", and names the provider, the address given
// and the control peer.
Status check_fabric_peer(uint32_t addr_format, std::string_view provider,
                         const std::vector<uint8_t>& name, const ControlPeer& peer,
                         bool trust_fabric_only);
// The same for a name an endpoint described by `info` (its provider and address format) will
// use. A server (`self` kServer) trusts fabric-only names when its peer says so
// (--trust_fabric_addrs); a client trusts them: its user chose that server and provider, and
// IP and shm names are still checked.
Status check_fabric_peer(const fi_info& info, const std::vector<uint8_t>& name,
                         const ControlPeer& peer, Role self);

// FI_EP_MSG server: the connection request `connreq` (FI_CONNREQ's fi_info, whose dest_addr is
// where the request came from) to a `provider` endpoint must come from the control
// connection's peer. (Providers need not fill in the request's fabric attributes.)
Status check_connection_request(const fi_info& connreq, std::string_view provider,
                                const ControlPeer& peer);

}  // namespace fabperf
