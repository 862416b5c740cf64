// The one reader of saved fabperf JSON documents (`fabperf report`, and whatever else reads
// them back): a file's text to a document that the report model can draw, every failure
// named by file and, for a bad value, by field.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/status.h"

namespace fabperf::report {

// Parses `text` as a fabperf run document from `name` (a file name, for the messages) and
// checks it (check_run_document). A number a double cannot hold (1e999999) is refused with
// the field's path ("results[0].latency_ns.mean"), as is any other JSON error, with where.
Result<nlohmann::json> parse_run_document(const std::string& text, const std::string& name);

// Reads `path` ("-": standard input) and parses it as above.
Result<nlohmann::json> read_run_document(const std::string& path);

}  // namespace fabperf::report
