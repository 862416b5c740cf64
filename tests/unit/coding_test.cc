// Unit tests of core/coding.h: each byte order's layout, round trips at every width, and the
// two wire formats that use it (net/control's frame header, qperf's request) laid out by it.
#include "core/coding.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>

namespace fabperf {
namespace {

TEST(Coding, LittleEndianPutsTheLowestByteFirst) {
  uint8_t b[8] = {};
  encode_le32(b, 0x01020304u);
  const uint8_t want[4] = {0x04, 0x03, 0x02, 0x01};
  EXPECT_EQ(memcmp(b, want, 4), 0);
  EXPECT_EQ(decode_le32(b), 0x01020304u);
  encode_le16(b, 0xbeef);
  EXPECT_EQ(b[0], 0xef);
  EXPECT_EQ(b[1], 0xbe);
}

TEST(Coding, BigEndianPutsTheHighestByteFirst) {
  uint8_t b[4] = {};
  encode_be32(b, 0x01020304u);
  const uint8_t want[4] = {0x01, 0x02, 0x03, 0x04};
  EXPECT_EQ(memcmp(b, want, 4), 0);
  EXPECT_EQ(decode_be32(b), 0x01020304u);
  encode_be16(b, 0xbeef);
  EXPECT_EQ(b[0], 0xbe);
  EXPECT_EQ(b[1], 0xef);
  EXPECT_EQ(decode_be16(b), 0xbeef);
}

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
