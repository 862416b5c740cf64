// Helpers for the robustness tests: processes we can signal, a server whose log we read,
// raw connections, a protocol-speaking fake client, and what /proc says about a process.
#pragma once

#include <sys/types.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "net/control.h"

namespace fabperf::testing {

// A scratch directory removed at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Writes `text` to `path` with `mode` (a key file is 0600).
void write_file(const std::string& path, const std::string& text, unsigned mode = 0600);
std::string read_file(const std::string& path);

// A child process (fabperf by default) with stdout and stderr in files.
class Proc {
 public:
  Proc(const std::vector<std::string>& args, const std::string& program = "");
  ~Proc();  // SIGKILLs a child still running
  pid_t pid() const { return pid_; }
  void signal(int sig) const;
  // Exit code (128+signal when killed), or -1 when it is still running after timeout_s.
  int wait(double timeout_s);
  std::string out() const { return read_file(dir_.file("out")); }
  std::string err() const { return read_file(dir_.file("err")); }

 private:
  TempDir dir_;
  pid_t pid_ = -1;
  int status_ = -1;
};

// A fabperf server process on a free port, its log (stderr) kept.
class LoggedServer {
 public:
  explicit LoggedServer(std::vector<std::string> extra_args = {});
  ~LoggedServer();
  int port() const { return port_; }
  std::string port_arg() const { return std::to_string(port_); }
  pid_t pid() const { return proc_->pid(); }
  Proc& proc() { return *proc_; }
  std::string log() const { return proc_->err(); }
  int log_lines() const;
  // Waits until the log has at least `n` lines; returns how many it has then.
  int wait_log_lines(int n, double timeout_s) const;

 private:
  int port_ = 0;
  std::unique_ptr<Proc> proc_;
};

// /proc views of a process: open descriptors, threads, resident memory.
int fd_count(pid_t pid);
int task_count(pid_t pid);
long rss_kb(pid_t pid);
// Waits until fd_count and task_count are at most the given values; false on timeout.
bool wait_for_resources(pid_t pid, int fds, int tasks, double timeout_s);

// A raw TCP connection to 127.0.0.1:port (-1 on failure) and a bounded read until EOF.
int connect_raw(int port, const char* source = nullptr);
std::string read_until_eof(int fd, double timeout_s);
// The message of the first ERROR frame in `bytes`, or "" when there is none.
std::string error_message_in(const std::string& bytes);

// A client speaking the control protocol from this process, for phases a real client
// passes too quickly to interrupt.
std::unique_ptr<ControlChannel> fake_session(int port, double timeout_s = 5);

// Server sockets' remote addresses ("127.0.0.1", "::1", ...) that are connected.
std::vector<std::string> connected_peers(pid_t pid);

}  // namespace fabperf::testing
