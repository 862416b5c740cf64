// Control channel framing (big-endian header, JSON body) and deadline-bounded transfer.
#include "net/control.h"

#include <poll.h>
#include <unistd.h>

#include <cstring>

#include "core/clock.h"
#include "net/socket.h"

namespace fabperf {

namespace {

constexpr uint8_t kMagic[4] = {'F', 'B', 'P', 'F'};

void put_u16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}
void put_u32(uint8_t* p, uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
}
uint16_t get_u16(const uint8_t* p) { return static_cast<uint16_t>((p[0] << 8) | p[1]); }
uint32_t get_u32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

}  // namespace

const char* msg_type_name(MsgType type) {
  switch (type) {
    case MsgType::kHello: return "HELLO";
    case MsgType::kWelcome: return "WELCOME";
    case MsgType::kError: return "ERROR";
    case MsgType::kRun: return "RUN";
    case MsgType::kReady: return "READY";
    case MsgType::kExchange: return "EXCHANGE";
    case MsgType::kResult: return "RESULT";
    case MsgType::kConf: return "CONF";
    case MsgType::kConfReply: return "CONF_REPLY";
    case MsgType::kQuit: return "QUIT";
    case MsgType::kBye: return "BYE";
    case MsgType::kSync: return "SYNC";
  }
  return "UNKNOWN";
}

std::vector<uint8_t> encode_frame(MsgType type, const nlohmann::json& body) {
  std::string text = body.dump();
  std::vector<uint8_t> out(kFrameHeaderSize + text.size());
  memcpy(out.data(), kMagic, 4);
  put_u16(out.data() + 4, kProtocolVersion);
  put_u16(out.data() + 6, static_cast<uint16_t>(type));
  put_u32(out.data() + 8, static_cast<uint32_t>(text.size()));
  memcpy(out.data() + kFrameHeaderSize, text.data(), text.size());
  return out;
}

Result<FrameHeader> decode_frame_header(const uint8_t* data, size_t size) {
  if (size < kFrameHeaderSize) return Status::Failed("truncated frame header");
  if (memcmp(data, kMagic, 4) != 0) {
    // Name the likely visitor: a browser, a curl, a qperf client on the wrong port.
    if (memcmp(data, "GET ", 4) == 0 || memcmp(data, "POST", 4) == 0 ||
        memcmp(data, "HEAD", 4) == 0) {
      return Status::Failed("not a fabperf client (an HTTP request)");
    }
    return Status::Failed("not a fabperf client (bad magic)");
  }
  FrameHeader h{get_u16(data + 4), get_u16(data + 6), get_u32(data + 8)};
  if (h.version != kProtocolVersion) {
    return Status::Failed("protocol version " + std::to_string(h.version) + " not supported (this side speaks " +
                          std::to_string(kProtocolVersion) + "): upgrade the side with the older fabperf");
  }
  if (h.type < static_cast<uint16_t>(MsgType::kHello) ||
      h.type > static_cast<uint16_t>(MsgType::kSync)) {
    return Status::Failed("unknown message type " + std::to_string(h.type));
  }
  if (h.length > kMaxFrameBody) {
    return Status::Failed("frame of " + std::to_string(h.length) + " bytes exceeds the limit of " +
                          std::to_string(kMaxFrameBody));
  }
  return h;
}

Result<Frame> decode_frame_body(const FrameHeader& header, const uint8_t* data, size_t size) {
  if (size != header.length) return Status::Failed("frame body length mismatch");
  nlohmann::json body = nlohmann::json::parse(data, data + size, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    return Status::Failed(std::string("malformed ") +
                          msg_type_name(static_cast<MsgType>(header.type)) + " message body");
  }
  return Frame{static_cast<MsgType>(header.type), std::move(body)};
}

ControlChannel::ControlChannel(int fd) : fd_(fd) { peer_host_ = peer_address(fd).host(); }

ControlChannel::~ControlChannel() {
  if (fd_ >= 0) ::close(fd_);
}

Status ControlChannel::send(MsgType type, const nlohmann::json& body) {
  std::vector<uint8_t> bytes = encode_frame(type, body);
  // A send only blocks when the peer stops reading; 30 s bounds that without cutting a slow link.
  Status s = send_all(fd_, bytes.data(), bytes.size(), Deadline::After(30));
  return s.Prefixed(std::string("sending ") + msg_type_name(type) + " to " + peer_label_);
}

Status ControlChannel::send_error(const std::string& message) {
  return send(MsgType::kError, {{"message", message}});
}

Result<Frame> ControlChannel::recv(double timeout_s) {
  Deadline deadline = Deadline::After(timeout_s);
  uint8_t header_bytes[kFrameHeaderSize];
  Status s = recv_all(fd_, header_bytes, sizeof header_bytes, deadline);
  if (!s.ok()) {
    if (s.code() == Code::kTimeout) {
      return Status::Timeout("no answer from " + peer_label_ + " within " +
                             nlohmann::json(timeout_s).dump() + " s");
    }
    return s.Prefixed(peer_label_);
  }
  auto header = decode_frame_header(header_bytes, sizeof header_bytes);
  if (!header.ok()) return header.status().Prefixed(peer_label_);
  std::vector<uint8_t> body(header->length);
  s = recv_all(fd_, body.data(), body.size(), deadline);
  if (!s.ok()) return s.Prefixed(peer_label_);
  auto frame = decode_frame_body(*header, body.data(), body.size());
  if (!frame.ok()) return frame.status().Prefixed(peer_label_);
  if (frame->type == MsgType::kError) {
    auto it = frame->body.find("message");
    std::string msg = (it != frame->body.end() && it->is_string()) ? it->get<std::string>()
                                                                    : "unspecified error";
    return Status::Failed(peer_label_ + ": " + msg);
  }
  return frame;
}

Result<nlohmann::json> ControlChannel::expect(MsgType type, double timeout_s) {
  auto frame = recv(timeout_s);
  if (!frame.ok()) return frame.status();
  if (frame->type != type) {
    return Status::Failed(std::string("protocol error: expected ") + msg_type_name(type) +
                          " from " + peer_label_ + ", got " + msg_type_name(frame->type));
  }
  return std::move(frame->body);
}

bool ControlChannel::readable() const {
  pollfd pfd{fd_, POLLIN, 0};
  return poll(&pfd, 1, 0) > 0;
}

}  // namespace fabperf
