// Tests for qperf-compatible number, unit and block formatting (report/qperf_format.h).
//
// Expected strings come from the real qperf 0.4.11 run on loopback (qperf -lp 29765 ...).
#include "report/qperf_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace fabperf {
namespace {

std::string shown(double value, Unit unit, FormatOptions options = {}) {
  Shown s = format_figure(value, unit, options);
  return s.unit.empty() ? s.value : s.value + " " + s.unit;
}

FormatOptions unified() {
  FormatOptions options;
  options.unify_units = true;
  return options;
}

FormatOptions in_bits() {
  FormatOptions options;
  options.bits = true;
  return options;
}

FormatOptions with_precision(int digits) {
  FormatOptions options;
  options.precision = digits;
  return options;
}

struct NumberCase {
  double value;
  int precision;
  const char* expected;
};

TEST(QperfFormatNumber, Table) {
  const NumberCase cases[] = {
      // Figures as qperf 0.4.11 prints them (its output, verbatim).
      {39.7, 3, "39.7"},
      {1.87, 3, "1.87"},
      {683, 3, "683"},
      {26.3, 3, "26.3"},
      {38.04, 3, "38"},
      {70, 3, "70"},
      {1.24, 3, "1.24"},
      {83.3, 3, "83.3"},
      // The integer part is never cut to `precision` digits ...
      {137.4, 3, "137"},
      {12345, 3, "12345"},
      // ... but it is rounded, as "%.0f" does: qperf -m 999500 -vu prints "1,000 KB" and
      // -m 1999500 -e 1 prints "2 MB".
      {12345.6, 3, "12346"},
      {999.5, 3, "1000"},
      {999.6, 3, "1000"},
      {999.4, 3, "999"},
      {1.9995, 1, "2"},
      // Decimals fill up to `precision` significant digits; zeros and a bare point go.
      {1.536, 3, "1.54"},
      {1.023, 3, "1.02"},
      {12.345, 3, "12.3"},
      {1.5, 3, "1.5"},
      {10, 3, "10"},
      {100, 3, "100"},
      {1000, 3, "1000"},
      {0, 3, "0"},
      {0.5, 3, "0.5"},
      {0.001, 3, "0"},
      {0.005, 3, "0.01"},
      {9.996, 3, "10"},
      {99.96, 3, "100"},
      {-1.5, 3, "-1.5"},
      {-1234.5, 3, "-1234"},  // glibc rounds the exact half to even
      // -e: qperf -e 5 / -e 0 / -e 10 output.
      {349.9, 5, "349.9"},
      {553.91, 5, "553.91"},
      {3.7153, 5, "3.7153"},
      {2.347, 5, "2.347"},
      {286.49, 5, "286.49"},
      {130, 5, "130"},
      {12.345, 1, "12"},
      {12.345, 0, "12"},
      {3.4, 0, "3"},
      {1.023, 10, "1.023"},
      {1.000001, 9, "1.000001"},
      {1.023, 4, "1.023"},
      {2.5, -1, "2"},
  };
  for (const NumberCase& c : cases) {
    EXPECT_EQ(format_number(c.value, c.precision), c.expected)
        << c.value << " with precision " << c.precision;
  }
}

TEST(QperfFormatNumber, NonFinite) {
  EXPECT_EQ(format_number(std::numeric_limits<double>::infinity(), 3), "inf");
  EXPECT_EQ(format_number(-std::numeric_limits<double>::infinity(), 3), "-inf");
}

TEST(QperfFormatFigure, Time) {
  EXPECT_EQ(shown(0, Unit::kTime), "0 ns");
  EXPECT_EQ(shown(1e-9, Unit::kTime), "1 ns");
  EXPECT_EQ(shown(999e-9, Unit::kTime), "999 ns");
  EXPECT_EQ(shown(1.5e-6, Unit::kTime), "1.5 us");
  EXPECT_EQ(shown(39.7e-6, Unit::kTime), "39.7 us");
  EXPECT_EQ(shown(52.8e-6, Unit::kTime), "52.8 us");
  EXPECT_EQ(shown(999e-6, Unit::kTime), "999 us");
  EXPECT_EQ(shown(0.44, Unit::kTime), "440 ms");
  EXPECT_EQ(shown(0.999, Unit::kTime), "999 ms");
  // Whole seconds: "time = 1 sec", "timeout = 5 sec".
  EXPECT_EQ(shown(1, Unit::kTime), "1 sec");
  EXPECT_EQ(shown(5, Unit::kTime), "5 sec");
  EXPECT_EQ(shown(1.46, Unit::kTime), "1.46 sec");
  EXPECT_EQ(shown(120, Unit::kTime), "120 sec");
  // sec is the top of the ladder.
  EXPECT_EQ(shown(3600, Unit::kTime), "3,600 sec");
  EXPECT_EQ(shown(86400, Unit::kTime), "86,400 sec");
}

TEST(QperfFormatFigure, TimeBoundaryRoundsUpWithinTheUnit) {
  // 999.6 ns is below 1000 so it is not scaled, and "%.0f" then makes it "1,000 ns".
  EXPECT_EQ(shown(999.6e-9, Unit::kTime), "1,000 ns");
}

TEST(QperfFormatFigure, Bandwidth) {
  EXPECT_EQ(shown(0, Unit::kBandwidth), "0 bytes/sec");
  EXPECT_EQ(shown(999, Unit::kBandwidth), "999 bytes/sec");
  EXPECT_EQ(shown(1000, Unit::kBandwidth), "1 KB/sec");
  EXPECT_EQ(shown(999999, Unit::kBandwidth), "1,000 KB/sec");
  EXPECT_EQ(shown(1e6, Unit::kBandwidth), "1 MB/sec");
  EXPECT_EQ(shown(1.99e6, Unit::kBandwidth), "1.99 MB/sec");
  EXPECT_EQ(shown(683e6, Unit::kBandwidth), "683 MB/sec");
  EXPECT_EQ(shown(1e9, Unit::kBandwidth), "1 GB/sec");
  EXPECT_EQ(shown(1.87e9, Unit::kBandwidth), "1.87 GB/sec");
  EXPECT_EQ(shown(1e12, Unit::kBandwidth), "1 TB/sec");
  EXPECT_EQ(shown(1e15, Unit::kBandwidth), "1,000 TB/sec");
}

TEST(QperfFormatFigure, BandwidthInBits) {
  EXPECT_EQ(shown(124, Unit::kBandwidth, in_bits()), "992 bits/sec");
  EXPECT_EQ(shown(125, Unit::kBandwidth, in_bits()), "1 Kb/sec");
  EXPECT_EQ(shown(1.95e6, Unit::kBandwidth, in_bits()), "15.6 Mb/sec");
  EXPECT_EQ(shown(2.33e9, Unit::kBandwidth, in_bits()), "18.6 Gb/sec");
  EXPECT_EQ(shown(125e9, Unit::kBandwidth, in_bits()), "1 Tb/sec");
  // -ub -e 6: "bw = 17.0663 Mb/sec".
  FormatOptions options = in_bits();
  options.precision = 6;
  EXPECT_EQ(shown(2133287.5, Unit::kBandwidth, options), "17.0663 Mb/sec");
  // -ub only changes bandwidth.
  EXPECT_EQ(shown(1.95e6, Unit::kSize, in_bits()), "1.95 MB");
  EXPECT_EQ(shown(1.95e6, Unit::kRate, in_bits()), "1.95 M/sec");
  EXPECT_EQ(shown(986, Unit::kCost, in_bits()), "986 sec/GB");
}

TEST(QperfFormatFigure, Rate) {
  EXPECT_EQ(shown(999, Unit::kRate), "999 /sec");
  EXPECT_EQ(shown(1000, Unit::kRate), "1 K/sec");
  EXPECT_EQ(shown(26.3e3, Unit::kRate), "26.3 K/sec");
  EXPECT_EQ(shown(251e3, Unit::kRate), "251 K/sec");
  EXPECT_EQ(shown(1.99e6, Unit::kRate), "1.99 M/sec");
  EXPECT_EQ(shown(1e9, Unit::kRate), "1 G/sec");
  EXPECT_EQ(shown(1e12, Unit::kRate), "1 T/sec");
}

TEST(QperfFormatFigure, Cost) {
  EXPECT_EQ(shown(1e-9, Unit::kCost), "1 ns/GB");
  EXPECT_EQ(shown(999e-9, Unit::kCost), "999 ns/GB");
  EXPECT_EQ(shown(1e-6, Unit::kCost), "1 us/GB");
  EXPECT_EQ(shown(0.628, Unit::kCost), "628 ms/GB");
  EXPECT_EQ(shown(0.7109, Unit::kCost), "711 ms/GB");
  EXPECT_EQ(shown(898, Unit::kCost), "898 sec/GB");
  EXPECT_EQ(shown(4321, Unit::kCost), "4,321 sec/GB");
}

TEST(QperfFormatFigure, SizeBinaryMultiples) {
  EXPECT_EQ(shown(1024, Unit::kSize), "1 KiB (1,024)");
  EXPECT_EQ(shown(2048, Unit::kSize), "2 KiB (2,048)");
  EXPECT_EQ(shown(8192, Unit::kSize), "8 KiB (8,192)");
  EXPECT_EQ(shown(65536, Unit::kSize), "64 KiB (65,536)");
  EXPECT_EQ(shown(102400, Unit::kSize), "100 KiB (102,400)");
  EXPECT_EQ(shown(1048576, Unit::kSize), "1 MiB (1,048,576)");
  EXPECT_EQ(shown(1073741824, Unit::kSize), "1 GiB (1,073,741,824)");
  EXPECT_EQ(shown(5368709120.0, Unit::kSize), "5 GiB (5,368,709,120)");
  EXPECT_EQ(shown(1099511627776.0, Unit::kSize), "1 TiB (1,099,511,627,776)");
  // TiB is the top: 1024 TiB keeps its digits.
  EXPECT_EQ(shown(1125899906842624.0, Unit::kSize), "1,024 TiB (1,125,899,906,842,624)");
  // Whole value and commas are independent of -e.
  EXPECT_EQ(shown(8192, Unit::kSize, with_precision(1)), "8 KiB (8,192)");
}

TEST(QperfFormatFigure, SizeOtherValues) {
  // qperf -m 1 / 999 / 1000 / 1023 / 1025 / 1.5K / 100k / 12345 / 999499 / 999500 / 1000000 /
  // 1025K / 1048577 -vu.
  EXPECT_EQ(shown(0, Unit::kSize), "0 bytes");
  EXPECT_EQ(shown(1, Unit::kSize), "1 bytes");
  EXPECT_EQ(shown(999, Unit::kSize), "999 bytes");
  EXPECT_EQ(shown(1000, Unit::kSize), "1 KB");
  EXPECT_EQ(shown(1023, Unit::kSize), "1.02 KB");
  EXPECT_EQ(shown(1025, Unit::kSize), "1.02 KB");
  EXPECT_EQ(shown(1500, Unit::kSize), "1.5 KB");
  EXPECT_EQ(shown(1536, Unit::kSize), "1.54 KB");
  EXPECT_EQ(shown(100000, Unit::kSize), "100 KB");
  EXPECT_EQ(shown(12345, Unit::kSize), "12.3 KB");
  EXPECT_EQ(shown(999499, Unit::kSize), "999 KB");
  EXPECT_EQ(shown(999500, Unit::kSize), "1,000 KB");
  EXPECT_EQ(shown(999600, Unit::kSize), "1,000 KB");
  EXPECT_EQ(shown(1000000, Unit::kSize), "1 MB");
  EXPECT_EQ(shown(1049600, Unit::kSize), "1.05 MB");  // 1025 KiB: not a power-of-1024 multiple
  EXPECT_EQ(shown(1048577, Unit::kSize), "1.05 MB");
  EXPECT_EQ(shown(2.33e9, Unit::kSize), "2.33 GB");
  EXPECT_EQ(shown(5e12, Unit::kSize), "5 TB");
  EXPECT_EQ(shown(1999500, Unit::kSize, with_precision(1)), "2 MB");
  EXPECT_EQ(shown(12345, Unit::kSize, with_precision(0)), "12 KB");
  EXPECT_EQ(shown(1023, Unit::kSize, with_precision(10)), "1.023 KB");
  EXPECT_EQ(shown(1000001, Unit::kSize, with_precision(9)), "1.000001 MB");
  EXPECT_EQ(shown(1536.5, Unit::kSize), "1.54 KB");  // not whole: never KiB
}

TEST(QperfFormatFigure, Count) {
  Shown s = format_figure(302404, Unit::kCount, {});
  EXPECT_EQ(s.value, "302,404");
  EXPECT_EQ(s.unit, "");
  EXPECT_FALSE(s.text);
  EXPECT_EQ(shown(0, Unit::kCount), "0");
  EXPECT_EQ(shown(999, Unit::kCount), "999");
  EXPECT_EQ(shown(1000, Unit::kCount), "1,000");
  EXPECT_EQ(shown(999999, Unit::kCount), "999,999");
  // From a million up qperf uses words (tcp_bw -m 1 -vv: "send_msgs = 3.99 million").
  EXPECT_EQ(shown(1000000, Unit::kCount), "1 million");
  EXPECT_EQ(shown(3990000, Unit::kCount), "3.99 million");
  EXPECT_EQ(shown(999999999, Unit::kCount), "1,000 million");
  EXPECT_EQ(shown(1e9, Unit::kCount), "1 billion");
  EXPECT_EQ(shown(1e12, Unit::kCount), "1 trillion");
  EXPECT_EQ(shown(1e15, Unit::kCount), "1,000 trillion");
}

TEST(QperfFormatFigure, PercentCpus) {
  EXPECT_EQ(shown(70, Unit::kPercentCpus), "70 % cpus");
  EXPECT_EQ(shown(146, Unit::kPercentCpus), "146 % cpus");
  EXPECT_EQ(shown(24.5, Unit::kPercentCpus), "24.5 % cpus");
  EXPECT_EQ(shown(6.5, Unit::kPercentCpus), "6.5 % cpus");
  EXPECT_EQ(shown(1600, Unit::kPercentCpus), "1,600 % cpus");
}

// -uu: no scaling (times in ns, costs in ns/GB), no KiB, no commas.
TEST(QperfFormatFigure, UnifiedUnits) {
  EXPECT_EQ(shown(1, Unit::kTime, unified()), "1000000000 ns");
  EXPECT_EQ(shown(5, Unit::kTime, unified()), "5000000000 ns");
  EXPECT_EQ(shown(47.492e-6, Unit::kTime, unified()), "47492 ns");
  // qperf's cpu time is a float: (float)1.36 * 1e9.
  EXPECT_EQ(shown(static_cast<double>(1.36f), Unit::kTime, unified()), "1360000014 ns");
  EXPECT_EQ(shown(0.574786645, Unit::kCost, unified()), "574786645 ns/GB");
  EXPECT_EQ(shown(689.61236316, Unit::kCost, unified()), "689612363160 ns/GB");
  EXPECT_EQ(shown(2366095360, Unit::kBandwidth, unified()), "2366095360 bytes/sec");
  EXPECT_EQ(shown(253726, Unit::kRate, unified()), "253726 /sec");
  EXPECT_EQ(shown(8192, Unit::kSize, unified()), "8192 bytes");
  EXPECT_EQ(shown(1, Unit::kSize, unified()), "1 bytes");
  EXPECT_EQ(shown(2366095360, Unit::kSize, unified()), "2366095360 bytes");
  EXPECT_EQ(shown(5379834, Unit::kCount, unified()), "5379834");
  EXPECT_EQ(shown(288830, Unit::kCount, unified()), "288830");
  EXPECT_EQ(shown(136, Unit::kPercentCpus, unified()), "136 % cpus");
  EXPECT_EQ(shown(6.5, Unit::kPercentCpus, unified()), "6.5 % cpus");
  EXPECT_EQ(shown(1600, Unit::kPercentCpus, unified()), "1600 % cpus");
  // -uu -ub: "bw = 18694248 bits/sec".
  FormatOptions options = unified();
  options.bits = true;
  EXPECT_EQ(shown(2336781, Unit::kBandwidth, options), "18694248 bits/sec");
}

TEST(QperfFormatFigure, NegativeValuesAreNotScaled) {
  EXPECT_EQ(shown(-5000, Unit::kRate), "-5,000 /sec");
}

TEST(QperfFormatFigure, Text) {
  Shown s = format_text("2 Cores: Intel Xeon Processor 2.3GHz");
  EXPECT_EQ(s.value, "2 Cores: Intel Xeon Processor 2.3GHz");
  EXPECT_EQ(s.unit, "");
  EXPECT_TRUE(s.text);
  Shown number = format_figure(1.5, Unit::kText, {});
  EXPECT_EQ(number.value, "1.5");
  EXPECT_TRUE(number.text);
}

Line L(const char* name, double value, Unit unit, FormatOptions options = {}) {
  return Line{name, format_figure(value, unit, options)};
}

TEST(QperfRenderBlock, EmptyBlockIsJustTheTitle) {
  // qperf localhost quit
  EXPECT_EQ(render_block("quit", {}), "quit:\n");
}

TEST(QperfRenderBlock, ReferenceExamples) {
  EXPECT_EQ(render_block("tcp_lat", {L("latency", 39.7e-6, Unit::kTime)}),
            "tcp_lat:\n"
            "    latency  =  39.7 us\n");
  EXPECT_EQ(render_block("tcp_bw", {L("bw", 1.87e9, Unit::kBandwidth)}),
            "tcp_bw:\n"
            "    bw  =  1.87 GB/sec\n");
  EXPECT_EQ(render_block("tcp_lat",
                         {L("latency", 38.04e-6, Unit::kTime), L("msg_rate", 26.3e3, Unit::kRate),
                          L("loc_cpus_used", 70, Unit::kPercentCpus),
                          L("rem_cpus_used", 70, Unit::kPercentCpus)}),
            "tcp_lat:\n"
            "    latency        =    38 us\n"
            "    msg_rate       =  26.3 K/sec\n"
            "    loc_cpus_used  =    70 % cpus\n"
            "    rem_cpus_used  =    70 % cpus\n");
}

// qperf -lp 29765 localhost -t 1 -v tcp_lat
TEST(QperfRenderBlock, GoldenTcpLatVerbose) {
  EXPECT_EQ(render_block("tcp_lat",
                         {L("latency", 39.3e-6, Unit::kTime), L("msg_rate", 25.4e3, Unit::kRate),
                          L("time", 1, Unit::kTime), L("loc_cpus_used", 52, Unit::kPercentCpus),
                          L("rem_cpus_used", 52, Unit::kPercentCpus)}),
            "tcp_lat:\n"
            "    latency        =  39.3 us\n"
            "    msg_rate       =  25.4 K/sec\n"
            "    time           =     1 sec\n"
            "    loc_cpus_used  =    52 % cpus\n"
            "    rem_cpus_used  =    52 % cpus\n");
}

// qperf -lp 29765 localhost -t 1 -vv -m 8K udp_bw
TEST(QperfRenderBlock, GoldenUdpBwVeryVerbose) {
  const std::vector<Line> lines = {
      L("send_bw", 2.54e9, Unit::kBandwidth),
      L("recv_bw", 1.95e9, Unit::kBandwidth),
      L("msg_rate", 238e3, Unit::kRate),
      L("msg_size", 8192, Unit::kSize),
      L("time", 1, Unit::kTime),
      L("timeout", 5, Unit::kTime),
      L("send_cost", 0.529, Unit::kCost),
      L("recv_cost", 0.688, Unit::kCost),
      L("send_cpus_used", 134, Unit::kPercentCpus),
      L("send_cpus_user", 5, Unit::kPercentCpus),
      L("send_cpus_intr", 46, Unit::kPercentCpus),
      L("send_cpus_kernel", 83, Unit::kPercentCpus),
      L("send_real_time", 1, Unit::kTime),
      L("send_cpu_time", 1.34, Unit::kTime),
      L("send_bytes", 2.54e9, Unit::kSize),
      L("send_msgs", 309462, Unit::kCount),
      L("recv_cpus_used", 134, Unit::kPercentCpus),
      L("recv_cpus_user", 5, Unit::kPercentCpus),
      L("recv_cpus_intr", 46, Unit::kPercentCpus),
      L("recv_cpus_kernel", 83, Unit::kPercentCpus),
      L("recv_real_time", 1, Unit::kTime),
      L("recv_cpu_time", 1.34, Unit::kTime),
      L("recv_bytes", 1.95e9, Unit::kSize),
      L("recv_msgs", 237865, Unit::kCount),
  };
  EXPECT_EQ(render_block("udp_bw", lines),
            "udp_bw:\n"
            "    send_bw           =     2.54 GB/sec\n"
            "    recv_bw           =     1.95 GB/sec\n"
            "    msg_rate          =      238 K/sec\n"
            "    msg_size          =        8 KiB (8,192)\n"
            "    time              =        1 sec\n"
            "    timeout           =        5 sec\n"
            "    send_cost         =      529 ms/GB\n"
            "    recv_cost         =      688 ms/GB\n"
            "    send_cpus_used    =      134 % cpus\n"
            "    send_cpus_user    =        5 % cpus\n"
            "    send_cpus_intr    =       46 % cpus\n"
            "    send_cpus_kernel  =       83 % cpus\n"
            "    send_real_time    =        1 sec\n"
            "    send_cpu_time     =     1.34 sec\n"
            "    send_bytes        =     2.54 GB\n"
            "    send_msgs         =  309,462 \n"
            "    recv_cpus_used    =      134 % cpus\n"
            "    recv_cpus_user    =        5 % cpus\n"
            "    recv_cpus_intr    =       46 % cpus\n"
            "    recv_cpus_kernel  =       83 % cpus\n"
            "    recv_real_time    =        1 sec\n"
            "    recv_cpu_time     =     1.34 sec\n"
            "    recv_bytes        =     1.95 GB\n"
            "    recv_msgs         =  237,865 \n");
}

// qperf -lp 29765 localhost -t 1 -vv -m 8K -uu udp_bw
TEST(QperfRenderBlock, GoldenUdpBwUnifiedUnits) {
  const FormatOptions uu = unified();
  const double cpu_time = static_cast<double>(1.36f);  // qperf keeps cpu time in a float
  const std::vector<Line> lines = {
      L("send_bw", 2173837312, Unit::kBandwidth, uu),
      L("recv_bw", 1992638464, Unit::kBandwidth, uu),
      L("msg_rate", 243242, Unit::kRate, uu),
      L("msg_size", 8192, Unit::kSize, uu),
      L("time", 1, Unit::kTime, uu),
      L("timeout", 5, Unit::kTime, uu),
      L("send_cost", 0.625621801, Unit::kCost, uu),
      L("recv_cost", 0.682512176, Unit::kCost, uu),
      L("send_cpus_used", 136, Unit::kPercentCpus, uu),
      L("send_cpus_user", 6, Unit::kPercentCpus, uu),
      L("send_cpus_intr", 47, Unit::kPercentCpus, uu),
      L("send_cpus_kernel", 83, Unit::kPercentCpus, uu),
      L("send_real_time", 1, Unit::kTime, uu),
      L("send_cpu_time", cpu_time, Unit::kTime, uu),
      L("send_bytes", 2173837312, Unit::kSize, uu),
      L("send_msgs", 265361, Unit::kCount, uu),
      L("recv_cpus_used", 136, Unit::kPercentCpus, uu),
      L("recv_cpus_user", 6, Unit::kPercentCpus, uu),
      L("recv_cpus_intr", 47, Unit::kPercentCpus, uu),
      L("recv_cpus_kernel", 83, Unit::kPercentCpus, uu),
      L("recv_real_time", 1, Unit::kTime, uu),
      L("recv_cpu_time", cpu_time, Unit::kTime, uu),
      L("recv_bytes", 1992638464, Unit::kSize, uu),
      L("recv_msgs", 243242, Unit::kCount, uu),
  };
  EXPECT_EQ(render_block("udp_bw", lines),
            "udp_bw:\n"
            "    send_bw           =  2173837312 bytes/sec\n"
            "    recv_bw           =  1992638464 bytes/sec\n"
            "    msg_rate          =      243242 /sec\n"
            "    msg_size          =        8192 bytes\n"
            "    time              =  1000000000 ns\n"
            "    timeout           =  5000000000 ns\n"
            "    send_cost         =   625621801 ns/GB\n"
            "    recv_cost         =   682512176 ns/GB\n"
            "    send_cpus_used    =         136 % cpus\n"
            "    send_cpus_user    =           6 % cpus\n"
            "    send_cpus_intr    =          47 % cpus\n"
            "    send_cpus_kernel  =          83 % cpus\n"
            "    send_real_time    =  1000000000 ns\n"
            "    send_cpu_time     =  1360000014 ns\n"
            "    send_bytes        =  2173837312 bytes\n"
            "    send_msgs         =      265361 \n"
            "    recv_cpus_used    =         136 % cpus\n"
            "    recv_cpus_user    =           6 % cpus\n"
            "    recv_cpus_intr    =          47 % cpus\n"
            "    recv_cpus_kernel  =          83 % cpus\n"
            "    recv_real_time    =  1000000000 ns\n"
            "    recv_cpu_time     =  1360000014 ns\n"
            "    recv_bytes        =  1992638464 bytes\n"
            "    recv_msgs         =      243242 \n");
}

// qperf -lp 29765 localhost -t 1 -vv -m 1 -ub tcp_bw
TEST(QperfRenderBlock, GoldenTcpBwBitsWithMillions) {
  const FormatOptions ub = in_bits();
  const std::vector<Line> lines = {
      L("bw", 1.95e6, Unit::kBandwidth, ub),
      L("msg_rate", 1.95e6, Unit::kRate, ub),
      L("msg_size", 1, Unit::kSize, ub),
      L("time", 1, Unit::kTime, ub),
      L("timeout", 5, Unit::kTime, ub),
      L("send_cost", 986, Unit::kCost, ub),
      L("recv_cost", 986, Unit::kCost, ub),
      L("send_cpus_used", 192, Unit::kPercentCpus, ub),
      L("send_cpus_user", 32, Unit::kPercentCpus, ub),
      L("send_cpus_kernel", 160, Unit::kPercentCpus, ub),
      L("send_real_time", 1, Unit::kTime, ub),
      L("send_cpu_time", 1.92, Unit::kTime, ub),
      L("send_bytes", 1.95e6, Unit::kSize, ub),
      L("send_msgs", 1.95e6, Unit::kCount, ub),
      L("recv_cpus_used", 192, Unit::kPercentCpus, ub),
      L("recv_cpus_user", 32, Unit::kPercentCpus, ub),
      L("recv_cpus_kernel", 160, Unit::kPercentCpus, ub),
      L("recv_real_time", 1, Unit::kTime, ub),
      L("recv_cpu_time", 1.92, Unit::kTime, ub),
      L("recv_bytes", 1.95e6, Unit::kSize, ub),
      L("recv_msgs", 1.95e6, Unit::kCount, ub),
  };
  EXPECT_EQ(render_block("tcp_bw", lines),
            "tcp_bw:\n"
            "    bw                =  15.6 Mb/sec\n"
            "    msg_rate          =  1.95 M/sec\n"
            "    msg_size          =     1 bytes\n"
            "    time              =     1 sec\n"
            "    timeout           =     5 sec\n"
            "    send_cost         =   986 sec/GB\n"
            "    recv_cost         =   986 sec/GB\n"
            "    send_cpus_used    =   192 % cpus\n"
            "    send_cpus_user    =    32 % cpus\n"
            "    send_cpus_kernel  =   160 % cpus\n"
            "    send_real_time    =     1 sec\n"
            "    send_cpu_time     =  1.92 sec\n"
            "    send_bytes        =  1.95 MB\n"
            "    send_msgs         =  1.95 million\n"
            "    recv_cpus_used    =   192 % cpus\n"
            "    recv_cpus_user    =    32 % cpus\n"
            "    recv_cpus_kernel  =   160 % cpus\n"
            "    recv_real_time    =     1 sec\n"
            "    recv_cpu_time     =  1.92 sec\n"
            "    recv_bytes        =  1.95 MB\n"
            "    recv_msgs         =  1.95 million\n");
}

// qperf -lp 29765 localhost -t 1 -vv -un -e 5 tcp_lat
TEST(QperfRenderBlock, GoldenTcpLatUnifiedNodesPrecision5) {
  const FormatOptions e5 = with_precision(5);
  std::vector<Line> lines = {
      L("latency", 56.59e-6, Unit::kTime, e5), L("msg_rate", 17.671e3, Unit::kRate, e5),
      L("msg_size", 1, Unit::kSize, e5),       L("time", 1, Unit::kTime, e5),
      L("timeout", 5, Unit::kTime, e5),
  };
  for (const char* side : {"loc", "rem"}) {
    const std::string p = side;
    const bool loc = p == "loc";
    lines.push_back(L((p + "_cpus_used").c_str(), 44, Unit::kPercentCpus, e5));
    lines.push_back(L((p + "_cpus_user").c_str(), 1, Unit::kPercentCpus, e5));
    lines.push_back(L((p + "_cpus_intr").c_str(), 32, Unit::kPercentCpus, e5));
    lines.push_back(L((p + "_cpus_kernel").c_str(), 11, Unit::kPercentCpus, e5));
    lines.push_back(L((p + "_real_time").c_str(), 1, Unit::kTime, e5));
    lines.push_back(L((p + "_cpu_time").c_str(), 0.44, Unit::kTime, e5));
    lines.push_back(L((p + "_send_bytes").c_str(), loc ? 8836 : 8835, Unit::kSize, e5));
    lines.push_back(L((p + "_recv_bytes").c_str(), loc ? 8835 : 8836, Unit::kSize, e5));
    lines.push_back(L((p + "_send_msgs").c_str(), loc ? 8836 : 8835, Unit::kCount, e5));
    lines.push_back(L((p + "_recv_msgs").c_str(), loc ? 8835 : 8836, Unit::kCount, e5));
  }
  EXPECT_EQ(render_block("tcp_lat", lines),
            "tcp_lat:\n"
            "    latency          =   56.59 us\n"
            "    msg_rate         =  17.671 K/sec\n"
            "    msg_size         =       1 bytes\n"
            "    time             =       1 sec\n"
            "    timeout          =       5 sec\n"
            "    loc_cpus_used    =      44 % cpus\n"
            "    loc_cpus_user    =       1 % cpus\n"
            "    loc_cpus_intr    =      32 % cpus\n"
            "    loc_cpus_kernel  =      11 % cpus\n"
            "    loc_real_time    =       1 sec\n"
            "    loc_cpu_time     =     440 ms\n"
            "    loc_send_bytes   =   8.836 KB\n"
            "    loc_recv_bytes   =   8.835 KB\n"
            "    loc_send_msgs    =   8,836 \n"
            "    loc_recv_msgs    =   8,835 \n"
            "    rem_cpus_used    =      44 % cpus\n"
            "    rem_cpus_user    =       1 % cpus\n"
            "    rem_cpus_intr    =      32 % cpus\n"
            "    rem_cpus_kernel  =      11 % cpus\n"
            "    rem_real_time    =       1 sec\n"
            "    rem_cpu_time     =     440 ms\n"
            "    rem_send_bytes   =   8.835 KB\n"
            "    rem_recv_bytes   =   8.836 KB\n"
            "    rem_send_msgs    =   8,835 \n"
            "    rem_recv_msgs    =   8,836 \n");
}

// qperf -lp 29765 localhost conf: text values follow "  =  " unpadded.
TEST(QperfRenderBlock, GoldenConf) {
  const std::vector<Line> lines = {
      {"loc_node", format_text("vm")},
      {"loc_cpu", format_text("2 Cores: Intel Xeon Processor 2.3GHz")},
      {"loc_os", format_text("Linux 6.18.44-fc-v657")},
      {"loc_qperf", format_text("0.4.11")},
      {"rem_node", format_text("vm")},
      {"rem_cpu", format_text("2 Cores: Intel Xeon Processor 2.3GHz")},
      {"rem_os", format_text("Linux 6.18.44-fc-v657")},
      {"rem_qperf", format_text("0.4.11")},
  };
  EXPECT_EQ(render_block("conf", lines),
            "conf:\n"
            "    loc_node   =  vm\n"
            "    loc_cpu    =  2 Cores: Intel Xeon Processor 2.3GHz\n"
            "    loc_os     =  Linux 6.18.44-fc-v657\n"
            "    loc_qperf  =  0.4.11\n"
            "    rem_node   =  vm\n"
            "    rem_cpu    =  2 Cores: Intel Xeon Processor 2.3GHz\n"
            "    rem_os     =  Linux 6.18.44-fc-v657\n"
            "    rem_qperf  =  0.4.11\n");
}

// Text lines take part in the name padding but not in the value width.
TEST(QperfRenderBlock, TextDoesNotWidenTheValueColumn) {
  EXPECT_EQ(render_block("mixed", {{"id", format_text("a-very-long-device-name:1")},
                                   L("latency", 1.5e-6, Unit::kTime)}),
            "mixed:\n"
            "    id       =  a-very-long-device-name:1\n"
            "    latency  =  1.5 us\n");
}

}  // namespace
}  // namespace fabperf
