// The data socket of a qperf test, set up on either side the way qperf does it: streams (TCP,
// SCTP, SDP) by port and connect, UDP by port, RDS through a helper TCP exchange of addresses.
#pragma once

#include <cstdint>

#include "core/status.h"
#include "net/socket.h"
#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"
#include "socket/sock_protocol.h"
#include "socket/socket_link.h"

namespace fabperf::qperf_wire {

// A data socket set up, before it becomes a DataLink (data_link below).
struct DataSocket {
  Fd fd;
  SockAddr peer;  // where messages go (RDS) or come from; unset for UDP on a server
};

// Server: opens the socket on the address the client reached (the data path follows the
// control path) and REQ's port, tells the client the port, and for streams accepts one
// connection from the control connection's peer within timeout_s; REQ's sock_buf_size is
// applied as qperf does (after accept for streams). A kernel without the protocol fails with
// qperf's text ("unable to make SCTP socket: ...", RDS: "socket failed: ...").
Result<DataSocket> open_server_data(const SocketProtocol& proto, QperfControl& ctl,
                                    const Request& request, double timeout_s);

// Client: the counterpart, against the address the control connection reached (never a
// re-resolved name). `sock_buf_size` 0 leaves the kernel's buffers; `port` is RDS's local port.
Result<DataSocket> open_client_data(const SocketProtocol& proto, QperfControl& ctl,
                                    uint64_t sock_buf_size, uint16_t port, double timeout_s);

// The link socket/'s message loops run on (socket/message_loops.h): blocking, its watchdog
// waking a call that moved nothing for kLookS (qperf_wire/end_rule.h) so the end rule is
// asked again. `data.peer` is where an RDS link sends.
DataLink data_link(const SocketProtocol& proto, DataSocket&& data);

// Whether a datagram's sender is the control connection's peer (the server answers no one
// else: it is not an amplifier).
bool same_host(const SockAddr& a, const std::string& host);

}  // namespace fabperf::qperf_wire
