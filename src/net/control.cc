// Control channel framing (big-endian header, JSON body) and deadline-bounded transfer.
#include "net/control.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "core/clock.h"
#include "core/coding.h"
#include "core/text.h"
#include "net/socket.h"

namespace fabperf {

namespace {

constexpr uint8_t kMagic[4] = {'F', 'B', 'P', 'F'};

// Deepest nesting of arrays and objects, counted without parsing; stops at `limit` + 1.
int json_depth(const uint8_t* data, size_t size, int limit) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (size_t i = 0; i < size; ++i) {
    uint8_t c = data[i];
    if (in_string) {
      if (escaped) {
        escaped = false;
      } else if (c == '\\') {
        escaped = true;
      } else if (c == '"') {
        in_string = false;
      }
      continue;
    }
    if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      if (++depth > deepest) deepest = depth;
      if (deepest > limit) return deepest;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

const char* msg_type_name(MsgType type) {
  switch (type) {
    case MsgType::kHello:
      return "HELLO";
    case MsgType::kWelcome:
      return "WELCOME";
    case MsgType::kError:
      return "ERROR";
    case MsgType::kRun:
      return "RUN";
    case MsgType::kReady:
      return "READY";
    case MsgType::kExchange:
      return "EXCHANGE";
    case MsgType::kResult:
      return "RESULT";
    case MsgType::kConf:
      return "CONF";
    case MsgType::kConfReply:
      return "CONF_REPLY";
    case MsgType::kQuit:
      return "QUIT";
    case MsgType::kBye:
      return "BYE";
    case MsgType::kSync:
      return "SYNC";
    case MsgType::kAuth:
      return "AUTH";
    case MsgType::kHeartbeat:
      return "HEARTBEAT";
    case MsgType::kQueued:
      return "QUEUED";
    case MsgType::kReport:
      return "REPORT";
    case MsgType::kAgentRun:
      return "AGENT_RUN";
    case MsgType::kAgentResult:
      return "AGENT_RESULT";
    case MsgType::kAgentPing:
      return "AGENT_PING";
    case MsgType::kAgentPong:
      return "AGENT_PONG";
    case MsgType::kAgentCancel:
      return "AGENT_CANCEL";
    case MsgType::kAgentQuit:
      return "AGENT_QUIT";
    case MsgType::kAgentBye:
      return "AGENT_BYE";
  }
  return "UNKNOWN";
}

bool is_agent_message(MsgType type) {
  return type >= MsgType::kAgentRun && type <= MsgType::kAgentBye;
}

std::string misdirected_note(MsgType got, bool agent_connection) {
  // The handshake's frames and ERROR are the two protocols' common ground.
  if (got == MsgType::kHello || got == MsgType::kWelcome || got == MsgType::kAuth ||
      got == MsgType::kError) {
    return "";
  }
  if (is_agent_message(got) && !agent_connection) {
    return " (a --matrix agent protocol message, on a session's connection: the peer is a "
           "--matrix rank 0 or agent, not a fabperf client or server)";
  }
  if (!is_agent_message(got) && agent_connection) {
    return " (a session message, on a --matrix agent's connection: the peer is a fabperf client "
           "or server, not a --matrix rank 0 or agent)";
  }
  return "";
}

std::vector<uint8_t> encode_frame(MsgType type, const nlohmann::json& body) {
  // Strings that are not UTF-8 (an option value as typed, a peer's bytes) go as U+FFFD rather
  // than throw: the peer's parser would refuse the frame anyway.
  std::string text = body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::vector<uint8_t> out(kFrameHeaderSize + text.size());
  memcpy(out.data(), kMagic, 4);
  encode_be16(out.data() + 4, kProtocolVersion);
  encode_be16(out.data() + 6, static_cast<uint16_t>(type));
  encode_be32(out.data() + 8, static_cast<uint32_t>(text.size()));
  memcpy(out.data() + kFrameHeaderSize, text.data(), text.size());
  return out;
}

Result<FrameHeader> decode_frame_header(const uint8_t* data, size_t size) {
  if (size < kFrameHeaderSize) return Status::failed("truncated frame header");
  if (memcmp(data, kMagic, 4) != 0) {
    // Name the likely visitor: a browser, a curl, a qperf client on the wrong port.
    if (memcmp(data, "GET ", 4) == 0 || memcmp(data, "POST", 4) == 0 ||
        memcmp(data, "HEAD", 4) == 0) {
      return Status::failed("not a fabperf client (an HTTP request)");
    }
    // qperf's request opens with its version, 0.4.x, as little-endian 16-bit numbers.
    if (data[0] == 0 && data[1] == 0 && data[2] == 4 && data[3] == 0) {
      return Status::failed(
          "not a fabperf client (a qperf client? fabperf has its own protocol: "
          "run the fabperf client, which takes qperf's arguments)");
    }
    return Status::failed("not a fabperf client (bad magic)");
  }
  FrameHeader h{decode_be16(data + 4), decode_be16(data + 6), decode_be32(data + 8)};
  if (h.version != kProtocolVersion) {
    return Status::failed("protocol version " + std::to_string(h.version) +
                          " not supported (this side speaks " + std::to_string(kProtocolVersion) +
                          "): upgrade the side with the older fabperf");
  }
  if (h.type < static_cast<uint16_t>(MsgType::kHello) ||
      h.type > static_cast<uint16_t>(kLastMsgType)) {
    return Status::failed("unknown message type " + std::to_string(h.type));
  }
  if (h.length > kMaxFrameBody) {
    return Status::failed("frame of " + std::to_string(h.length) + " bytes exceeds the limit of " +
                          std::to_string(kMaxFrameBody));
  }
  return h;
}

Result<Frame> decode_frame_body(const FrameHeader& header, const uint8_t* data, size_t size) {
  if (size != header.length) return Status::failed("frame body length mismatch");
  if (json_depth(data, size, kMaxJsonDepth) > kMaxJsonDepth) {
    return Status::failed(std::string(msg_type_name(static_cast<MsgType>(header.type))) +
                          " message body nested deeper than " + std::to_string(kMaxJsonDepth));
  }
  nlohmann::json body = nlohmann::json::parse(data, data + size, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::failed(std::string("malformed ") +
                          msg_type_name(static_cast<MsgType>(header.type)) + " message body");
  }
  return Frame{static_cast<MsgType>(header.type), std::move(body)};
}

ControlChannel::ControlChannel(int fd) : fd_(fd), last_heard_ns_(now_ns()) {
  peer_host_ = peer_address(fd).host();
}

ControlChannel::~ControlChannel() {
  if (fd_ >= 0) ::close(fd_);
}

Status ControlChannel::send(MsgType type, const nlohmann::json& body, double timeout_s) {
  std::vector<uint8_t> bytes = encode_frame(type, body);
  // A send only blocks when the peer stops reading; 30 s bounds that without cutting a slow link.
  std::lock_guard<std::mutex> lock(send_mu_);
  Status s = send_all(fd_, bytes.data(), bytes.size(), Deadline::after(timeout_s));
  return s.prefixed(std::string("sending ") + msg_type_name(type) + " to " + peer_label_);
}

Status ControlChannel::send_error(const std::string& message, double timeout_s) {
  return send(MsgType::kError, {{"message", message}}, timeout_s);
}

void ControlChannel::shut_down() { ::shutdown(fd_, SHUT_RDWR); }

void ControlChannel::linger(double seconds) {
  ::shutdown(fd_, SHUT_WR);
  Deadline deadline = Deadline::after(seconds);
  char scratch[4096];
  for (;;) {
    ssize_t n = ::recv(fd_, scratch, sizeof scratch, MSG_DONTWAIT);
    if (n > 0) continue;
    if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
    auto ready = wait_fd(fd_, POLLIN, deadline);
    if (!ready.ok() || *ready == 0) return;
  }
}

Status ControlChannel::read_exact(uint8_t* data, size_t len, const Deadline& deadline) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = ::recv(fd_, data + got, len - got, MSG_DONTWAIT);
    if (n > 0) {
      got += static_cast<size_t>(n);
      continue;
    }
    if (n == 0) {
      return Status::failed(got == 0 ? "connection closed by peer"
                                     : "connection closed by peer in the middle of a message");
    }
    if (errno == EINTR) continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK) return Status::failed(errno_text("receive"));
    if (cancel_ != nullptr && cancel_->load()) return Status::interrupted("interrupted");
    if (deadline.expired()) return Status::timeout("receive: timed out");
    if (keepalive_) FP_RETURN_IF_ERROR(heartbeat(now_ns()));
    // Short slices so a cancel (SIGINT) is noticed while waiting.
    int64_t slice_end = std::min(deadline.at_ns(), now_ns() + 100'000'000);
    auto ready = wait_fd(fd_, POLLIN, Deadline(slice_end));
    if (!ready.ok()) return ready.status();
  }
  return Status::success();
}

Result<Frame> ControlChannel::recv(double timeout_s) {
  Deadline deadline = Deadline::after(timeout_s);
  while (true) {
    auto frame = recv_one(timeout_s, deadline);
    if (!frame.ok() || frame->type != MsgType::kHeartbeat) return frame;
    // A peer that promised heartbeats is waited for as long as it keeps sending them: its
    // silence, not its work (a deep window's drain), is what the timeout bounds.
    if (silence_limit_ns_ > 0) deadline = Deadline::after(timeout_s);
  }
}

Status ControlChannel::alive(int64_t now) const {
  if (silence_limit_ns_ <= 0 || now - last_heard_ns_ <= silence_limit_ns_) return Status::success();
  return Status::timeout("nothing from the " + peer_label_ + " for " +
                         seconds_text(static_cast<double>(silence_limit_ns_) / 1e9) +
                         " (stopped or gone?)");
}

Result<Frame> ControlChannel::recv_frame(double timeout_s) {
  return recv_one(timeout_s, Deadline::after(timeout_s));
}

Result<Frame> ControlChannel::recv_one(double timeout_s, const Deadline& deadline) {
  peer_reported_error_ = false;
  uint8_t header_bytes[kFrameHeaderSize];
  Status s = read_exact(header_bytes, sizeof header_bytes, deadline);
  if (!s.ok()) {
    if (s.code() == Code::kInterrupted) {
      return Status::interrupted("interrupted while waiting for the " + peer_label_);
    }
    if (s.code() == Code::kTimeout) {
      return Status::timeout("no answer from " + peer_label_ + " within " +
                             seconds_text(timeout_s));
    }
    return s.prefixed(peer_label_);
  }
  auto header = decode_frame_header(header_bytes, sizeof header_bytes);
  if (!header.ok()) return header.status().prefixed(peer_label_);
  if (header->length > max_body_) {
    return Status::failed(peer_label_ + ": " + msg_type_name(static_cast<MsgType>(header->type)) +
                          " frame of " + std::to_string(header->length) +
                          " bytes exceeds the limit of " + std::to_string(max_body_) +
                          " at this point of the session");
  }
  // The length is checked above: at most kMaxFrameBody is ever allocated.
  std::vector<uint8_t> body(header->length);
  s = read_exact(body.data(), body.size(), deadline);
  if (!s.ok()) {
    if (s.code() == Code::kTimeout) {
      return Status::timeout(peer_label_ + ": message cut short (" + std::to_string(body.size()) +
                             "-byte body not complete within " + seconds_text(timeout_s) + ")");
    }
    return s.prefixed(peer_label_);
  }
  auto frame = decode_frame_body(*header, body.data(), body.size());
  if (!frame.ok()) return frame.status().prefixed(peer_label_);
  last_heard_ns_ = now_ns();
  if (frame->type == MsgType::kHeartbeat) note_heartbeat(*frame);
  if (frame->type == MsgType::kError) {
    auto it = frame->body.find("message");
    std::string msg =
        (it != frame->body.end() && it->is_string()) ? it->get<std::string>() : "unspecified error";
    peer_reported_error_ = true;
    return Status::failed(peer_label_ + ": " + printable(msg, kMaxPeerMessage));
  }
  return frame;
}

Result<nlohmann::json> ControlChannel::expect(MsgType type, double timeout_s) {
  auto frame = recv(timeout_s);
  if (!frame.ok()) return frame.status();
  if (frame->type != type) {
    return Status::failed(std::string("protocol error: expected ") + msg_type_name(type) +
                          " from " + peer_label_ + ", got " + msg_type_name(frame->type) +
                          misdirected_note(frame->type, agent_protocol_));
  }
  return std::move(frame->body);
}

bool ControlChannel::readable() const {
  pollfd pfd{fd_, POLLIN, 0};
  return poll(&pfd, 1, 0) > 0;
}

bool ControlChannel::message_waiting() {
  while (readable()) {
    uint8_t bytes[kFrameHeaderSize + kMaxHeartbeatBody];
    ssize_t n = ::recv(fd_, bytes, sizeof bytes, MSG_PEEK | MSG_DONTWAIT);
    // The end of the connection, an error, or a frame too short to judge yet: the reader
    // finds out which.
    if (n < static_cast<ssize_t>(kFrameHeaderSize)) return true;
    auto header = decode_frame_header(bytes, kFrameHeaderSize);
    if (!header.ok() || header->type != static_cast<uint16_t>(MsgType::kHeartbeat) ||
        header->length > kMaxHeartbeatBody ||
        n < static_cast<ssize_t>(kFrameHeaderSize + header->length)) {
      return true;
    }
    // A whole heartbeat: the peer is alive (and may have stopped); take it and look again.
    // A malformed one stays for the reader, whose recv names what is wrong with it.
    auto frame = decode_frame_body(*header, bytes + kFrameHeaderSize, header->length);
    if (!frame.ok()) return true;
    size_t whole = kFrameHeaderSize + header->length;
    if (::recv(fd_, bytes, whole, MSG_DONTWAIT) != static_cast<ssize_t>(whole)) return true;
    note_heartbeat(*frame);
  }
  return false;
}

void ControlChannel::note_heartbeat(const Frame& frame) {
  last_heard_ns_ = now_ns();
  auto stop = frame.body.find("stop");
  if (stop != frame.body.end() && stop->is_boolean() && stop->get<bool>()) peer_stopped_ = true;
}

Status ControlChannel::send_stop() { return send(MsgType::kHeartbeat, {{"stop", true}}, 1); }

Status ControlChannel::heartbeat(int64_t now) {
  if (now - last_heartbeat_ns_ < kHeartbeatNs) return Status::success();
  last_heartbeat_ns_ = now;
  if (heartbeat_gate_ && !heartbeat_gate_()) return Status::success();
  return send(MsgType::kHeartbeat, nlohmann::json::object(), 1);
}

}  // namespace fabperf
