// Small text helpers shared by every layer: peer text made safe to show, times as words.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fabperf {

// Text from a peer (an error message, a host name, a log field, an option value), made safe
// for a terminal or a log line: the one escaping function every peer-supplied string passes
// before it is shown. Control characters (C0, DEL, C1 such as U+009B), the line separators and
// the bidirectional overrides become '?', as does every byte that is not part of valid UTF-8
// (so the result is valid UTF-8, fit for JSON too); it is cut to `max` bytes ("..." marks the
// cut). Nothing a peer sends reaches a terminal raw.
std::string printable(std::string_view text, size_t max = 1024);

// 2.5 -> "2.5 s", 3600 -> "3600 s".
std::string seconds_text(double seconds);

// Now, as ISO 8601 in UTC: "2026-11-23T10:01:02Z".
std::string iso8601_now();

}  // namespace fabperf
