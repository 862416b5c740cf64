// Text helpers.
#include "core/text.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <ctime>

namespace fabperf {

namespace {

// The length of the whole UTF-8 sequence at text[i] (i < end), or 0 when it is not one
// (a stray continuation byte, an overlong or surrogate form, a sequence cut by `end`).
size_t utf8_length(std::string_view text, size_t i, size_t end, uint32_t* code) {
  const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
  unsigned char lead = byte(i);
  size_t len = lead >= 0xf0 && lead <= 0xf4 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc2 ? 2 : 0;
  if (len == 0 || lead > 0xf4 || i + len > end) return 0;
  uint32_t cp = lead & (0x7f >> len);
  for (size_t k = 1; k < len; ++k) {
    if ((byte(i + k) & 0xc0) != 0x80) return 0;
    cp = (cp << 6) | (byte(i + k) & 0x3f);
  }
  const uint32_t least[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < least[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
  *code = cp;
  return len;
}

// Characters a terminal acts on rather than shows: C1 controls (U+009B is a CSI), the line and
// paragraph separators, and the bidirectional overrides that reorder what is displayed.
bool acts_on_terminal(uint32_t cp) {
  return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 ||
         (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string printable(std::string_view text, size_t max) {
  std::string out;
  const size_t end = std::min(text.size(), max);
  out.reserve(end + 3);
  for (size_t i = 0; i < end;) {
    unsigned char u = static_cast<unsigned char>(text[i]);
    if (u < 0x80) {
      out.push_back(u < 0x20 || u == 0x7f ? '?' : static_cast<char>(u));
      ++i;
      continue;
    }
    uint32_t cp = 0;
    size_t len = utf8_length(text, i, end, &cp);
    if (len == 0 || acts_on_terminal(cp)) {
      out.push_back('?');
      i += len == 0 ? 1 : len;
      continue;
    }
    out.append(text.substr(i, len));
    i += len;
  }
  if (text.size() > max) out += "...";
  return out;
}

std::string seconds_text(double seconds) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%g s", seconds);
  return buf;
}

std::string iso8601_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace fabperf
