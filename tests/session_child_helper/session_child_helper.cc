// A stand-in for fabperf in the session child tests: its child mode runs test-only entries
// (spin, block, allocate, open files, report who it is, leave shm files), and its --parent
// mode is a server in miniature, for tests that signal or kill the parent.
// Its reports ignore send errors: a report the parent never gets fails the test that waits on it.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "core/clock.h"
#include "session/child_main.h"
#include "session/session_child.h"

namespace {

using fabperf::ResultSink;
using fabperf::Status;
using nlohmann::json;

// Waits for a byte or EOF on the control connection, at most `seconds`.
bool wait_control(int control_fd, double seconds) {
  fabperf::Deadline deadline = fabperf::Deadline::after(seconds);
  pollfd p{control_fd, POLLIN, 0};
  return poll(&p, 1, deadline.remaining_ms()) > 0;
}

[[noreturn]] void spin_forever() {
  volatile uint64_t spins = 0;
  for (;;) spins = spins + 1;
}

int touch_megabytes(uint64_t mib) {
  auto* block = new char[mib << 20];
  for (uint64_t i = 0; i < (mib << 20); i += 4096) block[i] = static_cast<char>(i);
  return block[4096];
}

int stand_in_entry(int control_fd, const json& request, ResultSink& sink) {
  std::string test = request.value("test", "");
  const json& params = request["params"];
  if (test == "echo") {
    sink.send({{"params", params}, {"timeout_s", request["timeout_s"]}}).ignore_error();
    return 0;
  }
  if (test == "spin") {
    spin_forever();
  }
  if (test == "block") {
    char c;
    while (read(control_fd, &c, 1) != 0) {
    }
    pause();
  }
  if (test == "wait") {  // a run that ends when told on its control connection, or in time
    bool told = wait_control(control_fd, params.value("seconds", 30.0));
    sink.send({{"told", told}}).ignore_error();
    return 0;
  }
  if (test == "alloc") {
    volatile int sink_value = touch_megabytes(params.value("mib", uint64_t{64}));
    sink.send({{"allocated_mib", params.value("mib", uint64_t{64})}, {"v", sink_value}})
        .ignore_error();
    if (params.value("then_spin", false)) {
      spin_forever();
    }
    return 0;
  }
  if (test == "fds") {
    int opened = 0;
    int err = 0;
    for (int i = 0; i < 100000; ++i) {
      if (open("/dev/null", O_RDONLY) < 0) {
        err = errno;
        break;
      }
      ++opened;
    }
    sink.send({{"opened", opened}, {"error", err != 0 ? strerror(err) : ""}}).ignore_error();
    return 0;
  }
  if (test == "list_fds") {
    std::vector<int> fds;
    for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) {
      fds.push_back(std::stoi(e.path().filename().string()));
    }
    sink.send({{"fds", fds}}).ignore_error();
    return 0;
  }
  if (test == "whoami") {
    std::string path = params.value("path", "");
    int fd = open(path.c_str(), O_WRONLY);
    int open_errno = fd < 0 ? errno : 0;
    bool regained = setuid(0) == 0;
    sink.send({{"uid", getuid()},
               {"euid", geteuid()},
               {"open_error", open_errno != 0 ? strerror(open_errno) : ""},
               {"regained_root", regained}})
        .ignore_error();
    wait_control(control_fd, 30);
    return 0;
  }
  if (test == "shm") {  // leaves regions named as libfabric's shm provider names them
    for (int idx = 0; idx < 2; ++idx) {
      std::string name = "/dev/shm/" + std::to_string(getpid()) + ":" + std::to_string(getuid()) +
                         ":" + std::to_string(idx);
      int fd = open(name.c_str(), O_CREAT | O_RDWR | O_EXCL, 0600);
      if (fd >= 0) close(fd);
    }
    sink.send({{"pid", getpid()}}).ignore_error();
    wait_control(control_fd, 30);
    return 0;
  }
  if (test == "crash") {
    // SIGABRT, which sanitizers leave alone by default (they take SIGSEGV over).
    signal(SIGABRT, SIG_DFL);
    raise(SIGABRT);
  }
  if (test == "mmap") {  // as the fabric buffers are allocated: a failure is reported
    uint64_t bytes = params.value("mib", uint64_t{64}) << 20;
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
      sink.fail(Status::failed(std::string("mmap of ") + std::to_string(bytes) +
                               " bytes failed: " + strerror(errno)))
          .ignore_error();
      return 1;
    }
    sink.send({{"mapped", bytes}}).ignore_error();
    return 0;
  }
  if (test == "fail") {
    sink.fail(Status::failed("stand-in failure: the peer went away")).ignore_error();
    return 1;
  }
  if (test == "exit") return params.value("code", 0);
  sink.fail(Status::failed("stand-in: unknown entry " + test)).ignore_error();
  return 1;
}

std::atomic<int> g_sigints{0};

// session_child_helper --parent ENTRY SECONDS: runs one child of ENTRY with a deadline of
// SECONDS, prints "child PID" once it runs, then the outcome as JSON. SIGINT is counted, as a
// server would handle it, so that the test can show the child never saw it.
int parent_mode(const std::string& entry, double seconds) {
  struct sigaction sa {};
  sa.sa_handler = [](int) { g_sigints.fetch_add(1); };
  sigaction(SIGINT, &sa, nullptr);
  int pair[2];
  socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair);
  fabperf::ChildRequest request;
  request.test = entry;
  request.params = {{"seconds", seconds / 2}};
  fabperf::ChildOptions options;
  options.executable = "/proc/self/exe";
  options.deadline_ns = fabperf::now_ns() + static_cast<int64_t>(seconds * 1e9);
  options.deadline_span_s = seconds;
  auto child = fabperf::SessionChild::Start(pair[1], request, options);
  if (!child.ok()) {
    std::printf("start failed: %s\n", child.status().message().c_str());
    return 1;
  }
  std::printf("child %d\n", (*child)->pid());
  std::fflush(stdout);
  fabperf::ChildOutcome outcome = (*child)->Wait();
  json out = {{"description", outcome.description},
              {"exit_code", outcome.exit_code},
              {"signal", outcome.signal},
              {"sigints", g_sigints.load()}};
  if (outcome.result) out["result"] = *outcome.result;
  std::printf("%s\n", out.dump().c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (fabperf::is_session_child_args(args)) {
    fabperf::set_session_child_entry(stand_in_entry);
    fabperf::Status misuse = fabperf::session_child_main(args);  // returns only when misused
    std::fprintf(stderr, "%s\n", misuse.message().c_str());
    return misuse.exit_code();
  }
  if (args.size() == 3 && args[0] == "--parent") return parent_mode(args[1], std::stod(args[2]));
  std::fprintf(stderr, "usage: session_child_helper --parent ENTRY SECONDS\n");
  return 2;
}
