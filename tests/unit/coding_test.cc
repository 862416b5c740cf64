// Unit tests of core/coding.h: each byte order's layout (one parameterised case per order),
// round trips at every width, and unaligned and 64-bit values.
#include "core/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>

namespace fabperf {
namespace {

// One byte order's 16- and 32-bit coders and the layout each must give.
struct ByteOrder {
  const char* name;
  void (*encode32)(uint8_t*, uint32_t);
  uint32_t (*decode32)(const uint8_t*);
  void (*encode16)(uint8_t*, uint16_t);
  uint16_t (*decode16)(const uint8_t*);
  uint8_t want32[4];  // 0x01020304
  uint8_t want16[2];  // 0xbeef
};

class CodingOrder : public ::testing::TestWithParam<ByteOrder> {};

TEST_P(CodingOrder, LaysOutTheBytesInItsOrderAndReadsThemBack) {
  const ByteOrder& o = GetParam();
  uint8_t b[4] = {};
  o.encode32(b, 0x01020304u);
  EXPECT_EQ(memcmp(b, o.want32, 4), 0);
  EXPECT_EQ(o.decode32(b), 0x01020304u);
  o.encode16(b, 0xbeef);
  EXPECT_EQ(memcmp(b, o.want16, 2), 0);
  EXPECT_EQ(o.decode16(b), 0xbeef);
}

INSTANTIATE_TEST_SUITE_P(Coding, CodingOrder,
                         ::testing::Values(ByteOrder{"little_endian",
                                                     encode_le32,
                                                     decode_le32,
                                                     encode_le16,
                                                     decode_le16,
                                                     {0x04, 0x03, 0x02, 0x01},
                                                     {0xef, 0xbe}},
                                           ByteOrder{"big_endian",
                                                     encode_be32,
                                                     decode_be32,
                                                     encode_be16,
                                                     decode_be16,
                                                     {0x01, 0x02, 0x03, 0x04},
                                                     {0xbe, 0xef}}),
                         [](const ::testing::TestParamInfo<ByteOrder>& info) {
                           return std::string(info.param.name);
                         });

TEST(Coding, EveryWidthRoundTripsAndWritesNoMore) {
  const uint64_t value = 0x8877665544332211ull;
  for (size_t width = 1; width <= 8; ++width) {
    const uint64_t mask = width == 8 ? ~0ull : (1ull << (8 * width)) - 1;
    uint8_t le[10], be[10];
    memset(le, 0xaa, sizeof le);
    memset(be, 0xaa, sizeof be);
    encode_le(le + 1, value, width);
    encode_be(be + 1, value, width);
    EXPECT_EQ(decode_le(le + 1, width), value & mask) << width;
    EXPECT_EQ(decode_be(be + 1, width), value & mask) << width;
    // The two orders are mirror images of each other.
    for (size_t i = 0; i < width; ++i) EXPECT_EQ(le[1 + i], be[width - i]) << width;
    // Nothing outside the field is touched.
    EXPECT_EQ(le[0], 0xaa);
    EXPECT_EQ(le[1 + width], 0xaa);
    EXPECT_EQ(be[0], 0xaa);
    EXPECT_EQ(be[1 + width], 0xaa);
  }
}

TEST(Coding, SixtyFourBitsKeepTheTopBit) {
  uint8_t b[8];
  encode_le64(b, 0x8000000000000001ull);
  EXPECT_EQ(b[0], 0x01);
  EXPECT_EQ(b[7], 0x80);
  EXPECT_EQ(decode_le64(b), 0x8000000000000001ull);
}

TEST(Coding, UnalignedAddressesWork) {
  alignas(8) uint8_t b[16] = {};
  for (size_t off = 0; off < 8; ++off) {
    encode_le64(b + off, 0x0102030405060708ull + off);
    EXPECT_EQ(decode_le64(b + off), 0x0102030405060708ull + off);
  }
}

}  // namespace
}  // namespace fabperf
