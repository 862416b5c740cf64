// One CSV field as every CSV file of this program writes it (RFC 4180 quoting).
#pragma once

#include <string>

namespace fabperf {

// `text` as one field: quoted when it holds a comma, a quote or a line break (quotes doubled,
// line breaks made spaces, so a row stays one line).
std::string csv_field(const std::string& text);

}  // namespace fabperf
