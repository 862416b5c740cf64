// Checking and writing result files.
#include "core/output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace fabperf {

namespace {

std::string dir_of(const std::string& path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

Status check_writable(const std::string& path, const std::string& option) {
  if (path == "-") return Status::success();
  auto refuse = [&](const std::string& why) {
    return Status::usage(option + " " + path + ": cannot write the file: " + why);
  };
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return refuse("it is a directory");
    if (::access(path.c_str(), W_OK) != 0) return refuse(std::strerror(errno));
    return Status::success();
  }
  if (errno != ENOENT) return refuse(std::strerror(errno));
  std::string dir = dir_of(path);
  if (::stat(dir.c_str(), &st) != 0)
    return refuse("directory " + dir + ": " + std::strerror(errno));
  if (!S_ISDIR(st.st_mode)) return refuse(dir + " is not a directory");
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return refuse(dir + ": " + std::strerror(errno));
  return Status::success();
}

Status write_file_atomically(const std::string& path, const std::string& text,
                             const std::string& option) {
  return write_file_atomically(
      path,
      [&](std::FILE* f) {
        std::fwrite(text.data(), 1, text.size(), f);
        return Status::success();
      },
      option);
}

Status write_file_atomically(const std::string& path,
                             const std::function<Status(std::FILE*)>& write,
                             const std::string& option) {
  auto failed = [&](const std::string& why) {
    return Status::failed(option + " " + path + ": cannot write the file: " + why);
  };
  if (path == "-") {
    Status s = write(stdout);
    std::fflush(stdout);
    if (!s.ok()) return failed(s.message());
    return std::ferror(stdout) ? failed("standard output") : Status::success();
  }
  struct stat st {};
  bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  std::string tmp = special ? path : path + ".tmp." + std::to_string(::getpid());
  int fd = special ? ::open(path.c_str(), O_WRONLY | O_CLOEXEC)
                   : ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return failed(std::strerror(errno));
  std::FILE* f = ::fdopen(fd, "w");
  if (f == nullptr) {
    ::close(fd);
    if (!special) ::unlink(tmp.c_str());
    return failed(std::strerror(errno));
  }
  Status s = write(f);
  if (s.ok() && (std::fflush(f) != 0 || std::ferror(f))) s = Status::failed(std::strerror(errno));
  if (s.ok() && !special && ::fsync(fd) != 0) s = Status::failed(std::strerror(errno));
  if (std::fclose(f) != 0 && s.ok()) s = Status::failed(std::strerror(errno));
  if (special) return s.ok() ? s : failed(s.message());
  if (s.ok() && ::rename(tmp.c_str(), path.c_str()) != 0) s = Status::failed(std::strerror(errno));
  if (!s.ok()) {
    ::unlink(tmp.c_str());
    return failed(s.message());
  }
  return Status::success();
}

}  // namespace fabperf
