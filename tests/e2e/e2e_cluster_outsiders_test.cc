// End-to-end: strangers cannot spoil a --matrix job (security-review N2). A process without the
// job's key holds 16 idle connections to every rank's server and agent, reopening each one the
// rank cuts; the verdicts must be those of a job left alone: every pair measured, no failed
// link, every rank ok.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "e2e_cluster_util.h"
#include "e2e_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

using Endpoint = std::pair<std::string, int>;  // IPv4 address, port

// The IPv4 TCP endpoints process `pid` listens on (ss, from iproute2).
std::set<Endpoint> listening_ports(int pid) {
  std::set<Endpoint> out;
  RunOutput r = run({"-c", "ss -Hltnp4"}, 10, "/bin/sh");
  std::istringstream in(r.out);
  std::string line;
  const std::regex endpoint(R"(\s([0-9.]+):(\d+)\s)");
  const std::string mine = "pid=" + std::to_string(pid) + ",";
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.find(mine) != std::string::npos && std::regex_search(line, m, endpoint)) {
      out.insert({m[1], std::stoi(m[2])});
    }
  }
  return out;
}

// A TCP connection from `source` to the endpoint, or -1.
int connect_from(const std::string& source, const Endpoint& to) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  inet_pton(AF_INET, source.c_str(), &a.sin_addr);
  sockaddr_in b{};
  b.sin_family = AF_INET;
  b.sin_port = htons(static_cast<uint16_t>(to.second));
  inet_pton(AF_INET, to.first.c_str(), &b.sin_addr);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      connect(fd, reinterpret_cast<sockaddr*>(&b), sizeof b) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Holds `per_port` idle connections to each port, reopening the ones the other side closed,
// until destroyed. Counts the connections it opened.
class Outsiders {
 public:
  Outsiders(std::set<Endpoint> ports, int per_port, std::string source)
      : ports_(std::move(ports)), per_port_(per_port), source_(std::move(source)) {
    thread_ = std::thread([this] { loop(); });
  }
  ~Outsiders() {
    stop_.store(true);
    thread_.join();
    for (auto& [port, fds] : fds_) {
      for (int fd : fds) close(fd);
    }
  }
  int opened() const { return opened_.load(); }

 private:
  void loop() {
    for (int i = 0; i < 6000 && !stop_.load(); ++i) {  // at most 5 minutes
      for (const Endpoint& port : ports_) {
        std::vector<int>& fds = fds_[port];
        for (auto it = fds.begin(); it != fds.end();) {
          pollfd p{*it, POLLIN, 0};
          char c;
          if (poll(&p, 1, 0) > 0 && recv(*it, &c, 1, MSG_DONTWAIT | MSG_PEEK) <= 0) {
            close(*it);  // cut by the rank: open another
            it = fds.erase(it);
          } else {
            ++it;
          }
        }
        while (static_cast<int>(fds.size()) < per_port_) {
          int fd = connect_from(source_, port);
          if (fd < 0) break;
          fds.push_back(fd);
          opened_.fetch_add(1);
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }

  std::set<Endpoint> ports_;
  int per_port_;
  std::string source_;
  std::map<Endpoint, std::vector<int>> fds_;
  std::atomic<bool> stop_{false};
  std::atomic<int> opened_{0};
  std::thread thread_;
};

class ClusterOutsiders : public ::testing::Test {
 protected:
  void SetUp() override {
    if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
    if (run({"-c", "command -v ss"}, 10, "/bin/sh").exit_code != 0)
      GTEST_SKIP() << "ss (iproute2) is not installed";
  }
};

const std::vector<std::string> kJob = {"-t", "0.2", "--start_timeout", "30", "tcp_lat", "tcp_bw"};

// The verdicts of a job that every pair of which was measured and found no rank unreachable.
void expect_clean(const json& j, const std::string& what) {
  ASSERT_FALSE(j.is_discarded()) << what;
  EXPECT_EQ(j["exit_code"], 0) << what;
  for (const json& r : j["matrix"]["ranks"]) EXPECT_EQ(r["status"], "ok") << what << r.dump();
  for (const json& t : j["matrix"]["tests"]) {
    EXPECT_EQ(t["measured"], 6) << what << " " << t["test"];
    EXPECT_EQ(t["failed"], 0) << what << " " << t["test"];
    for (const json& s : t["suspects"]) {
      EXPECT_FALSE(s.contains("error")) << what << ": " << s.dump();
    }
  }
}

// Rank r listens (and connects) on 127.0.0.(20 + r). The strangers come from a peer's own
// address (a local user can), so only the proof of the key keeps them out.
constexpr int kBase = 20;
const char* const kPeerAddress = "127.0.0.21";

TEST_F(ClusterOutsiders, IdleStrangersChangeNoVerdict) {
  JobShape shape;
  shape.ranks = 4;
  shape.bind_base = kBase;
  double alone_s = 0;
  {
    MatrixJob job(shape, kJob);
    ASSERT_EQ(job.wait(120), 0) << job.err();
    json j = job.json();
    expect_clean(j, "alone");
    if (!j.is_discarded()) alone_s = j["matrix"]["elapsed_s"].get<double>();
  }
  // Rank 0 starts 3 s late (the wrapper sleeps first): the others wait for it at the start-up
  // exchange, listening, so the strangers are in place on ranks 1-3 before anything is
  // measured, and on rank 0 within milliseconds of its start.
  setenv("FP_LATE_RANK", "0", 1);
  setenv("FP_LATE_S", "3", 1);
  MatrixJob job(shape, kJob);
  unsetenv("FP_LATE_RANK");
  unsetenv("FP_LATE_S");
  std::vector<std::unique_ptr<Outsiders>> outsiders;
  std::set<Endpoint> ports;
  for (int first : {1, 0}) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::set<Endpoint> found;
    while (std::chrono::steady_clock::now() < deadline && job.wait(0) < 0) {
      found.clear();
      bool all = true;
      for (int r = first; r < (first == 1 ? 4 : 1); ++r) {
        std::set<Endpoint> mine =
            job.pid(r) > 0 ? listening_ports(job.pid(r)) : std::set<Endpoint>();
        all &= mine.size() >= 2;  // its server and its agent
        found.insert(mine.begin(), mine.end());
      }
      if (all) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ports.insert(found.begin(), found.end());
    outsiders.push_back(std::make_unique<Outsiders>(found, 16, kPeerAddress));
  }
  // From an address outside the job, a rank's server refuses at once, saying why, and its
  // agent drops the connection unread.
  // (An agent that took the connection would, after 2 s, say the handshake timed out.)
  if (job.wait(0) < 0 && ports.size() == 8) {
    int refused = 0, dropped = 0;
    std::string heard;
    for (const Endpoint& port : ports) {
      int fd = connect_from("127.0.0.99", port);
      ASSERT_GE(fd, 0);
      std::string error = error_message_in(read_until_eof(fd, 10));
      close(fd);
      refused += contains(error, "127.0.0.99 is not in this server's --allow list");
      dropped += error.empty();
      heard += port.first + ":" + std::to_string(port.second) + ": " + error + "\n";
    }
    EXPECT_EQ(refused, 4) << heard;
    EXPECT_EQ(dropped, 4) << heard;
  }
  ASSERT_EQ(job.wait(120), 0) << job.err();
  json j = job.json();
  expect_clean(j, "with strangers");
  int opened = 0;
  for (const auto& o : outsiders) opened += o->opened();
  std::printf(
      "[ measured ] %zu ports, %d stranger connections opened; job %.2f s alone, %.2f s "
      "with strangers (rank 0 started 3 s late)\n",
      ports.size(), opened, alone_s,
      j.is_discarded() ? 0.0 : j["matrix"]["elapsed_s"].get<double>());
  EXPECT_EQ(ports.size(), 8u) << "every rank's server and agent found";
  EXPECT_GE(opened, 8 * 16) << "the strangers held their connections";
}

}  // namespace
}  // namespace fabperf::testing
