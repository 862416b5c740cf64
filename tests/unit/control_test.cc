// Unit tests: control-frame encoding and decoding, including hostile input.
#include "net/control.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <random>
#include <thread>

namespace fabperf {
namespace {

TEST(ControlFrame, EncodeDecodeRoundTrip) {
  nlohmann::json body = {{"test", "tcp_lat"}, {"params", {{"msg_size", 1}}}};
  std::vector<uint8_t> bytes = encode_frame(MsgType::kRun, body);
  ASSERT_GE(bytes.size(), kFrameHeaderSize);
  EXPECT_EQ(std::string(bytes.begin(), bytes.begin() + 4), "FBPF");
  auto header = decode_frame_header(bytes.data(), bytes.size());
  ASSERT_TRUE(header.ok());
  EXPECT_EQ(header->version, kProtocolVersion);
  EXPECT_EQ(header->type, static_cast<uint16_t>(MsgType::kRun));
  EXPECT_EQ(header->length, bytes.size() - kFrameHeaderSize);
  auto frame = decode_frame_body(*header, bytes.data() + kFrameHeaderSize, header->length);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->type, MsgType::kRun);
  EXPECT_EQ(frame->body, body);
}

TEST(ControlFrame, HeaderIsBigEndian) {
  std::vector<uint8_t> bytes = encode_frame(MsgType::kHello, nlohmann::json::object());
  EXPECT_EQ(bytes[4], 0);
  EXPECT_EQ(bytes[5], kProtocolVersion);
  EXPECT_EQ(bytes[6], 0);
  EXPECT_EQ(bytes[7], static_cast<uint8_t>(MsgType::kHello));
  EXPECT_EQ(bytes[11], 2);  // "{}"
}

TEST(ControlFrame, RejectsBadHeaders) {
  std::vector<uint8_t> good = encode_frame(MsgType::kHello, nlohmann::json::object());
  auto bad_magic = good;
  bad_magic[0] = 'X';
  EXPECT_NE(
      decode_frame_header(bad_magic.data(), bad_magic.size()).status().message().find("bad magic"),
      std::string::npos);
  const char* http = "GET / HTTP/1.1\r\n";
  EXPECT_NE(decode_frame_header(reinterpret_cast<const uint8_t*>(http), 16)
                .status()
                .message()
                .find("HTTP"),
            std::string::npos);
  auto version = good;
  version[5] = 99;
  EXPECT_NE(decode_frame_header(version.data(), version.size()).status().message().find("upgrade"),
            std::string::npos);
  auto type = good;
  type[7] = 200;
  EXPECT_FALSE(decode_frame_header(type.data(), type.size()).ok());
  auto huge = good;
  huge[8] = huge[9] = huge[10] = huge[11] = 0xff;  // 4 GiB: refused before any allocation
  EXPECT_NE(decode_frame_header(huge.data(), huge.size()).status().message().find("exceeds"),
            std::string::npos);
  EXPECT_FALSE(decode_frame_header(good.data(), 5).ok());
}

TEST(ControlFrame, RejectsBadBodies) {
  FrameHeader h{kProtocolVersion, static_cast<uint16_t>(MsgType::kRun), 3};
  const uint8_t not_json[] = {'{', '{', '}'};
  EXPECT_FALSE(decode_frame_body(h, not_json, 3).ok());
  const uint8_t array[] = {'[', '1', ']'};
  EXPECT_FALSE(decode_frame_body(h, array, 3).ok());
  EXPECT_FALSE(decode_frame_body(h, array, 2).ok());
}

// The session's frames keep their numbers (the wire of version 2); the agent protocol's own
// types follow them, are named, and end the range a receiver accepts.
TEST(ControlFrame, AgentTypesAreTheirOwnAndValidated) {
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kExchange), 6);
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kSync), 12);
  EXPECT_EQ(static_cast<uint16_t>(MsgType::kReport), 16);
  for (uint16_t t = static_cast<uint16_t>(MsgType::kHello);
       t <= static_cast<uint16_t>(kLastMsgType); ++t) {
    auto type = static_cast<MsgType>(t);
    std::vector<uint8_t> bytes = encode_frame(type, nlohmann::json::object());
    auto header = decode_frame_header(bytes.data(), bytes.size());
    ASSERT_TRUE(header.ok()) << t;
    EXPECT_STRNE(msg_type_name(type), "UNKNOWN") << t;
    EXPECT_EQ(is_agent_message(type), t >= 17) << t;
    EXPECT_EQ(std::string(msg_type_name(type)).rfind("AGENT_", 0) == 0, t >= 17) << t;
  }
  std::vector<uint8_t> past = encode_frame(MsgType::kHello, nlohmann::json::object());
  past[7] = static_cast<uint8_t>(static_cast<uint16_t>(kLastMsgType) + 1);
  EXPECT_NE(decode_frame_header(past.data(), past.size()).status().message().find("unknown"),
            std::string::npos);
  // A frame on the other protocol's connection is named as such; the handshake's are shared.
  EXPECT_NE(misdirected_note(MsgType::kAgentRun, false).find("agent"), std::string::npos);
  EXPECT_NE(misdirected_note(MsgType::kExchange, true).find("session message"), std::string::npos);
  EXPECT_EQ(misdirected_note(MsgType::kAuth, true), "");
  EXPECT_EQ(misdirected_note(MsgType::kRun, false), "");
  EXPECT_EQ(misdirected_note(MsgType::kAgentCancel, true), "");
}

TEST(ControlFrame, RandomBytesNeverCrash) {
  std::mt19937 rng(42);
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> bytes(rng() % 64);
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    if (bytes.size() >= 4 && i % 2 == 0) std::copy_n("FBPF", 4, bytes.begin());
    if (bytes.size() >= 6 && i % 4 == 0) bytes[4] = 0, bytes[5] = kProtocolVersion;
    auto header = decode_frame_header(bytes.data(), bytes.size());
    if (header.ok() && bytes.size() >= kFrameHeaderSize) {
      size_t n = std::min<size_t>(header->length, bytes.size() - kFrameHeaderSize);
      (void)decode_frame_body(*header, bytes.data() + kFrameHeaderSize, n);
    }
  }
}

TEST(ControlChannel, SendRecvOverASocketPairWithDeadline) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ControlChannel a(fds[0]), b(fds[1]);
  b.set_peer_label("client");
  ASSERT_TRUE(a.send(MsgType::kRun, {{"test", "x"}}).ok());
  auto frame = b.recv(1);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->body["test"], "x");
  auto start = std::chrono::steady_clock::now();
  auto nothing = b.recv(0.2);
  EXPECT_EQ(nothing.status().code(), Code::kTimeout);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  ASSERT_TRUE(a.send_error("boom").ok());
  auto err = b.recv(1);
  EXPECT_FALSE(err.ok());
  EXPECT_EQ(err.status().message(), "client: boom");
  ASSERT_TRUE(a.send(MsgType::kSync, nlohmann::json::object()).ok());
  auto wrong = b.expect(MsgType::kReady, 1);
  EXPECT_NE(wrong.status().message().find("expected READY"), std::string::npos);
}

// Heartbeats are taken wherever they arrive; one that says {"stop": true} (a client's ^C) is
// noted, so a sending side can end as at its time, and never mistaken for a message.
TEST(ControlChannel, HeartbeatsAreTakenAndAStopIsNoted) {
  int fds[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
  ControlChannel client(fds[0]), server(fds[1]);
  server.set_peer_label("client");
  EXPECT_FALSE(server.message_waiting());
  ASSERT_TRUE(client.heartbeat(kHeartbeatNs + 1).ok());
  EXPECT_FALSE(server.message_waiting());  // a plain heartbeat: taken, nothing else
  EXPECT_FALSE(server.peer_stopped());
  ASSERT_TRUE(client.send_stop().ok());
  EXPECT_FALSE(server.message_waiting());
  EXPECT_TRUE(server.peer_stopped());
  server.clear_peer_stopped();
  EXPECT_FALSE(server.peer_stopped());
  // A stop, then a message: the stop is noted and the message is what waits.
  ASSERT_TRUE(client.send_stop().ok());
  ASSERT_TRUE(client.send(MsgType::kExchange, {{"done", true}}).ok());
  EXPECT_TRUE(server.message_waiting());
  EXPECT_TRUE(server.peer_stopped());
  auto done = server.expect(MsgType::kExchange, 1);
  ASSERT_TRUE(done.ok()) << done.status().message();
  EXPECT_EQ((*done)["done"], true);
  // A stop that crosses the end of a run, read by recv: skipped and noted.
  server.clear_peer_stopped();
  ASSERT_TRUE(client.send_stop().ok());
  ASSERT_TRUE(client.send(MsgType::kReport, {{"stats", 1}}).ok());
  auto report = server.expect(MsgType::kReport, 1);
  ASSERT_TRUE(report.ok()) << report.status().message();
  EXPECT_TRUE(server.peer_stopped());
  // A heartbeat whose body is too long to be one is left for the reader, who decides.
  ASSERT_TRUE(client.send(MsgType::kHeartbeat, {{"pad", std::string(200, 'x')}}).ok());
  EXPECT_TRUE(server.message_waiting());
  auto frame = server.recv_frame(1);
  ASSERT_TRUE(frame.ok());
  EXPECT_EQ(frame->type, MsgType::kHeartbeat);
  EXPECT_FALSE(server.message_waiting());
  // A malformed one too, and the reader's error names it.
  std::string bad = "FBPF";
  bad += std::string("\0\x01\0\x0e\0\0\0\x03", 8) + "{x}";
  bad[4] = static_cast<char>(kProtocolVersion >> 8);
  bad[5] = static_cast<char>(kProtocolVersion);
  ASSERT_EQ(write(fds[0], bad.data(), bad.size()), static_cast<ssize_t>(bad.size()));
  EXPECT_TRUE(server.message_waiting());
  auto malformed = server.recv(1);
  EXPECT_FALSE(malformed.ok());
  EXPECT_EQ(malformed.status().code(), Code::kFailed) << malformed.status().message();
}

}  // namespace
}  // namespace fabperf
