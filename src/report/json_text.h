// JSON text for people and tools: indented objects, short arrays of numbers on one line.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fabperf {

// Like dump(2), but an array of scalars, or of small arrays of scalars (a histogram's
// [index, count] pairs), is written on one line: a histogram of 5,000 buckets takes 50 KB
// instead of 250 KB. Invalid UTF-8 in strings is replaced, never thrown on. Ends in '\n'.
std::string json_text(const nlohmann::json& doc);

}  // namespace fabperf
