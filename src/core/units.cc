// Parsing of user-typed option values (sizes, times, integers, on/off) in qperf's grammar.
#include "core/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace fabperf {
namespace {

// A plain decimal number split at its point. Signs, spaces, exponents and hex are refused
// on purpose: strtold would take them, and a typo should not silently become a size.
struct Decimal {
  std::string_view whole;     // digits before the point, maybe empty
  std::string_view fraction;  // digits after the point, maybe empty
  std::string_view suffix;    // everything after the number
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Splits "12.5K" into {"12", "5", "K"}; false when there is no digit at all.
bool split_decimal(std::string_view text, Decimal* out) {
  size_t i = 0;
  while (i < text.size() && is_digit(text[i])) ++i;
  out->whole = text.substr(0, i);
  out->fraction = {};
  if (i < text.size() && text[i] == '.') {
    const size_t start = ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    out->fraction = text.substr(start, i - start);
  }
  out->suffix = text.substr(i);
  return !out->whole.empty() || !out->fraction.empty();
}

struct SizeSuffix {
  std::string_view name;
  uint64_t multiplier;
};

constexpr uint64_t kKi = uint64_t{1} << 10;
constexpr uint64_t kMi = uint64_t{1} << 20;
constexpr uint64_t kGi = uint64_t{1} << 30;
constexpr uint64_t kTi = uint64_t{1} << 40;

constexpr SizeSuffix kSizeSuffixes[] = {
    {"", 1},
    {"k", 1000},
    {"kb", 1000},
    {"m", 1000000},
    {"mb", 1000000},
    {"g", 1000000000},
    {"gb", 1000000000},
    {"t", 1000000000000},
    {"tb", 1000000000000},
    {"K", kKi},
    {"kib", kKi},
    {"KiB", kKi},
    {"M", kMi},
    {"mib", kMi},
    {"MiB", kMi},
    {"G", kGi},
    {"gib", kGi},
    {"GiB", kGi},
    {"T", kTi},
    {"tib", kTi},
    {"TiB", kTi},
};

Status bad_size(std::string_view text) { return Status::usage("bad size: " + std::string(text)); }

// floor(0.DIGITS * multiplier), exactly: long multiplication from the last digit, keeping
// only the carry that crosses the point.
uint64_t fraction_times(std::string_view digits, uint64_t multiplier) {
  uint64_t carry = 0;
  for (size_t i = digits.size(); i-- > 0;) {
    carry = (static_cast<uint64_t>(digits[i] - '0') * multiplier + carry) / 10;
  }
  return carry;
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

Result<uint64_t> parse_size(std::string_view text) {
  Decimal number;
  if (!split_decimal(text, &number)) return bad_size(text);
  uint64_t multiplier = 0;
  for (const SizeSuffix& suffix : kSizeSuffixes) {
    if (suffix.name == number.suffix) {
      multiplier = suffix.multiplier;
      break;
    }
  }
  if (multiplier == 0) return bad_size(text);

  uint64_t whole = 0;
  if (!number.whole.empty()) {
    auto [end, ec] =
        std::from_chars(number.whole.data(), number.whole.data() + number.whole.size(), whole);
    if (ec == std::errc::result_out_of_range) {
      return Status::usage("size too large: " + std::string(text));
    }
    if (ec != std::errc() || end != number.whole.data() + number.whole.size()) {
      return bad_size(text);
    }
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(whole, multiplier, &bytes) ||
      __builtin_add_overflow(bytes, fraction_times(number.fraction, multiplier), &bytes)) {
    return Status::usage("size too large: " + std::string(text));
  }
  return bytes;
}

Result<double> parse_time(std::string_view text) {
  const Status bad = Status::usage("bad time: " + std::string(text));
  Decimal number;
  if (!split_decimal(text, &number)) return bad;
  double multiplier = 0;
  if (number.suffix.empty()) {
    multiplier = 1;
  } else if (number.suffix.size() == 1) {
    switch (number.suffix[0]) {
      case 's':
      case 'S':
        multiplier = 1;
        break;
      case 'm':
      case 'M':
        multiplier = 60;
        break;
      case 'h':
      case 'H':
        multiplier = 60 * 60;
        break;
      case 'd':
      case 'D':
        multiplier = 24 * 60 * 60;
        break;
      default:
        return bad;
    }
  } else {
    return bad;
  }
  // The split above guarantees the number is plain digits with at most one point, so
  // from_chars sees exactly what the user typed, minus the suffix.
  const std::string_view digits = text.substr(0, text.size() - number.suffix.size());
  double seconds = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), seconds,
                                   std::chars_format::fixed);
  if (ec != std::errc() || end != digits.data() + digits.size()) return bad;
  seconds *= multiplier;
  if (!std::isfinite(seconds) || seconds < 0) return bad;
  return seconds;
}

Result<int64_t> parse_int(std::string_view text, int64_t min, int64_t max) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool range_error = ec == std::errc::result_out_of_range;
  if (!range_error && (ec != std::errc() || end != text.data() + text.size() || text.empty())) {
    return Status::usage("bad number: " + std::string(text));
  }
  if (range_error || value < min || value > max) {
    return Status::usage("bad number: " + std::string(text) + " (must be " + std::to_string(min) +
                         " to " + std::to_string(max) + ")");
  }
  return value;
}

Result<bool> parse_on_off(std::string_view text) {
  const std::string word = lower(text);
  if (word == "on" || word == "yes" || word == "true") return true;
  if (word == "off" || word == "no" || word == "false") return false;
  uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (!text.empty() && end == text.data() + text.size() &&
      (ec == std::errc() || ec == std::errc::result_out_of_range)) {
    return ec == std::errc::result_out_of_range || value != 0;
  }
  return Status::usage("bad on/off value: " + std::string(text) +
                       " (use 0/1, on/off, yes/no or true/false)");
}

std::string with_commas(uint64_t value) {
  const std::string digits = std::to_string(value);
  std::string out;
  out.reserve(digits.size() + digits.size() / 3);
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out.push_back(',');
    out.push_back(digits[i]);
  }
  return out;
}

}  // namespace fabperf
