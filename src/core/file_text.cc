// Reading a whole input file with a cap on its size.
#include "core/file_text.h"

#include <fstream>

namespace fabperf {

namespace {

std::string size_text(uint64_t bytes) {
  if (bytes >= (1ull << 30) && bytes % (1ull << 30) == 0) {
    return std::to_string(bytes >> 30) + " GiB";
  }
  return std::to_string(bytes >> 20) + " MiB";
}

}  // namespace

Result<std::string> read_capped_file(const std::string& path, uint64_t max_bytes,
                                     const std::string& origin) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::usage(origin + ": cannot read the file");
  std::string text;
  char buf[65536];
  while (in.read(buf, sizeof buf) || in.gcount() > 0) {
    text.append(buf, static_cast<size_t>(in.gcount()));
    if (text.size() > max_bytes)
      return Status::usage(origin + ": larger than " + size_text(max_bytes));
  }
  return text;
}

}  // namespace fabperf
