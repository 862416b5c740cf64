// Text helpers.
#include "core/text.h"

#include <cstdio>
#include <ctime>

namespace fabperf {

std::string printable(std::string_view text, size_t max) {
  std::string out;
  out.reserve(std::min(text.size(), max) + 3);
  for (char c : text.substr(0, max)) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(u < 0x20 || u == 0x7f ? '?' : c);
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
