// ControlChannel: framed, versioned messages with JSON bodies over a TCP connection.
// Frame = magic "FBPF" | u16 version | u16 type | u32 body length (big-endian) | JSON body.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/clock.h"
#include "core/status.h"

namespace fabperf {

inline constexpr uint16_t kProtocolVersion = 2;
inline constexpr uint32_t kMaxFrameBody = 1u << 20;  // larger lengths are refused unread
inline constexpr size_t kFrameHeaderSize = 12;
inline constexpr int kMaxJsonDepth = 32;         // deeper bodies are refused before parsing
inline constexpr size_t kMaxPeerMessage = 1024;  // a peer's error text is cut to this

// Message types on the control channel (docs/protocol.md describes each).
enum class MsgType : uint16_t {
  kHello = 1,       // client -> server: tool, version
  kWelcome = 2,     // server -> client: accepted, server info
  kError = 3,       // either way: {"message": "..."}; the run ends
  kRun = 4,         // client -> server: {"test": name, "params": {...}}
  kReady = 5,       // server -> client: test set up
  kExchange = 6,    // either way, inside a test: role-specific JSON (ports, addresses, keys)
  kResult = 7,      // server -> client: the server side's SideStats
  kConf = 8,        // client -> server: asks for node information
  kConfReply = 9,   // server -> client
  kQuit = 10,       // client -> server: stop the server
  kBye = 11,        // client -> server: session over
  kSync = 12,       // barrier inside a test
  kAuth = 13,       // either way, after WELCOME when the server has a key: proofs (security.md)
  kHeartbeat = 14,  // client -> server during fabric runs: still here (passive sides time out)
  kQueued = 15,     // server -> client: the run waits for other clients' measurements
  kReport = 16,     // client -> server after RESULT: the client's side stats
  // The --matrix agent protocol's own frames (rank 0 <-> a rank's agent, cluster/agent_protocol.h),
  // after the same HELLO / WELCOME / AUTH handshake. No session sends or accepts them, and the
  // agent accepts no session frame, so a frame on the wrong port is refused by its type.
  kAgentRun = 17,     // rank 0 -> agent: run a test against another rank
  kAgentResult = 18,  // agent -> rank 0: the run's figure or its error
  kAgentPing = 19,    // rank 0 -> agent: still there?
  kAgentPong = 20,    // agent -> rank 0: the answer to a ping
  kAgentCancel = 21,  // rank 0 -> agent: end a late run
  kAgentQuit = 22,    // rank 0 -> agent: the job is over
  kAgentBye = 23,     // agent -> rank 0: the answer to QUIT
};
inline constexpr MsgType kLastMsgType = MsgType::kAgentBye;

// True for the --matrix agent protocol's own frames (kAgentRun to kAgentBye).
bool is_agent_message(MsgType type);
// For a refusal of a frame that arrived where it does not belong: " (a --matrix agent's
// message: ...)" when `got` is an agent frame and the connection is a session's, or the
// reverse; "" when both belong to the same protocol.
std::string misdirected_note(MsgType got, bool agent_connection);
// How often a client sends a heartbeat while a fabric run lasts.
inline constexpr int64_t kHeartbeatNs = 500'000'000;
// A heartbeat's body: `{}`, or `{"stop":true}` from a client whose run was interrupted.
inline constexpr uint32_t kMaxHeartbeatBody = 64;

const char* msg_type_name(MsgType type);

struct Frame {
  MsgType type;
  nlohmann::json body;
};

// Pure encoding, for tests and fuzzing.
std::vector<uint8_t> encode_frame(MsgType type, const nlohmann::json& body);
struct FrameHeader {
  uint16_t version;
  uint16_t type;
  uint32_t length;
};
Result<FrameHeader> decode_frame_header(const uint8_t* data, size_t size);
Result<Frame> decode_frame_body(const FrameHeader& header, const uint8_t* data, size_t size);

class ControlChannel {
 public:
  explicit ControlChannel(int fd);  // takes ownership
  ~ControlChannel();
  ControlChannel(const ControlChannel&) = delete;
  ControlChannel& operator=(const ControlChannel&) = delete;

  // Thread-safe: the server's supervisor may send an ERROR while the session thread runs.
  Status send(MsgType type, const nlohmann::json& body, double timeout_s = 30);
  Status send_error(const std::string& message, double timeout_s = 30);
  // Waits at most timeout_s for a whole frame (heartbeats are taken and skipped). A kError frame
  // becomes a kFailed Status carrying the peer's message prefixed with `peer_label` ("server" or
  // "client").
  Result<Frame> recv(double timeout_s);
  // True when the last recv failed because the peer sent ERROR (its own account of a failure),
  // as opposed to a timeout, a closed connection or a malformed frame.
  bool peer_reported_error() const { return peer_reported_error_; }
  // One whole frame, a heartbeat included (noted as recv notes it).
  Result<Frame> recv_frame(double timeout_s);
  // Like recv, but fails unless the frame has the expected type.
  Result<nlohmann::json> expect(MsgType type, double timeout_s);
  // Non-blocking check: true when bytes are waiting (or the peer closed).
  bool readable() const;
  // Non-blocking: takes any whole heartbeats waiting, then true when another message (or the
  // end of the connection) is waiting.
  bool message_waiting();
  // A heartbeat {"stop": true} has arrived (taken by recv or message_waiting): the client's
  // run was interrupted (^C), and a side that sends stops as at the end of its time. Anywhere
  // else in a session it is skipped like any heartbeat, so one that crosses the run's end
  // is harmless (docs/protocol.md says what a server that predates it does).
  bool peer_stopped() const { return peer_stopped_; }
  // Forgets it: a server starting the session's next run.
  void clear_peer_stopped() { peer_stopped_ = false; }
  // Sends that heartbeat (a client whose run stops early).
  Status send_stop();
  // When a frame (heartbeats included) last arrived; the channel's creation before any.
  int64_t last_heard_ns() const { return last_heard_ns_; }
  // Sends a heartbeat when the last one is kHeartbeatNs old (and the gate, when set, allows).
  Status heartbeat(int64_t now);
  // While set, every wait in recv sends heartbeats (a client waiting on its server during a
  // fabric run: its server ends a run whose client is silent for its -to, in any phase).
  void set_keepalive(bool on) { keepalive_ = on; }
  // Heartbeats go out only while `gate` says so: a session process speaks for its server only
  // while that server runs (a stopped server's client then hears the silence). Null: always.
  void set_heartbeat_gate(std::function<bool()> gate) { heartbeat_gate_ = std::move(gate); }
  // The peer promised heartbeats (ControlPeer::sends_heartbeats): from now a recv's timeout
  // counts from the last frame that arrived, heartbeats included, and alive() fails once
  // nothing has come for `seconds`. 0: off.
  void set_silence_limit(double seconds) {
    silence_limit_ns_ = static_cast<int64_t>(seconds * 1e9);
  }
  // Ok, or a Timeout naming the peer silent for the limit (stopped or gone).
  Status alive(int64_t now) const;
  // Ends every pending and later transfer on this connection (from any thread).
  void shut_down();
  // Before closing after an ERROR: no more sending (FIN), and what the peer still sends (its
  // heartbeats) is read and dropped until it closes or `seconds` pass. Closing with unread
  // input would reset the connection, and the peer would lose the ERROR just sent.
  void linger(double seconds);
  // Frames longer than this are refused unread (at most kMaxFrameBody).
  void set_max_body(uint32_t bytes) { max_body_ = bytes; }
  // When set and true, a wait in recv ends within 100 ms with Code::kInterrupted.
  void set_cancel(const std::atomic<bool>* cancel) { cancel_ = cancel; }

  int fd() const { return fd_; }
  const std::string& peer_host() const { return peer_host_; }
  void set_peer_label(std::string label) { peer_label_ = std::move(label); }
  const std::string& peer_label() const { return peer_label_; }
  // The connection carries the --matrix agent protocol, not a session: a refused frame of the
  // other protocol is named as such (misdirected_note).
  void set_agent_protocol(bool on) { agent_protocol_ = on; }
  bool agent_protocol() const { return agent_protocol_; }

 private:
  Status read_exact(uint8_t* data, size_t len, const Deadline& deadline);
  // One frame, heartbeats included.
  Result<Frame> recv_one(double timeout_s, const Deadline& deadline);
  void note_heartbeat(const Frame& frame);

  int fd_;
  uint32_t max_body_ = kMaxFrameBody;
  const std::atomic<bool>* cancel_ = nullptr;
  bool peer_reported_error_ = false;
  bool peer_stopped_ = false;
  int64_t last_heard_ns_ = 0;
  int64_t last_heartbeat_ns_ = 0;
  bool keepalive_ = false;
  int64_t silence_limit_ns_ = 0;
  std::function<bool()> heartbeat_gate_;
  std::mutex send_mu_;
  std::string peer_host_;
  std::string peer_label_ = "peer";
  bool agent_protocol_ = false;
};

}  // namespace fabperf
