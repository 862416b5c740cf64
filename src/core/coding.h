// Fixed-width integers to and from bytes in a stated byte order, whatever the host's: the one
// place a wire format (net/control's big-endian frame header, qperf's little-endian messages)
// turns integers into bytes. After leveldb's util/coding.h: byte by byte, so it needs no
// alignment and no host byte-order test, and compilers make single loads and stores of it.
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabperf {

// The lowest `width` bytes of `value` (width 1-8), least significant first.
inline void encode_le(uint8_t* p, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(value >> (8 * i));
}
// `width` bytes (1-8), least significant first.
inline uint64_t decode_le(const uint8_t* p, size_t width) {
  uint64_t v = 0;
  for (size_t i = width; i > 0; --i) v = (v << 8) | p[i - 1];
  return v;
}
// The lowest `width` bytes of `value`, most significant first (network order).
inline void encode_be(uint8_t* p, uint64_t value, size_t width) {
  for (size_t i = 0; i < width; ++i) p[i] = static_cast<uint8_t>(value >> (8 * (width - 1 - i)));
}
// `width` bytes, most significant first.
inline uint64_t decode_be(const uint8_t* p, size_t width) {
  uint64_t v = 0;
  for (size_t i = 0; i < width; ++i) v = (v << 8) | p[i];
  return v;
}

// The widths a format names, typed.
inline void encode_le16(uint8_t* p, uint16_t v) { encode_le(p, v, 2); }
inline void encode_le32(uint8_t* p, uint32_t v) { encode_le(p, v, 4); }
inline void encode_le64(uint8_t* p, uint64_t v) { encode_le(p, v, 8); }
inline uint16_t decode_le16(const uint8_t* p) { return static_cast<uint16_t>(decode_le(p, 2)); }
inline uint32_t decode_le32(const uint8_t* p) { return static_cast<uint32_t>(decode_le(p, 4)); }
inline uint64_t decode_le64(const uint8_t* p) { return decode_le(p, 8); }
inline void encode_be16(uint8_t* p, uint16_t v) { encode_be(p, v, 2); }
inline void encode_be32(uint8_t* p, uint32_t v) { encode_be(p, v, 4); }
inline uint16_t decode_be16(const uint8_t* p) { return static_cast<uint16_t>(decode_be(p, 2)); }
inline uint32_t decode_be32(const uint8_t* p) { return static_cast<uint32_t>(decode_be(p, 4)); }

}  // namespace fabperf
