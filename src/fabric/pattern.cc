// Data patterns for --verify.
#include "fabric/pattern.h"

namespace fabperf {

void fill_pattern(uint8_t* buf, size_t len, uint8_t seed) {
  for (size_t i = 0; i < len; ++i) buf[i] = pattern_byte(i, seed);
}

void poison_pattern(uint8_t* buf, size_t len, uint8_t seed) {
  for (size_t i = 0; i < len; ++i) buf[i] = static_cast<uint8_t>(~pattern_byte(i, seed));
}

bool check_pattern(const uint8_t* buf, size_t len, uint8_t seed, size_t first) {
  uint8_t diff = 0;
  for (size_t i = 0; i < len; ++i) {
    diff |= static_cast<uint8_t>(buf[i] ^ pattern_byte(first + i, seed));
  }
  return diff == 0;
}

}  // namespace fabperf
