// Result files: checked before a run starts, written whole at the end (a reader never sees
// half a document, and an interrupted or killed run never leaves an empty one behind).
#pragma once

#include <cstdio>
#include <functional>
#include <string>

#include "core/status.h"

namespace fabperf {

// Usage error naming `option`, the path and the reason when `path` cannot be written: a
// missing directory, a directory, no permission. Creates nothing.
Status check_writable(const std::string& path, const std::string& option);

// Writes `text` to a temporary file beside `path` and renames it over `path`; devices, pipes
// and other non-regular files are written directly. "-" is standard output.
Status write_file_atomically(const std::string& path, const std::string& text,
                             const std::string& option);

// The same for a document too large to hold as one string (a --matrix report of thousands of
// ranks): `write` streams it into the open file; its failure is the call's.
Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::FILE*)>& write,
                             const std::string& option);

}  // namespace fabperf
