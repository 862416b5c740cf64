// Encoding of endpoint addresses and memory keys as hex strings for the control exchange.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"

namespace fabperf {

// Lower-case hex, two digits a byte, no prefix.
std::string hex_encode(const void* data, size_t len);
inline std::string hex_encode(const std::vector<uint8_t>& bytes) {
  return hex_encode(bytes.data(), bytes.size());
}
// Accepts upper or lower case; rejects odd lengths and non-hex characters, naming `what`.
Result<std::vector<uint8_t>> hex_decode(std::string_view text, const char* what);

// A 64-bit value as "0x" followed by 16 hex digits, and back (the prefix is optional on input).
std::string u64_to_hex(uint64_t value);
Result<uint64_t> u64_from_hex(std::string_view text, const char* what);

// What one side tells the other about a registered buffer it may access remotely.
struct RegionDescriptor {
  uint64_t addr = 0;             // target address: virtual address or offset (FI_MR_VIRT_ADDR)
  uint64_t key = 0;              // the key to pass to fi_write/fi_read/fi_atomic
  uint64_t len = 0;              // bytes the peer may touch from addr
  std::vector<uint8_t> raw_key;  // FI_MR_RAW: the raw key the peer maps with fi_mr_map_raw
  uint64_t raw_base = 0;         // FI_MR_RAW: base address that goes with raw_key

  bool operator==(const RegionDescriptor&) const = default;
};

// {"addr": "0x...", "key": "0x...", "len": N, "raw_key": "...", "raw_base": "0x..."}.
nlohmann::json encode_region(const RegionDescriptor& region);
Result<RegionDescriptor> decode_region(const nlohmann::json& j, const char* what);

}  // namespace fabperf
