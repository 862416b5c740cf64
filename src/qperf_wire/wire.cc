// Encoding and decoding of qperf's fixed-size messages with explicit little-endian coding: never
// a C struct's layout, so padding, the host's byte order and i386's shorter STAT cannot leak in.
#include "qperf_wire/wire.h"

#include <cstring>

#include "core/text.h"

namespace fabperf::qperf_wire {

namespace {

// The order of Tests[] in qperf.c, identical in 0.4.9, 0.4.10 and 0.4.11.
constexpr const char* kTestNames[kTableSize] = {
    "conf",
    "quit",
    "rds_bw",
    "rds_lat",
    "sctp_bw",
    "sctp_lat",
    "sdp_bw",
    "sdp_lat",
    "tcp_bw",
    "tcp_lat",
    "udp_bw",
    "udp_lat",
    "rc_bi_bw",
    "rc_bw",
    "rc_compare_swap_mr",
    "rc_fetch_add_mr",
    "rc_lat",
    "rc_rdma_read_bw",
    "rc_rdma_read_lat",
    "rc_rdma_write_bw",
    "rc_rdma_write_lat",
    "rc_rdma_write_poll_lat",
    "uc_bi_bw",
    "uc_bw",
    "uc_lat",
    "uc_rdma_write_bw",
    "uc_rdma_write_lat",
    "uc_rdma_write_poll_lat",
    "ud_bi_bw",
    "ud_bw",
    "ud_lat",
    "ver_rc_compare_swap",
    "ver_rc_fetch_add",
    "xrc_bi_bw",
    "xrc_bw",
    "xrc_lat",
};

// Sequential writer and reader over a fixed buffer; the callers' sizes are constants that add
// up to the message size (the unit tests check the offsets).
class Writer {
 public:
  explicit Writer(uint8_t* p) : p_(p) {}
  void u(uint64_t v, size_t n) {
    encode_le(p_, v, n);
    p_ += n;
  }
  void str(const std::string& s, size_t n) {
    size_t len = s.size() < n - 1 ? s.size() : n - 1;  // always NUL-terminated
    memcpy(p_, s.data(), len);
    memset(p_ + len, 0, n - len);
    p_ += n;
  }

 private:
  uint8_t* p_;
};

class Reader {
 public:
  explicit Reader(const uint8_t* p) : p_(p) {}
  uint64_t u(size_t n) {
    uint64_t v = decode_le(p_, n);
    p_ += n;
    return v;
  }
  std::string str(size_t n) {
    std::string s = printable_text(p_, n, n - 1);
    p_ += n;
    return s;
  }

 private:
  const uint8_t* p_;
};

}  // namespace

std::string printable_text(const uint8_t* data, size_t size, size_t max) {
  size_t len = 0;
  while (len < size && len < max && data[len] != 0) ++len;
  return printable(std::string_view(reinterpret_cast<const char*>(data), len), max);
}

std::array<uint8_t, kRequestSize> encode_request(const Request& r) {
  std::array<uint8_t, kRequestSize> out{};
  Writer w(out.data());
  w.u(r.ver_maj, 2);
  w.u(r.ver_min, 2);
  w.u(r.ver_inc, 2);
  w.u(r.req_index, 2);
  for (uint32_t v : {r.access_recv, r.affinity, r.alt_port, r.flip, r.msg_size, r.mtu_size,
                     r.no_msgs, r.poll_mode, r.port, r.rd_atomic, r.sl, r.sock_buf_size,
                     r.src_path_bits, r.time, r.timeout, r.use_cm}) {
    w.u(v, 4);
  }
  w.str(r.id, kRequestStringSize);
  w.str(r.static_rate, kRequestStringSize);
  return out;
}

Request decode_request(const uint8_t* data) {
  Reader in(data);
  Request r;
  r.ver_maj = static_cast<uint16_t>(in.u(2));
  r.ver_min = static_cast<uint16_t>(in.u(2));
  r.ver_inc = static_cast<uint16_t>(in.u(2));
  r.req_index = static_cast<uint16_t>(in.u(2));
  for (uint32_t* field : {&r.access_recv, &r.affinity, &r.alt_port, &r.flip, &r.msg_size,
                          &r.mtu_size, &r.no_msgs, &r.poll_mode, &r.port, &r.rd_atomic, &r.sl,
                          &r.sock_buf_size, &r.src_path_bits, &r.time, &r.timeout, &r.use_cm}) {
    *field = static_cast<uint32_t>(in.u(4));
  }
  r.id = in.str(kRequestStringSize);
  r.static_rate = in.str(kRequestStringSize);
  return r;
}

std::string version_mismatch(uint16_t maj, uint16_t min, uint16_t inc) {
  if (maj == kVerMaj && min == kVerMin) return "";
  bool peer_higher = maj > kVerMaj || (maj == kVerMaj && min > kVerMin);
  auto text = [](uint16_t a, uint16_t b, uint16_t c) {
    return std::to_string(a) + "." + std::to_string(b) + "." + std::to_string(c);
  };
  // The message names the side to upgrade, as seen from the server (qperf's version_error).
  return peer_higher ? "upgrade qperf on server from " + text(kVerMaj, kVerMin, kVerInc) + " to " +
                           text(maj, min, inc)
                     : "upgrade qperf on client from " + text(maj, min, inc) + " to " +
                           text(kVerMaj, kVerMin, kVerInc);
}

const char* test_name(uint16_t index) { return index < kTableSize ? kTestNames[index] : nullptr; }

std::optional<uint16_t> test_index(std::string_view name) {
  for (uint16_t i = 0; i < kTableSize; ++i) {
    if (name == kTestNames[i]) return i;
  }
  return std::nullopt;
}

uint32_t default_msg_size(uint16_t index) {
  switch (index) {
    case 8:  // tcp_bw
    case 6:  // sdp_bw
      return 65536;
    case 10:  // udp_bw
    case 4:   // sctp_bw
      return 32768;
    case 2:  // rds_bw
      return 8192;
    default:
      return 1;
  }
}

std::array<uint8_t, kStatSize> encode_stat(const Stat& s) {
  std::array<uint8_t, kStatSize> out{};  // the filler goes out as zeros
  Writer w(out.data());
  w.u(s.no_cpus, 4);
  w.u(s.no_ticks, 4);
  w.u(s.max_cqes, 4);
  for (uint64_t t : s.time_s) w.u(t, 8);
  for (uint64_t t : s.time_e) w.u(t, 8);
  for (const Counters* c : {&s.s, &s.r, &s.rem_s, &s.rem_r}) {
    w.u(c->bytes, 8);
    w.u(c->msgs, 8);
    w.u(c->errs, 8);
  }
  return out;
}

Stat decode_stat(const uint8_t* data) {
  Reader in(data);
  Stat s;
  s.no_cpus = static_cast<uint32_t>(in.u(4));
  s.no_ticks = static_cast<uint32_t>(in.u(4));
  s.max_cqes = static_cast<uint32_t>(in.u(4));
  for (uint64_t& t : s.time_s) t = in.u(8);
  for (uint64_t& t : s.time_e) t = in.u(8);
  for (Counters* c : {&s.s, &s.r, &s.rem_s, &s.rem_r}) {
    c->bytes = in.u(8);
    c->msgs = in.u(8);
    c->errs = in.u(8);
  }
  return s;
}

std::array<uint8_t, kConfSize> encode_conf(const Conf& c) {
  std::array<uint8_t, kConfSize> out{};
  Writer w(out.data());
  for (const std::string* field : {&c.node, &c.cpu, &c.os, &c.version}) {
    w.str(*field, kConfFieldSize);
  }
  return out;
}

Conf decode_conf(const uint8_t* data) {
  Reader in(data);
  Conf c;
  for (std::string* field : {&c.node, &c.cpu, &c.os, &c.version}) {
    *field = in.str(kConfFieldSize);
  }
  return c;
}

}  // namespace fabperf::qperf_wire
