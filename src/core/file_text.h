// Reading a whole input file named on the command line, with a cap on its size, so a wrong
// path (a device, a huge log) is refused instead of read into memory.
#pragma once

#include <cstdint>
#include <string>

#include "core/status.h"

namespace fabperf {

// The file's text, or a usage error (exit 2) starting with `origin` ("--topology t.conf"):
// "cannot read the file", or "larger than 64 MiB" past `max_bytes` (a whole number of MiB or
// GiB, as the message says it).
Result<std::string> read_capped_file(const std::string& path, uint64_t max_bytes,
                                     const std::string& origin);

}  // namespace fabperf
