// Hex encoding of endpoint names and memory keys for the control exchange.
#include <gtest/gtest.h>

#include "fabric/address_codec.h"

namespace fabperf {
namespace {

TEST(FabricAddressCodec, HexRoundTrip) {
  std::vector<uint8_t> bytes;
  for (int i = 0; i < 256; ++i) bytes.push_back(static_cast<uint8_t>(i));
  std::string text = hex_encode(bytes);
  EXPECT_EQ(text.size(), 512u);
  EXPECT_EQ(text.substr(0, 8), "00010203");
  EXPECT_EQ(text.substr(504), "fcfdfeff");
  auto back = hex_decode(text, "name");
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(*back, bytes);
  auto upper = hex_decode("ABcd", "name");
  ASSERT_TRUE(upper.ok());
  EXPECT_EQ(*upper, (std::vector<uint8_t>{0xab, 0xcd}));
  EXPECT_TRUE(hex_decode("", "name")->empty());
}

TEST(FabricAddressCodec, RejectsBadHex) {
  auto odd = hex_decode("abc", "peer endpoint name");
  EXPECT_FALSE(odd.ok());
  EXPECT_NE(odd.status().message().find("peer endpoint name"), std::string::npos);
  EXPECT_NE(odd.status().message().find("odd"), std::string::npos);
  auto bad = hex_decode("0g", "name");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("offset 1"), std::string::npos);
  EXPECT_FALSE(hex_decode("zz", "name").ok());
}

TEST(FabricAddressCodec, U64RoundTrip) {
  for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{0xdeadbeef}, ~uint64_t{0}}) {
    std::string text = u64_to_hex(v);
    EXPECT_EQ(text.size(), 18u);
    auto back = u64_from_hex(text, "key");
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, v);
  }
  EXPECT_EQ(*u64_from_hex("ff", "key"), 255u);
  EXPECT_EQ(*u64_from_hex("0XFF", "key"), 255u);
  EXPECT_FALSE(u64_from_hex("", "key").ok());
  EXPECT_FALSE(u64_from_hex("0x", "key").ok());
  EXPECT_FALSE(u64_from_hex("12345678901234567", "key").ok());  // 17 digits: too wide
  EXPECT_FALSE(u64_from_hex("-1", "key").ok());
}

TEST(FabricAddressCodec, RegionRoundTrip) {
  RegionDescriptor region;
  region.addr = 0x7f0012345000;
  region.key = 0x1234;
  region.len = 65536;
  auto plain = decode_region(encode_region(region), "region");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(*plain, region);
  EXPECT_FALSE(encode_region(region).contains("raw_key"));
  region.raw_key = {1, 2, 3, 0xfe};
  region.raw_base = 0x1000;
  nlohmann::json j = encode_region(region);
  EXPECT_EQ(j["raw_key"], "010203fe");
  auto raw = decode_region(nlohmann::json::parse(j.dump()), "region");
  ASSERT_TRUE(raw.ok());
  EXPECT_EQ(*raw, region);
}

TEST(FabricAddressCodec, RejectsBadRegions) {
  EXPECT_FALSE(decode_region(nlohmann::json::array(), "region").ok());
  EXPECT_FALSE(decode_region({{"addr", "0x10"}, {"len", 4}}, "region").ok());
  EXPECT_FALSE(decode_region({{"addr", 16}, {"key", "0x1"}, {"len", 4}}, "region").ok());
  EXPECT_FALSE(decode_region({{"addr", "0x10"}, {"key", "0x1"}, {"len", -4}}, "region").ok());
  auto bad_key =
      decode_region({{"addr", "0x10"}, {"key", "0xzz"}, {"len", 4}}, "peer memory region");
  ASSERT_FALSE(bad_key.ok());
  EXPECT_NE(bad_key.status().message().find("peer memory region"), std::string::npos);
  EXPECT_FALSE(
      decode_region(
          {{"addr", "0x10"}, {"key", "0x1"}, {"len", 4}, {"raw_key", "abc"}, {"raw_base", "0x0"}},
          "region")
          .ok());
}

}  // namespace
}  // namespace fabperf
