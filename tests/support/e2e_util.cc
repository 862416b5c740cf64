// Process helpers for the end-to-end tests (fork/exec with pipes and a hard deadline).
#include "e2e_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>

#include "core/spawn.h"

namespace fabperf::testing {

namespace {
int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

bool port_open(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(static_cast<uint16_t>(port));
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

}  // namespace

pid_t spawn(const std::string& program, const std::vector<std::string>& args, int out_fd,
            int err_fd) {
  SpawnSpec spec;
  spec.path = program;
  spec.argv = {program};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.fds = {{1, out_fd}, {2, err_fd}};
  // A test killed at ctest's timeout takes its servers and clients with it: a busy-polling
  // fabric run left behind would load every test after it.
  spec.die_with_parent = true;
  auto pid = fabperf::spawn(spec);
  return pid.ok() ? *pid : -1;
}
std::string fabperf_bin() {
  const char* env = std::getenv("FABPERF_BIN");
  return env != nullptr ? env : "build/fabperf";
}

std::vector<std::string> keep_root_sessions(const std::string& spelling) {
  if (geteuid() != 0) return {};
  return {spelling, "root"};
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

RunOutput run(const std::vector<std::string>& args, double timeout_s, const std::string& program) {
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return {};
  pid_t pid = spawn(program.empty() ? fabperf_bin() : program, args, out_pipe[1], err_pipe[1]);
  close(out_pipe[1]);
  close(err_pipe[1]);
  RunOutput result;
  int64_t deadline = now_ms() + static_cast<int64_t>(timeout_s * 1000);
  pollfd fds[2] = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open_count = 2;
  while (open_count > 0) {
    int64_t left = deadline - now_ms();
    if (left <= 0) {
      result.timed_out = true;
      kill(pid, SIGKILL);
      break;
    }
    if (poll(fds, 2, static_cast<int>(left)) <= 0) continue;
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP))) continue;
      char buf[4096];
      ssize_t n = read(fds[i].fd, buf, sizeof buf);
      if (n <= 0) {
        close(fds[i].fd);
        fds[i].fd = -1;
        --open_count;
      } else {
        (i == 0 ? result.out : result.err).append(buf, static_cast<size_t>(n));
      }
    }
  }
  for (auto& f : fds) {
    if (f.fd >= 0) close(f.fd);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

namespace {

bool bindable(int type, int port) {
  int fd = socket(AF_INET, type, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<uint16_t>(port));
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

// A port the kernel picks (bind to 0): in the ephemeral range, where any process's outgoing
// connection may take it before our server binds it. Only the last resort.
int ephemeral_port() {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  close(fd);
  return ntohs(a.sin_port);
}

}  // namespace

int free_port() { return free_port_range(1); }

int free_port_range(int n) {
  // 20000-32767 lies below Linux's default ephemeral range (32768-60999): a port there is
  // taken only by a listener, never by some process's outgoing connection. Start at a point of
  // this process's own, moved on at every call, so tests running side by side, and two calls
  // of one test made before either server binds, try different ports.
  static int calls = 0;
  const int lo = 20000, span = 12000;
  int start = lo + static_cast<int>((getpid() * 7919L + 613L * calls++) % span);
  for (int k = 0; k < span; k += n) {
    int first = lo + (start - lo + k) % (span - n);
    bool all = true;
    for (int i = 0; i < n && all; ++i) {
      all = bindable(SOCK_STREAM, first + i) && bindable(SOCK_DGRAM, first + i);
    }
    if (all) return first;
  }
  return ephemeral_port();
}

ServerProcess::ServerProcess(std::vector<std::string> extra_args) {
  // A server that finds its port taken (another test's listener got there between our check
  // and its bind) exits at once: then try another port. Otherwise wait for the listener on an
  // event, with a deadline generous enough for an ASan build on a loaded machine.
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_port();
    status_ = -1;
    std::vector<std::string> args = {"-lp", std::to_string(port_)};
    args.insert(args.end(), extra_args.begin(), extra_args.end());
    int devnull = open("/dev/null", O_WRONLY);
    pid_ = spawn(fabperf_bin(), args, devnull, devnull);
    close(devnull);
    const int64_t deadline = now_ms() + 60'000;
    while (!port_open(port_) && now_ms() < deadline && wait_exit(0) < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
    if (status_ < 0) return;  // listening, or still starting at the deadline: the test says
  }
}

ServerProcess::~ServerProcess() {
  if (pid_ <= 0 || status_ >= 0) return;
  kill(pid_, SIGTERM);
  if (wait_exit(5) < 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

bool ServerProcess::running() const { return status_ < 0 && kill(pid_, 0) == 0; }

int ServerProcess::wait_exit(double timeout_s) {
  if (status_ >= 0) return status_;
  int64_t deadline = now_ms() + static_cast<int64_t>(timeout_s * 1000);
  for (;;) {  // looks at least once, so wait_exit(0) asks without waiting
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      status_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return status_;
    }
    if (now_ms() >= deadline) return -1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

bool known_provider_flake(const std::string& provider, const std::string& test,
                          const std::string& error) {
  const bool bidirectional = test.find("_bi_bw") != std::string::npos;
  if (provider == "udp;ofi_rxd") {
    return contains(error, "completion error") ||
           (bidirectional && (contains(error, "no completion from provider udp;ofi_rxd") ||
                              contains(error, "nothing from the client for")));
  }
  if (provider == "sockets") {
    return ((test.rfind("ud_", 0) == 0 || bidirectional) &&
            contains(error, "no completion from provider sockets")) ||
           contains(error, "nothing from the client for");
  }
  return false;
}

std::string beside_fabperf(const std::string& name) {
  std::string bin = fabperf_bin();
  size_t slash = bin.find_last_of('/');
  return (slash == std::string::npos ? std::string(".") : bin.substr(0, slash)) + "/" + name;
}

std::string source_root() {
  namespace fs = std::filesystem;
  for (fs::path dir = fs::absolute(fabperf_bin()).parent_path(); !dir.empty();
       dir = dir.parent_path()) {
    if (fs::exists(dir / "README.md") && fs::exists(dir / "src")) return dir.string();
    if (dir == dir.parent_path()) break;
  }
  return "";
}

std::string readme_text() {
  const std::string root = source_root();
  if (root.empty()) return "";
  std::ifstream in(root + "/README.md");
  return std::string(std::istreambuf_iterator<char>(in), {});
}

FakeGpuEnv::FakeGpuEnv(int key, const std::string& library) {
  log_ = "/tmp/fabperf_fake_gpu_" + std::to_string(getpid()) + ".log";
  unlink(log_.c_str());
  setenv("FABPERF_GPU_RUNTIME", beside_fabperf(library).c_str(), 1);
  setenv("FABPERF_FAKE_GPU_KEY", std::to_string(key).c_str(), 1);
  setenv("FABPERF_FAKE_GPU_LOG", log_.c_str(), 1);
}

FakeGpuEnv::~FakeGpuEnv() {
  for (const char* v : {"FABPERF_GPU_RUNTIME", "FABPERF_FAKE_GPU_KEY", "FABPERF_FAKE_GPU_LOG"}) {
    unsetenv(v);
  }
  unlink(log_.c_str());
}

FakeGpuEnv::Totals FakeGpuEnv::totals() const {
  Totals t;
  std::ifstream in(log_);
  std::string w1, w2, w3;
  uint64_t a = 0, b = 0, c = 0;
  while (in >> w1 >> a >> w2 >> b >> w3 >> c) {
    t.allocs += a;
    t.to_device += b;
    t.from_device += c;
  }
  return t;
}

}  // namespace fabperf::testing
