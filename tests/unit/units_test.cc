// Tests for parsing user-typed sizes, times, integers and on/off values (core/units.h).
#include "core/units.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

namespace fabperf {
namespace {

uint64_t size_of(const std::string& text) {
  Result<uint64_t> result = parse_size(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().message();
  return result.ok() ? *result : 0;
}

double time_of(const std::string& text) {
  Result<double> result = parse_time(text);
  EXPECT_TRUE(result.ok()) << text << ": " << result.status().message();
  return result.ok() ? *result : -1;
}

constexpr uint64_t kKi = 1024;
constexpr uint64_t kMi = kKi * 1024;
constexpr uint64_t kGi = kMi * 1024;
constexpr uint64_t kTi = kGi * 1024;

TEST(UnitsParseSize, PlainBytes) {
  EXPECT_EQ(size_of("0"), 0u);
  EXPECT_EQ(size_of("1"), 1u);
  EXPECT_EQ(size_of("65536"), 65536u);
  EXPECT_EQ(size_of("007"), 7u);
}

// qperf's help: "kib or K ... indicates kibibytes ... kb or k ... indicates kilobytes".
TEST(UnitsParseSize, DecimalSuffixesAreLowerCase) {
  EXPECT_EQ(size_of("1k"), 1000u);
  EXPECT_EQ(size_of("1kb"), 1000u);
  EXPECT_EQ(size_of("100k"), 100000u);
  EXPECT_EQ(size_of("2m"), 2000000u);
  EXPECT_EQ(size_of("2mb"), 2000000u);
  EXPECT_EQ(size_of("3g"), 3000000000u);
  EXPECT_EQ(size_of("3gb"), 3000000000u);
  EXPECT_EQ(size_of("4t"), 4000000000000u);
  EXPECT_EQ(size_of("4tb"), 4000000000000u);
}

TEST(UnitsParseSize, BinarySuffixes) {
  EXPECT_EQ(size_of("8K"), 8 * kKi);
  EXPECT_EQ(size_of("8kib"), 8 * kKi);
  EXPECT_EQ(size_of("8KiB"), 8 * kKi);
  EXPECT_EQ(size_of("64K"), 65536u);
  EXPECT_EQ(size_of("2M"), 2 * kMi);
  EXPECT_EQ(size_of("2mib"), 2 * kMi);
  EXPECT_EQ(size_of("2MiB"), 2 * kMi);
  EXPECT_EQ(size_of("3G"), 3 * kGi);
  EXPECT_EQ(size_of("3gib"), 3 * kGi);
  EXPECT_EQ(size_of("3GiB"), 3 * kGi);
  EXPECT_EQ(size_of("1T"), kTi);
  EXPECT_EQ(size_of("1tib"), kTi);
  EXPECT_EQ(size_of("1TiB"), kTi);
}

// qperf stores sizes in 32 bits, so its "-m 5G" silently becomes 1 GiB; ours must not.
TEST(UnitsParseSize, SizesAbove4GiBKeepAllBits) {
  EXPECT_EQ(size_of("4G"), 4 * kGi);
  EXPECT_EQ(size_of("5G"), 5368709120u);
  EXPECT_EQ(size_of("4097M"), 4097 * kMi);
  EXPECT_EQ(size_of("16777215T"), 16777215 * kTi);
  EXPECT_EQ(size_of("18446744073709551615"), std::numeric_limits<uint64_t>::max());
}

TEST(UnitsParseSize, Fractions) {
  EXPECT_EQ(size_of("1.5K"), 1536u);
  EXPECT_EQ(size_of("0.5K"), 512u);
  EXPECT_EQ(size_of(".5K"), 512u);
  EXPECT_EQ(size_of("1.5k"), 1500u);
  EXPECT_EQ(size_of("2.5G"), 2684354560u);
  EXPECT_EQ(size_of("0.25M"), 262144u);
  EXPECT_EQ(size_of("1."), 1u);
  EXPECT_EQ(size_of("1.0"), 1u);
  // Fractional bytes are dropped, as qperf's (long) cast does: 1.3 KiB is 1331.2 bytes.
  EXPECT_EQ(size_of("1.3K"), 1331u);
  EXPECT_EQ(size_of("1.9"), 1u);
  EXPECT_EQ(size_of("0.001k"), 1u);
  EXPECT_EQ(size_of("0.0001k"), 0u);
  // Exact arithmetic: no binary floating point rounding, however many digits.
  EXPECT_EQ(size_of("1.99999999999999999999999999k"), 1999u);
  EXPECT_EQ(size_of("0.1t"), 100000000000u);
  EXPECT_EQ(size_of("4294967295.75K"), 4294967295 * kKi + 768);
}

TEST(UnitsParseSize, Overflow) {
  Result<uint64_t> result = parse_size("20000000000G");
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kUsage);
  EXPECT_EQ(result.status().message(), "size too large: 20000000000G");
  EXPECT_EQ(result.status().prefixed("-m").message(), "-m: size too large: 20000000000G");
  EXPECT_FALSE(parse_size("18446744073709551616").ok());
  EXPECT_FALSE(parse_size("99999999999999999999999").ok());
  EXPECT_FALSE(parse_size("16777216TiB").ok());
  EXPECT_FALSE(parse_size("18446744073709551615.5K").ok());
  // The fraction alone can push a maximal whole part over the edge.
  EXPECT_FALSE(parse_size("18446744073709551.616k").ok());
  EXPECT_EQ(size_of("18446744073709551.615k"), std::numeric_limits<uint64_t>::max());
}

TEST(UnitsParseSize, BadInput) {
  for (const char* text : {"",      "12Q",  "-3",   "-1K", "+5",  " 5",  "5 ",  "K",   ".",   ".K",
                           "1.2.3", "0x10", "1e3",  "inf", "nan", "1KB", "1kB", "1Kb", "1MB", "1GB",
                           "1TB",   "1Kib", "1KIB", "1 K", "1K ", "1ki", "1kk", "abc"}) {
    Result<uint64_t> result = parse_size(text);
    EXPECT_FALSE(result.ok()) << "accepted: \"" << text << "\"";
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), Code::kUsage) << text;
      EXPECT_EQ(result.status().message(), std::string("bad size: ") + text);
    }
  }
  // The caller names the option, giving qperf's "-m: bad size: 12Q".
  EXPECT_EQ(parse_size("12Q").status().prefixed("-m").message(), "-m: bad size: 12Q");
}

TEST(UnitsParseTime, PlainSeconds) {
  EXPECT_EQ(time_of("0"), 0.0);
  EXPECT_EQ(time_of("2"), 2.0);
  EXPECT_EQ(time_of("0.5"), 0.5);
  EXPECT_EQ(time_of(".25"), 0.25);
  EXPECT_EQ(time_of("10."), 10.0);
  EXPECT_EQ(time_of("1.5"), 1.5);  // qperf would cut this to 1 second
}

TEST(UnitsParseTime, EachSuffixInEitherCase) {
  EXPECT_EQ(time_of("30s"), 30.0);
  EXPECT_EQ(time_of("30S"), 30.0);
  EXPECT_EQ(time_of("0.5s"), 0.5);
  EXPECT_EQ(time_of("5m"), 300.0);
  EXPECT_EQ(time_of("5M"), 300.0);
  EXPECT_EQ(time_of("0.5m"), 30.0);
  EXPECT_EQ(time_of("2h"), 7200.0);
  EXPECT_EQ(time_of("2H"), 7200.0);
  EXPECT_EQ(time_of("1.5h"), 5400.0);
  EXPECT_EQ(time_of("1d"), 86400.0);
  EXPECT_EQ(time_of("1D"), 86400.0);
  EXPECT_EQ(time_of("0.5d"), 43200.0);
}

TEST(UnitsParseTime, BadInput) {
  for (const char* text :
       {"",   "-3", "-0.5",  "-1m", "3x",  "1ms",  "1sec",     "1min", "s",    ".",  "+1",
        " 1", "1 ", "1.2.3", "inf", "nan", "-inf", "infinity", "1e3",  "0x10", "1 m"}) {
    Result<double> result = parse_time(text);
    EXPECT_FALSE(result.ok()) << "accepted: \"" << text << "\"";
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), Code::kUsage) << text;
      EXPECT_EQ(result.status().message(), std::string("bad time: ") + text);
    }
  }
  EXPECT_EQ(parse_time("-3").status().prefixed("-t").message(), "-t: bad time: -3");
}

TEST(UnitsParseTime, HugeValuesAreRefusedNotInfinite) {
  const std::string huge(400, '9');
  EXPECT_FALSE(parse_time(huge).ok());
  EXPECT_FALSE(parse_time(std::string(310, '9') + "d").ok());
  EXPECT_GT(time_of(std::string(300, '9')), 1e299);
}

TEST(UnitsParseInt, InRange) {
  Result<int64_t> port = parse_int("29765", 0, 65535);
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(*port, 29765);
  EXPECT_EQ(*parse_int("0", 0, 10), 0);
  EXPECT_EQ(*parse_int("10", 0, 10), 10);
  EXPECT_EQ(*parse_int("-5", -10, 10), -5);
  EXPECT_EQ(*parse_int("9223372036854775807", 0, std::numeric_limits<int64_t>::max()),
            std::numeric_limits<int64_t>::max());
}

TEST(UnitsParseInt, OutOfRange) {
  Result<int64_t> result = parse_int("70000", 0, 65535);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kUsage);
  EXPECT_EQ(result.status().message(), "bad number: 70000 (must be 0 to 65535)");
  EXPECT_FALSE(parse_int("-1", 0, 10).ok());
  EXPECT_FALSE(parse_int("11", 0, 10).ok());
  EXPECT_FALSE(parse_int("99999999999999999999", 0, 10).ok());
  EXPECT_FALSE(parse_int("-99999999999999999999", -10, 10).ok());
}

TEST(UnitsParseInt, BadInput) {
  for (const char* text : {"", "x", "1.5", "12Q", " 1", "1 ", "+1", "0x10", "1e3", "-"}) {
    Result<int64_t> result = parse_int(text, -100, 100);
    EXPECT_FALSE(result.ok()) << "accepted: \"" << text << "\"";
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), Code::kUsage);
      EXPECT_EQ(result.status().message(), std::string("bad number: ") + text);
    }
  }
}

TEST(UnitsParseOnOff, Words) {
  for (const char* text : {"1", "on", "ON", "On", "yes", "YES", "true", "True"}) {
    Result<bool> result = parse_on_off(text);
    ASSERT_TRUE(result.ok()) << text;
    EXPECT_TRUE(*result) << text;
  }
  for (const char* text : {"0", "off", "OFF", "no", "No", "false", "FALSE", "00"}) {
    Result<bool> result = parse_on_off(text);
    ASSERT_TRUE(result.ok()) << text;
    EXPECT_FALSE(*result) << text;
  }
}

// qperf's help: "If OnOff is non-zero, data is accessed".
TEST(UnitsParseOnOff, AnyNonZeroNumberIsOn) {
  EXPECT_TRUE(*parse_on_off("2"));
  EXPECT_TRUE(*parse_on_off("99999999999999999999999"));
}

TEST(UnitsParseOnOff, BadInput) {
  for (const char* text : {"", "-1", "maybe", "o", "1.0", " 1", "onn", "y", "t"}) {
    Result<bool> result = parse_on_off(text);
    EXPECT_FALSE(result.ok()) << "accepted: \"" << text << "\"";
    if (!result.ok()) {
      EXPECT_EQ(result.status().code(), Code::kUsage);
    }
  }
  EXPECT_EQ(parse_on_off("maybe").status().message(),
            "bad on/off value: maybe (use 0/1, on/off, yes/no or true/false)");
}

TEST(UnitsWithCommas, Groups) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(7), "7");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1000), "1,000");
  EXPECT_EQ(with_commas(8192), "8,192");
  EXPECT_EQ(with_commas(65536), "65,536");
  EXPECT_EQ(with_commas(302404), "302,404");
  EXPECT_EQ(with_commas(1048576), "1,048,576");
  EXPECT_EQ(with_commas(std::numeric_limits<uint64_t>::max()), "18,446,744,073,709,551,615");
}

}  // namespace
}  // namespace fabperf
