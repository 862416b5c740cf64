// qperf 0.4.x's wire format: the request, the results block and conf, all little-endian and
// fixed-size (docs/protocol.md, "qperf on the same port"; reference: qperf's source, v0.4.11).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/coding.h"  // the wire's integers: little-endian (encode_le, decode_le)

namespace fabperf::qperf_wire {

// The version fabperf speaks: qperf's checks only compare major and minor.
inline constexpr uint16_t kVerMaj = 0;
inline constexpr uint16_t kVerMin = 4;
inline constexpr uint16_t kVerInc = 11;
inline constexpr const char* kVersionText = "0.4.11";

inline constexpr size_t kRequestSize = 200;
inline constexpr size_t kRequestVersionSize = 6;  // the server reads these first, then 194
inline constexpr size_t kStatSize = 256;          // sizeof(STAT) on LP64: 252 bytes + 4 padding
inline constexpr size_t kConfSize = 256;          // four 64-byte strings
inline constexpr size_t kConfFieldSize = 64;
inline constexpr size_t kRequestStringSize = 64;  // id, static_rate
inline constexpr size_t kRdsHostSize = 1025;      // NI_MAXHOST: RDS's IP address blocks
inline constexpr size_t kPortSize = 4;
// qperf's error text is at most 255 characters; a peer's text is read up to this many bytes.
inline constexpr size_t kMaxErrorText = 1024;

// Sent raw, without the NUL, each way (27 and 26 bytes).
inline constexpr std::string_view kSyncBefore = "synchronization before test";
inline constexpr std::string_view kSyncAfter = "synchronization after test";

// The request a client sends first (200 bytes). RDMA-only fields are carried unread.
struct Request {
  uint16_t ver_maj = kVerMaj, ver_min = kVerMin, ver_inc = kVerInc;
  uint16_t req_index = 0;
  uint32_t access_recv = 0;
  uint32_t affinity = 0;  // 0: none; N: CPU N-1
  uint32_t alt_port = 0, flip = 0;
  uint32_t msg_size = 0;
  uint32_t mtu_size = 0;
  uint32_t no_msgs = 0;
  uint32_t poll_mode = 0;
  uint32_t port = 0;  // the server's data port (0: ephemeral)
  uint32_t rd_atomic = 0, sl = 0;
  uint32_t sock_buf_size = 0;
  uint32_t src_path_bits = 0;
  uint32_t time = 0;     // seconds; 0: no timer (the test ends at EOF or the peer's '.')
  uint32_t timeout = 0;  // seconds, for every control message after the request
  uint32_t use_cm = 0;
  std::string id, static_rate;  // printable, at most 63 characters
};

std::array<uint8_t, kRequestSize> encode_request(const Request& request);
// Every 200-byte pattern is a request: the strings are cut at their NUL and made printable.
Request decode_request(const uint8_t* data);

// "upgrade qperf on client from 0.3.0 to 0.4.11" when a peer of `maj.min.inc` cannot talk to
// this side (as qperf words it: the side with the lower major.minor is named), else "".
std::string version_mismatch(uint16_t maj, uint16_t min, uint16_t inc);

// A connection's first byte tells the protocols apart: a qperf request opens with its major
// version, 0, as a little-endian u16 (so a 0 byte); fabperf frames open with "FBPF".
inline bool looks_like_request(const uint8_t* data, size_t size) {
  return size >= 1 && data[0] == 0;
}

// qperf 0.4.9-0.4.11's test table: the index is what goes on the wire.
inline constexpr uint16_t kConfIndex = 0;
inline constexpr uint16_t kQuitIndex = 1;
inline constexpr uint16_t kFirstRdmaIndex = 12;  // 12..35: RDMA tests (builds with verbs)
inline constexpr uint16_t kTableSize = 36;
const char* test_name(uint16_t index);  // nullptr beyond the table
std::optional<uint16_t> test_index(std::string_view name);
// qperf's msg_size when -m is not given (tcp_bw 64K, udp_bw and sctp_bw 32K, rds_bw 8K, lat 1).
uint32_t default_msg_size(uint16_t index);

// The results block (STAT) a server sends after the test.
inline constexpr int kTimeFields = 9;
enum TimeField { kReal = 0, kUser, kNice, kKernel, kIdle, kIowait, kIrq, kSoftirq, kSteal };
struct Counters {
  uint64_t bytes = 0, msgs = 0, errs = 0;
};
struct Stat {
  uint32_t no_cpus = 0;
  uint32_t no_ticks = 0;  // units of every time field per second
  uint32_t max_cqes = 0;
  uint64_t time_s[kTimeFields] = {};  // start: real, then /proc/stat's cpu line
  uint64_t time_e[kTimeFields] = {};  // end
  Counters s, r;                      // sent, received
  Counters rem_s, rem_r;              // RDMA only (0 for socket tests)
};

std::array<uint8_t, kStatSize> encode_stat(const Stat& stat);
Stat decode_stat(const uint8_t* data);  // kStatSize bytes; the 4 filler bytes are ignored

// conf's answer: node, cpu, os and version, each a 64-byte string.
struct Conf {
  std::string node, cpu, os, version;
};
std::array<uint8_t, kConfSize> encode_conf(const Conf& conf);
// A stock server may leave a field uninitialised: each is cut at its NUL (or 63 bytes) and
// made printable (printable_text), so the text is safe to print and to put in JSON.
Conf decode_conf(const uint8_t* data);

// Bytes from a peer made safe to print: up to the first NUL, at most `max` bytes, through
// the one escaping function (core/text.h printable: controls and invalid UTF-8 become '?').
std::string printable_text(const uint8_t* data, size_t size, size_t max);

}  // namespace fabperf::qperf_wire
