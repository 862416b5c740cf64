// Unit tests of qperf's wire format (src/qperf_wire/wire.h, stat_times.h): byte layouts checked
// against qperf 0.4.11's offsets (docs/protocol.md), hostile bytes, and qperf's per-node figures.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "qperf_wire/server_session.h"
#include "qperf_wire/stat_times.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {
namespace {

TEST(QperfWireRequest, TcpBwRequestBytesAsQperfSendsThem) {
  // `qperf host tcp_bw`: version 0.4.11, index 8, msg_size 64K, time 2, timeout 5, all else 0.
  Request req;
  req.req_index = 8;
  req.msg_size = 65536;
  req.time = 2;
  req.timeout = 5;
  auto bytes = encode_request(req);
  ASSERT_EQ(bytes.size(), 200u);
  std::vector<uint8_t> want(200, 0);
  const uint8_t head[] = {0, 0, 4, 0, 11, 0, 8, 0};
  memcpy(want.data(), head, sizeof head);
  want[24 + 2] = 1;  // msg_size 0x00010000, little-endian at offset 24
  want[60] = 2;      // time
  want[64] = 5;      // timeout
  EXPECT_EQ(std::vector<uint8_t>(bytes.begin(), bytes.end()), want);
}

TEST(QperfWireRequest, EveryFieldRoundTripsAtItsOffset) {
  Request req;
  req.req_index = 11;
  req.access_recv = 1;
  req.affinity = 3;
  req.alt_port = 4;
  req.flip = 5;
  req.msg_size = 0x01020304;
  req.mtu_size = 7;
  req.no_msgs = 8;
  req.poll_mode = 9;
  req.port = 40000;
  req.rd_atomic = 11;
  req.sl = 12;
  req.sock_buf_size = 13;
  req.src_path_bits = 14;
  req.time = 15;
  req.timeout = 16;
  req.use_cm = 17;
  req.id = "mlx5_0:1";
  req.static_rate = "10";
  auto bytes = encode_request(req);
  EXPECT_EQ(decode_le(bytes.data() + 8, 4), 1u);  // access_recv
  EXPECT_EQ(decode_le(bytes.data() + 24, 4), 0x01020304u);
  EXPECT_EQ(decode_le(bytes.data() + 40, 4), 40000u);  // port
  EXPECT_EQ(decode_le(bytes.data() + 68, 4), 17u);     // use_cm
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 72)), "mlx5_0:1");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(bytes.data() + 136)), "10");
  Request back = decode_request(bytes.data());
  EXPECT_EQ(back.req_index, 11);
  EXPECT_EQ(back.affinity, 3u);
  EXPECT_EQ(back.msg_size, 0x01020304u);
  EXPECT_EQ(back.sock_buf_size, 13u);
  EXPECT_EQ(back.time, 15u);
  EXPECT_EQ(back.timeout, 16u);
  EXPECT_EQ(back.id, "mlx5_0:1");
  EXPECT_EQ(back.static_rate, "10");
}

TEST(QperfWireRequest, HostileStringsComeBackBoundedAndPrintable) {
  std::vector<uint8_t> bytes(kRequestSize, 0xff);  // no NUL anywhere, nothing printable
  Request r = decode_request(bytes.data());
  EXPECT_EQ(r.ver_maj, 0xffff);
  EXPECT_EQ(r.msg_size, 0xffffffffu);
  EXPECT_EQ(r.id, std::string(63, '?'));
  EXPECT_EQ(r.static_rate, std::string(63, '?'));
}

TEST(QperfWireVersion, NamesTheSideToUpgradeAsQperfDoes) {
  EXPECT_EQ(version_mismatch(0, 4, 9), "");  // the increment is not checked
  EXPECT_EQ(version_mismatch(0, 4, 11), "");
  EXPECT_EQ(version_mismatch(0, 3, 0), "upgrade qperf on client from 0.3.0 to 0.4.11");
  EXPECT_EQ(version_mismatch(0, 5, 1), "upgrade qperf on server from 0.4.11 to 0.5.1");
  // What a stock server makes of a fabperf frame ("FBPF", version 1 big-endian).
  EXPECT_EQ(version_mismatch(0x4246, 0x4650, 0x0100),
            "upgrade qperf on server from 0.4.11 to 16966.18000.256");
}

TEST(QperfWireDialect, FirstByteTellsTheProtocolsApart) {
  const uint8_t fabperf[] = {'F', 'B', 'P', 'F'};
  const uint8_t qperf[] = {0, 0, 4, 0};
  EXPECT_FALSE(looks_like_request(fabperf, sizeof fabperf));
  EXPECT_TRUE(looks_like_request(qperf, sizeof qperf));
  EXPECT_TRUE(looks_like_request(qperf, 1));
  EXPECT_FALSE(looks_like_request(qperf, 0));
}

TEST(QperfWireTable, IndicesAreQperfs) {
  EXPECT_EQ(test_index("conf"), 0);
  EXPECT_EQ(test_index("quit"), 1);
  EXPECT_EQ(test_index("rds_bw"), 2);
  EXPECT_EQ(test_index("sctp_lat"), 5);
  EXPECT_EQ(test_index("tcp_bw"), 8);
  EXPECT_EQ(test_index("udp_lat"), 11);
  EXPECT_EQ(test_index("rc_bw"), 13);
  EXPECT_EQ(test_index("ver_rc_fetch_add"), 32);
  EXPECT_EQ(test_index("xrc_lat"), 35);
  EXPECT_FALSE(test_index("rdm_write_lat").has_value());
  EXPECT_STREQ(test_name(9), "tcp_lat");
  EXPECT_EQ(test_name(36), nullptr);
  EXPECT_EQ(test_name(0xffff), nullptr);
  EXPECT_EQ(default_msg_size(8), 65536u);   // tcp_bw
  EXPECT_EQ(default_msg_size(10), 32768u);  // udp_bw
  EXPECT_EQ(default_msg_size(4), 32768u);   // sctp_bw
  EXPECT_EQ(default_msg_size(2), 8192u);    // rds_bw
  EXPECT_EQ(default_msg_size(9), 1u);       // tcp_lat
}

TEST(QperfWireStat, FieldsSitAtThePackedOffsetsIn256Bytes) {
  Stat s;
  s.no_cpus = 2;
  s.no_ticks = 100;
  s.time_s[kReal] = 1000;
  s.time_e[kReal] = 1200;
  s.time_e[kSteal] = 77;
  s.s = {10, 20, 30};
  s.r = {40, 50, 60};
  s.rem_s = {1, 2, 3};
  s.rem_r = {4, 5, 6};
  auto bytes = encode_stat(s);
  ASSERT_EQ(bytes.size(), 256u);
  EXPECT_EQ(decode_le(bytes.data() + 0, 4), 2u);
  EXPECT_EQ(decode_le(bytes.data() + 4, 4), 100u);
  EXPECT_EQ(decode_le(bytes.data() + 12, 8), 1000u);     // time_s[real]
  EXPECT_EQ(decode_le(bytes.data() + 84, 8), 1200u);     // time_e[real]
  EXPECT_EQ(decode_le(bytes.data() + 84 + 64, 8), 77u);  // time_e[steal]
  EXPECT_EQ(decode_le(bytes.data() + 156, 8), 10u);      // s.bytes
  EXPECT_EQ(decode_le(bytes.data() + 180 + 8, 8), 50u);  // r.msgs
  EXPECT_EQ(decode_le(bytes.data() + 204 + 16, 8), 3u);  // rem_s.errs
  EXPECT_EQ(decode_le(bytes.data() + 228 + 16, 8), 6u);  // rem_r.errs
  EXPECT_EQ(decode_le(bytes.data() + 252, 4), 0u);       // the filler
  Stat back = decode_stat(bytes.data());
  EXPECT_EQ(back.no_ticks, 100u);
  EXPECT_EQ(back.time_e[kReal], 1200u);
  EXPECT_EQ(back.r.msgs, 50u);
  EXPECT_EQ(back.rem_r.errs, 6u);
}

TEST(QperfWireStat, FillerBytesAreIgnored) {
  std::vector<uint8_t> bytes(kStatSize, 0);
  bytes[252] = bytes[253] = bytes[254] = bytes[255] = 0xee;  // a stock server's stack garbage
  Stat s = decode_stat(bytes.data());
  EXPECT_EQ(s.rem_r.errs, 0u);
}

TEST(QperfWireConf, RoundTripsAndSanitisesAStockServersGarbage) {
  auto bytes = encode_conf({"node1", "2 Cores: AMD EPYC 2.6GHz", "Linux 6.1", "0.4.11"});
  Conf c = decode_conf(bytes.data());
  EXPECT_EQ(c.node, "node1");
  EXPECT_EQ(c.cpu, "2 Cores: AMD EPYC 2.6GHz");
  EXPECT_EQ(c.os, "Linux 6.1");
  EXPECT_EQ(c.version, "0.4.11");
  // A stock server leaves the cpu field uninitialised when /proc/cpuinfo has no model name.
  for (size_t i = 64; i < 128; ++i) bytes[i] = static_cast<uint8_t>(i * 7);
  c = decode_conf(bytes.data());
  EXPECT_EQ(c.cpu.size(), 63u);
  for (char ch : c.cpu) EXPECT_TRUE(ch >= 0x20 && ch < 0x7f) << int(ch);
  EXPECT_EQ(c.os, "Linux 6.1");
  // A long node name is cut, always NUL-terminated on the wire.
  bytes = encode_conf({std::string(100, 'n'), "", "", ""});
  EXPECT_EQ(bytes[63], 0);
  EXPECT_EQ(decode_conf(bytes.data()).node, std::string(63, 'n'));
}

TEST(QperfWireFigures, ServerSideAsQperfsClientComputesIt) {
  Stat s;
  s.no_ticks = 100;
  s.time_s[kReal] = 5000;
  s.time_e[kReal] = 5200;  // 2 s
  const uint64_t used[kTimeFields] = {0, 50, 10, 20, 100, 10, 3, 2, 5};
  for (int f = 1; f < kTimeFields; ++f) {
    s.time_s[f] = 1000;
    s.time_e[f] = 1000 + used[f];
  }
  s.r = {2000000000, 30000, 0};
  SideStats side = side_stats_from_stat(s);
  EXPECT_EQ(side.recv_bytes, 2000000000u);
  EXPECT_EQ(side.recv_msgs, 30000u);
  EXPECT_EQ(side.real_time_ns, 2000000000);
  EXPECT_EQ(side.recv_time_ns, 2000000000);
  EXPECT_DOUBLE_EQ(side.cpu.cpus_user, 30);      // (user + nice) / real
  EXPECT_DOUBLE_EQ(side.cpu.cpus_kernel, 12.5);  // (system + steal) / real
  EXPECT_DOUBLE_EQ(side.cpu.cpus_intr, 2.5);     // (irq + softirq) / real
  EXPECT_DOUBLE_EQ(side.cpu.cpus_iowait, 5);
  EXPECT_DOUBLE_EQ(side.cpu.cpus_used, 50);
  EXPECT_DOUBLE_EQ(side.cpu.cpu_time_s, 1.0);  // every field but real and idle
  EXPECT_DOUBLE_EQ(stat_real_seconds(s), 2.0);
}

TEST(QperfWireFigures, HostileBlocksGiveFiniteFigures) {
  Stat s;
  s.no_ticks = 0;  // no clock
  s.time_e[kReal] = 100;
  EXPECT_EQ(side_stats_from_stat(s).real_time_ns, 0);
  s.no_ticks = 1;
  s.time_s[kReal] = 0;
  s.time_e[kReal] = UINT64_MAX;  // "18 billion billion seconds"
  s.time_e[kUser] = UINT64_MAX;
  SideStats side = side_stats_from_stat(s);
  EXPECT_GT(side.real_time_ns, 0);
  EXPECT_LE(side.real_time_ns, int64_t{1'000'000'000} * 1'000'000'000);
  EXPECT_TRUE(std::isfinite(side.cpu.cpus_used));
  s.time_s[kReal] = 10;
  s.time_e[kReal] = 5;  // the clock went backwards
  side = side_stats_from_stat(s);
  EXPECT_EQ(side.real_time_ns, 0);
  EXPECT_EQ(side.cpu.cpus_used, 0);
}

TEST(QperfWireFigures, OurBlocksCountMicrosecondsOnEveryField) {
  uint64_t start[kTimeFields], end[kTimeFields];
  take_times(start);
  take_times(end);
  Stat s = make_stat(start, end, {1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(s.no_ticks, kTicksPerSecond);
  EXPECT_GE(s.no_cpus, 1u);
  EXPECT_GE(s.time_e[kReal], s.time_s[kReal]);
  EXPECT_EQ(s.s.errs, 3u);
  EXPECT_EQ(s.r.bytes, 4u);
  // /proc/stat's ticks are scaled: a count of USER_HZ ticks is a multiple of 10,000 us.
  if (s.time_s[kUser] > 0) {
    EXPECT_EQ(s.time_s[kUser] % (kTicksPerSecond / 100), 0u);
  }
}

TEST(QperfWireParams, RequestMapsOntoFabperfsOptions) {
  Request req;
  req.msg_size = 4096;
  req.time = 3;
  req.timeout = 7;
  req.affinity = 2;  // CPU 1
  req.sock_buf_size = 65536;
  req.port = 40001;
  req.access_recv = 1;
  RunOptions o = request_options(req);
  EXPECT_EQ(o.msg_size, 4096u);
  EXPECT_DOUBLE_EQ(o.time, 3);
  EXPECT_DOUBLE_EQ(o.timeout, 7);
  EXPECT_EQ(o.cpu_affinity, "1");
  EXPECT_EQ(o.sock_buf_size, 65536u);
  EXPECT_EQ(o.ip_port, 40001u);
  EXPECT_TRUE(o.access_recv);
  EXPECT_EQ(o.no_msgs, 0u);
  EXPECT_EQ(o.warmup, 0u);  // qperf's server loops have none
  EXPECT_EQ(request_options(Request{}).cpu_affinity, "");
}

}  // namespace
}  // namespace fabperf::qperf_wire
