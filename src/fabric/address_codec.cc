// Hex encoding of addresses and keys, and the JSON form of a remote region.
#include "fabric/address_codec.h"

namespace fabperf {

namespace {
constexpr char kDigits[] = "0123456789abcdef";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}
}  // namespace

std::string hex_encode(const void* data, size_t len) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  std::string out;
  out.reserve(len * 2);
  for (size_t i = 0; i < len; ++i) {
    out += kDigits[bytes[i] >> 4];
    out += kDigits[bytes[i] & 0xf];
  }
  return out;
}

Result<std::vector<uint8_t>> hex_decode(std::string_view text, const char* what) {
  if (text.size() % 2 != 0) {
    return Status::failed(std::string("bad ") + what + ": odd number of hex digits (" +
                          std::to_string(text.size()) + ")");
  }
  std::vector<uint8_t> out(text.size() / 2);
  for (size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(text[2 * i]);
    int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Status::failed(std::string("bad ") + what + ": not a hex digit at offset " +
                            std::to_string(hi < 0 ? 2 * i : 2 * i + 1));
    }
    out[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  return out;
}

std::string u64_to_hex(uint64_t value) {
  std::string out = "0x";
  for (int shift = 60; shift >= 0; shift -= 4) out += kDigits[(value >> shift) & 0xf];
  return out;
}

Result<uint64_t> u64_from_hex(std::string_view text, const char* what) {
  if (text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
  }
  if (text.empty() || text.size() > 16) {
    return Status::failed(std::string("bad ") + what + ": expected 1 to 16 hex digits");
  }
  uint64_t value = 0;
  for (char c : text) {
    int digit = hex_value(c);
    if (digit < 0) return Status::failed(std::string("bad ") + what + ": not a hex number");
    value = value << 4 | static_cast<uint64_t>(digit);
  }
  return value;
}

nlohmann::json encode_region(const RegionDescriptor& region) {
  nlohmann::json j = {
      {"addr", u64_to_hex(region.addr)}, {"key", u64_to_hex(region.key)}, {"len", region.len}};
  if (!region.raw_key.empty()) {
    j["raw_key"] = hex_encode(region.raw_key);
    j["raw_base"] = u64_to_hex(region.raw_base);
  }
  return j;
}

Result<RegionDescriptor> decode_region(const nlohmann::json& j, const char* what) {
  auto field_error = [&](const char* field) {
    return Status::failed(std::string("bad ") + what + ": missing or malformed \"" + field + "\"");
  };
  if (!j.is_object()) return Status::failed(std::string("bad ") + what + ": not an object");
  RegionDescriptor region;
  for (const char* field : {"addr", "key"}) {
    if (!j.contains(field) || !j[field].is_string()) return field_error(field);
    auto value = u64_from_hex(j[field].get<std::string>(), field);
    if (!value.ok()) return value.status().prefixed(what);
    (field[0] == 'a' ? region.addr : region.key) = *value;
  }
  if (!j.contains("len") || !j["len"].is_number_unsigned()) return field_error("len");
  region.len = j["len"].get<uint64_t>();
  if (j.contains("raw_key")) {
    if (!j["raw_key"].is_string()) return field_error("raw_key");
    auto raw = hex_decode(j["raw_key"].get<std::string>(), "raw_key");
    if (!raw.ok()) return raw.status().prefixed(what);
    region.raw_key = std::move(*raw);
    if (!j.contains("raw_base") || !j["raw_base"].is_string()) return field_error("raw_base");
    auto base = u64_from_hex(j["raw_base"].get<std::string>(), "raw_base");
    if (!base.ok()) return base.status().prefixed(what);
    region.raw_base = *base;
  }
  return region;
}

}  // namespace fabperf
