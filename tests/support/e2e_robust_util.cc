// Process, /proc and raw-socket helpers for the robustness tests.
#include "e2e_robust_util.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include "e2e_util.h"
#include "net/socket.h"

namespace fabperf::testing {

namespace {

double now_s() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int count_dir(const std::string& path) {
  DIR* dir = opendir(path.c_str());
  if (dir == nullptr) return -1;
  int n = 0;
  while (dirent* e = readdir(dir)) {
    if (e->d_name[0] != '.') ++n;
  }
  closedir(dir);
  return n;
}

}  // namespace

TempDir::TempDir() {
  char tmpl[] = "/tmp/fabperf_robust_XXXXXX";
  if (mkdtemp(tmpl) != nullptr) path_ = tmpl;
}

TempDir::~TempDir() {
  if (path_.empty()) return;
  if (DIR* dir = opendir(path_.c_str())) {
    while (dirent* e = readdir(dir)) {
      if (e->d_name[0] != '.') unlink((path_ + "/" + e->d_name).c_str());
    }
    closedir(dir);
  }
  rmdir(path_.c_str());
}

void write_file(const std::string& path, const std::string& text, unsigned mode) {
  std::ofstream(path, std::ios::trunc) << text;
  chmod(path.c_str(), mode);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

Proc::Proc(const std::vector<std::string>& args, const std::string& program) {
  std::string bin = program.empty() ? fabperf_bin() : program;
  std::string out = dir_.file("out"), err = dir_.file("err");
  int o = open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int e = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  pid_ = spawn(bin, args, o, e);
  close(o);
  close(e);
}

Proc::~Proc() {
  if (pid_ > 0 && status_ < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

void Proc::signal(int sig) const { kill(pid_, sig); }

int Proc::wait(double timeout_s) {
  if (status_ >= 0) return status_;
  double deadline = now_s() + timeout_s;
  for (;;) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return status_;
    }
    if (now_s() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

LoggedServer::LoggedServer(std::vector<std::string> extra_args) {
  // free_port() races with the other tests' servers: one may take the port before ours binds
  // it. Then our server exits, and we try another port.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_port();
    std::vector<std::string> args = {"-lp", std::to_string(port_)};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    proc_ = std::make_unique<Proc>(args);
    bool up = false;
    for (int i = 0; i < 400 && !up; ++i) {
      int fd = connect_raw(port_);
      if (fd >= 0) {
        close(fd);
        up = true;
      } else if (proc_->wait(0) >= 0) {
        break;  // exited: the port was taken
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(25));
      }
    }
    if (!up) continue;
    // The probe was a session too (closed before HELLO): let the server log it. A probe that
    // reached another process's listener leaves our server dead, with "Address in use".
    wait_log_lines(1, 2);
    if (proc_->wait(0) < 0) break;
  }
}

LoggedServer::~LoggedServer() {
  proc_->signal(SIGTERM);
  proc_->wait(10);
}

int LoggedServer::log_lines() const {
  std::string text = log();
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

int LoggedServer::wait_log_lines(int n, double timeout_s) const {
  double deadline = now_s() + timeout_s;
  int lines = log_lines();
  while (lines < n && now_s() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    lines = log_lines();
  }
  return lines;
}

int fd_count(pid_t pid) { return count_dir("/proc/" + std::to_string(pid) + "/fd"); }
int task_count(pid_t pid) { return count_dir("/proc/" + std::to_string(pid) + "/task"); }

long rss_kb(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stol(line.substr(6));
  }
  return -1;
}

bool wait_for_resources(pid_t pid, int fds, int tasks, double timeout_s) {
  double deadline = now_s() + timeout_s;
  while (now_s() < deadline) {
    if (fd_count(pid) <= fds && task_count(pid) <= tasks) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return fd_count(pid) <= fds && task_count(pid) <= tasks;
}

int connect_raw(int port, const char* source) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  if (source != nullptr) {
    inet_pton(AF_INET, source, &a.sin_addr);
    bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  }
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

std::string read_until_eof(int fd, double timeout_s) {
  std::string out;
  double deadline = now_s() + timeout_s;
  while (out.size() < (1 << 20)) {
    int left = static_cast<int>((deadline - now_s()) * 1000);
    if (left <= 0) break;
    pollfd pfd{fd, POLLIN, 0};
    if (poll(&pfd, 1, left) <= 0) break;
    char buf[4096];
    ssize_t n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string error_message_in(const std::string& bytes) {
  const auto* p = reinterpret_cast<const uint8_t*>(bytes.data());
  size_t at = 0;
  while (bytes.size() - at >= kFrameHeaderSize) {
    auto header = decode_frame_header(p + at, kFrameHeaderSize);
    if (!header.ok() || bytes.size() - at - kFrameHeaderSize < header->length) return "";
    auto frame = decode_frame_body(*header, p + at + kFrameHeaderSize, header->length);
    if (frame.ok() && frame->type == MsgType::kError) return frame->body.value("message", "");
    at += kFrameHeaderSize + header->length;
  }
  return "";
}

std::unique_ptr<ControlChannel> fake_session(int port, double timeout_s) {
  auto fd = connect_tcp("127.0.0.1", static_cast<uint16_t>(port), ConnectOptions{});
  if (!fd.ok()) return nullptr;
  auto ch = std::make_unique<ControlChannel>(fd->release());
  ch->set_peer_label("server");
  if (!ch->send(MsgType::kHello, {{"tool", "robust-test"}}).ok()) return nullptr;
  if (!ch->expect(MsgType::kWelcome, timeout_s).ok()) return nullptr;
  return ch;
}

std::vector<std::string> connected_peers(pid_t pid) {
  std::set<std::string> inodes;
  std::string fd_dir = "/proc/" + std::to_string(pid) + "/fd";
  if (DIR* dir = opendir(fd_dir.c_str())) {
    while (dirent* e = readdir(dir)) {
      char target[256];
      ssize_t n = readlink((fd_dir + "/" + e->d_name).c_str(), target, sizeof target - 1);
      if (n <= 0) continue;
      target[n] = '\0';
      if (strncmp(target, "socket:[", 8) == 0) inodes.insert(std::string(target + 8, n - 9));
    }
    closedir(dir);
  }
  std::vector<std::string> peers;
  for (const char* table : {"tcp", "tcp6", "udp", "udp6"}) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/net/" + table);
    std::string line;
    std::getline(in, line);  // header
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string sl, local, remote, state, queues, timer, retr, uid, timeout, inode;
      fields >> sl >> local >> remote >> state >> queues >> timer >> retr >> uid >> timeout >>
          inode;
      if (inodes.count(inode) == 0) continue;
      std::string hex = remote.substr(0, remote.find(':'));
      uint8_t bytes[16] = {};
      for (size_t word = 0; word < hex.size() / 8; ++word) {
        uint32_t v = static_cast<uint32_t>(std::stoul(hex.substr(word * 8, 8), nullptr, 16));
        memcpy(bytes + word * 4, &v, 4);  // the kernel prints each word in host order
      }
      char text[INET6_ADDRSTRLEN] = "";
      bool zero = std::all_of(bytes, bytes + hex.size() / 2, [](uint8_t b) { return b == 0; });
      if (zero) continue;  // listening or unconnected
      inet_ntop(hex.size() == 8 ? AF_INET : AF_INET6, bytes, text, sizeof text);
      peers.push_back(text);
    }
  }
  return peers;
}

}  // namespace fabperf::testing
