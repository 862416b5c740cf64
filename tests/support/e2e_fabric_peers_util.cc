// The third-party listener, the forging client and the shm bystander of the peer-check tests.
#include "e2e_fabric_peers_util.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "core/clock.h"
#include "core/spawn.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "fabric/address_codec.h"
#include "net/control.h"

namespace fabperf::testing {

namespace {

sockaddr_in third_party_addr(uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  inet_pton(AF_INET, "127.0.0.3", &a.sin_addr);
  return a;
}

// One line from `fd` before the deadline ("" on EOF or timeout).
std::string read_line(int fd, const Deadline& deadline) {
  std::string line;
  char c;
  while (!deadline.expired()) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) <= 0) continue;
    ssize_t n = read(fd, &c, 1);
    if (n <= 0) break;
    if (c == '\n') return line;
    line += c;
  }
  return line;
}

}  // namespace

ThirdParty::ThirdParty() {
  for (int attempt = 0; attempt < 20 && port_ == 0; ++attempt) {
    int udp = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in a = third_party_addr(0);
    socklen_t len = sizeof a;
    if (bind(udp, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
        getsockname(udp, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      close(udp);
      return;  // no 127.0.0.3 here
    }
    int tcp = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (bind(tcp, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && listen(tcp, 16) == 0) {
      udp_ = udp;
      tcp_ = tcp;
      port_ = ntohs(a.sin_port);
    } else {
      close(udp);
      close(tcp);
    }
  }
  if (port_ != 0) thread_ = std::thread([this] { serve(); });
}

ThirdParty::~ThirdParty() {
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
  for (int fd : accepted_) close(fd);
  if (udp_ >= 0) close(udp_);
  if (tcp_ >= 0) close(tcp_);
}

void ThirdParty::serve() {
  char buf[65536];
  while (!stop_.load()) {
    std::vector<pollfd> fds = {{udp_, POLLIN, 0}, {tcp_, POLLIN, 0}};
    for (int fd : accepted_) fds.push_back({fd, POLLIN, 0});
    if (::poll(fds.data(), fds.size(), 20) <= 0) continue;
    while (true) {
      ssize_t n = recv(udp_, buf, sizeof buf, 0);
      if (n < 0) break;
      datagrams_++;
      bytes_ += static_cast<uint64_t>(n);
    }
    while (true) {
      int fd = accept4(tcp_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (fd < 0) break;
      connections_++;
      accepted_.push_back(fd);  // kept open and read, as a listening service would
    }
    for (size_t i = 2; i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      ssize_t n = recv(fds[i].fd, buf, sizeof buf, 0);
      if (n > 0) bytes_ += static_cast<uint64_t>(n);
    }
  }
}

std::string ThirdParty::name_hex() const {
  sockaddr_in a = third_party_addr(port_);
  return hex_encode(&a, sizeof a);
}

std::string ThirdParty::summary() const {
  return "127.0.0.3:" + std::to_string(port_) + " got " + std::to_string(datagrams()) +
         " datagrams, " + std::to_string(connections()) + " TCP connections, " +
         std::to_string(bytes()) + " bytes";
}

ForgedRun forge_connectionless(int port, const std::string& test, const std::string& provider,
                               const nlohmann::json& params, const std::string& name_hex,
                               const nlohmann::json& memory, double wait_s) {
  ForgedRun run;
  auto ch = fake_session(port);
  if (!ch) return run;
  if (!ch->send(MsgType::kRun, {{"test", test}, {"params", params}}).ok()) return run;
  auto ready = ch->expect(MsgType::kReady, 10);
  if (!ready.ok()) {
    run.error = ready.status().message();
    return run;
  }
  run.ready = true;
  nlohmann::json mine = {{"provider", provider}, {"name", name_hex}, {"memory", memory}};
  if (!ch->send(MsgType::kExchange, mine).ok()) return run;
  Deadline deadline = Deadline::after(wait_s);
  while (!deadline.expired()) {
    auto frame = ch->recv(0.1);
    if (frame.ok()) {
      if (frame->type == MsgType::kExchange && run.server_hello.is_null()) {
        run.server_hello = frame->body;
      }
      continue;
    }
    if (ch->peer_reported_error()) {
      run.error = frame.status().message();
      break;
    }
    if (frame.status().code() != Code::kTimeout) break;  // closed
  }
  return run;
}

nlohmann::json forged_memory(const nlohmann::json& region, uint64_t stride) {
  return {{"region", region}, {"rx_slots", 1}, {"stride", stride}, {"atomic_offset", 0}};
}

ShmVictim::ShmVictim() {
  std::string program = beside_fabperf("fabperf_shm_victim");
  // A bystander as an ordinary application runs it: shm with its defaults.
  SpawnSpec spec;
  spec.path = program;
  spec.env.emplace();
  for (char** e = environ; *e != nullptr; ++e) {
    if (std::strncmp(*e, "FI_SHM_DISABLE_CMA=", 19) != 0) spec.env->push_back(*e);
  }
  int in[2], out[2];
  if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0) {
    spawn_error_ = "pipe failed";
    return;
  }
  spec.fds = {{STDIN_FILENO, in[0]}, {STDOUT_FILENO, out[1]}};
  auto pid = spawn(spec);
  pid_ = pid.ok() ? *pid : -1;
  close(in[0]);
  close(out[1]);
  to_child_ = in[1];
  from_child_ = out[0];
  std::string line = read_line(from_child_, Deadline::after(30));
  hello_ = nlohmann::json::parse(line, nullptr, false);
  if (hello_.is_discarded()) {
    spawn_error_ = program + " said: \"" + line + "\"";
    hello_ = nlohmann::json();
  }
}

std::string ShmVictim::error() const {
  if (!spawn_error_.empty()) return spawn_error_;
  return hello_.value("error", std::string("no endpoint"));
}

long ShmVictim::finish_and_count_changed(std::string* first_bytes) {
  if (to_child_ < 0) return -1;
  close(to_child_);
  to_child_ = -1;
  std::string line = read_line(from_child_, Deadline::after(30));
  auto result = nlohmann::json::parse(line, nullptr, false);
  if (result.is_discarded() || !result.contains("changed")) return -1;
  if (first_bytes != nullptr) *first_bytes = result.value("first", "");
  return result["changed"].get<long>();
}

ShmVictim::~ShmVictim() {
  if (to_child_ >= 0) close(to_child_);
  if (from_child_ >= 0) close(from_child_);
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
}

}  // namespace fabperf::testing
