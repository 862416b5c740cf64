// Who is at the other end of the control connection: its address and, when it runs on this
// host, the processes holding its socket (from /proc), for checks such as shm peer names.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "net/socket.h"

namespace fabperf {

// One row of /proc/net/tcp or /proc/net/tcp6. A v4-mapped IPv6 address is kept as IPv6 here;
// same_endpoint() folds it, so a dual-stack listener's row matches the IPv4 client's.
struct TcpSocketRow {
  SockAddr local;
  SockAddr remote;
  uint64_t inode = 0;  // 0 for sockets no process owns (TIME_WAIT, orphans)
};

// The rows of a /proc/net/tcp (family AF_INET) or tcp6 (AF_INET6) text; the header line and
// malformed rows are skipped.
std::vector<TcpSocketRow> parse_proc_net_tcp(std::string_view text, int family);

// Same IP (v4-mapped IPv6 folded into IPv4) and port.
bool same_endpoint(const SockAddr& a, const SockAddr& b);

// Processes (ascending pids) whose descriptor tables hold socket inode `inode`, read from
// `proc_root`/PID/fd. `unreadable` (when given) counts processes whose table could not be read
// (another user's, when this process is not root).
std::vector<pid_t> processes_holding_socket(uint64_t inode, int* unreadable = nullptr,
                                            const std::string& proc_root = "/proc");

// The processes holding the other end of connected TCP socket `fd`: its socket is found in
// /proc/net/tcp{,6} (local and remote swapped), then its owners by inode. Several pids when a
// process forked with the socket open. Failed, saying why, when the peer is on another host (or
// in another network namespace) or its owner cannot be read.
Result<std::vector<pid_t>> peer_processes(int fd);

// The effective uid of process `pid` (the second field of "Uid:" in /proc/PID/status).
Result<uid_t> process_uid(pid_t pid, const std::string& proc_root = "/proc");

// The state letter of process `pid` in /proc/PID/stat ('R', 'S', 'T' stopped, 'Z' zombie...),
// or 0 when there is no such process (or it cannot be read).
char process_state(pid_t pid, const std::string& proc_root = "/proc");

// The control connection's peer, as the fabric peer check sees it.
struct ControlPeer {
  std::string host;       // numeric IP, v4-mapped shown as IPv4 (SockAddr::host())
  uint32_t scope_id = 0;  // IPv6 link-local: the interface; 0 otherwise
  int fd = -1;            // the connection, to find the peer's processes on demand; -1: none
  std::optional<std::vector<pid_t>> pids;  // known processes; else looked up via fd
  // The process this side is: a server's session process acts for the server that started it.
  pid_t self_pid = 0;
  // A server started with --trust_fabric_addrs: fabric-only addresses (cxi, efa, IB) that no
  // IP ties to the peer are accepted.
  bool trust_fabric_only = false;
  // The peer promised a HEARTBEAT at least every kHeartbeatNs while a run lasts (a client in
  // its RUN, a server in its READY, docs/protocol.md): its silence for the timeout then means
  // it is stopped or gone, in any phase of the run.
  bool sends_heartbeats = false;

  // From a connected socket: getpeername() now, processes on demand; self_pid is getpid().
  static ControlPeer of_connection(int fd);
  // The same, with the peer's processes looked up now (before a session process that may not
  // read /proc as another user takes over) and carried as JSON: {"host", "scope_id", "pids",
  // "self_pid", "trust_fabric_only", "sends_heartbeats"}.
  static ControlPeer resolved(int fd, bool trust_fabric_only);
  nlohmann::json to_json() const;
  static ControlPeer from_json(const nlohmann::json& j);
  // The processes holding the peer's end (see peer_processes()).
  Result<std::vector<pid_t>> processes() const;
  // "127.0.0.1" or "127.0.0.1 (process 1234)" for messages.
  std::string describe(const std::vector<pid_t>& known = {}) const;
};

}  // namespace fabperf
