// Parsing of user-typed option values (sizes, times, integers, on/off) in qperf's grammar.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "core/status.h"

namespace fabperf {

// A byte count such as "100", "64K", "1.5k", "5G" or "2MiB".
//
// Suffixes follow qperf's case rule: lower case is decimal, a lone upper-case letter is
// binary. k/kb = 1e3, m/mb = 1e6, g/gb = 1e9, t/tb = 1e12; K/kib/KiB = 2^10, M/mib/MiB = 2^20,
// G/gib/GiB = 2^30, T/tib/TiB = 2^40. "KB", "MB" ... are refused because they could mean
// either. A fraction is allowed ("1.5K" = 1536); fractional bytes are dropped (qperf does
// the same). The value is 64-bit and overflow is an error. Every failure is
// Status::usage("bad size: TEXT") or Status::usage("size too large: TEXT"); the caller puts
// the option name in front.
Result<uint64_t> parse_size(std::string_view text);

// A duration in seconds such as "2", "0.5", "30s", "5m", "1.5h" or "1d" (suffix in either
// case, as qperf). Negative, non-finite or malformed text is Status::usage("bad time: TEXT").
Result<double> parse_time(std::string_view text);

// A decimal integer within [min, max]; anything else is Status::usage.
Result<int64_t> parse_int(std::string_view text, int64_t min, int64_t max);

// qperf's OnOff argument: a non-negative integer (non-zero means on), or one of on/off,
// yes/no, true/false in any case.
Result<bool> parse_on_off(std::string_view text);

// 302404 -> "302,404".
std::string with_commas(uint64_t value);

}  // namespace fabperf
