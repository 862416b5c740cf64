// Data patterns for --verify: what a sender writes, what a receiver checks, what marks "unwritten".
#pragma once

#include <cstddef>
#include <cstdint>

namespace fabperf {

// Seeds keep the directions apart, so an echo of the wrong buffer never passes.
inline constexpr uint8_t kClientSeed = 0x3b;
inline constexpr uint8_t kServerSeed = 0xc5;

inline uint8_t pattern_byte(size_t i, uint8_t seed) {
  return static_cast<uint8_t>((i * 131 + (i >> 8) * 7 + seed) & 0xff);
}

// Fills buf with the pattern of `seed`.
void fill_pattern(uint8_t* buf, size_t len, uint8_t seed);
// The complement of the pattern: every byte differs from what a sender would write, so a
// byte the transfer did not reach is always caught.
void poison_pattern(uint8_t* buf, size_t len, uint8_t seed);
// True when buf holds exactly the pattern of `seed` from its byte `first` on (buf is that
// byte: a message whose head carries something else is checked from there).
bool check_pattern(const uint8_t* buf, size_t len, uint8_t seed, size_t first = 0);

}  // namespace fabperf
