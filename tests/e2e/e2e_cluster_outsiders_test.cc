// End-to-end: strangers cannot spoil a --matrix job (security-review N2). A process without the
// job's key holds 16 idle connections to every rank's server and agent, reopening each one the
// rank cuts; the verdicts must be those of a job left alone: every pair measured, no failed
// link, every rank ok; and the job takes less than a second longer than one left alone. A
// connection from an address outside the job is refused outright.
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

double mean(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// "1.61, 1.56": seconds, for the measured line.
std::string fmt_list(const std::vector<double>& v) {
  std::string out;
  char buf[32];
  for (double x : v) {
    std::snprintf(buf, sizeof buf, "%s%.2f", out.empty() ? "" : ", ", x);
    out += buf;
  }
  return out;
}

// Starts a job whose rank 0 starts 3 s late (the wrapper sleeps first): the others wait for it
// at the start-up exchange, listening, so strangers can be in place on ranks 1-3 before
// anything is measured, and on rank 0 within milliseconds of its start. Every job of the test
// starts so, with strangers or not: the job's elapsed_s counts from rank 0's start, and the
// others are then ready at once, so the times compare like with like.
std::unique_ptr<MatrixJob> late_rank0_job(const JobShape& shape) {
  setenv("FP_LATE_RANK", "0", 1);
  setenv("FP_LATE_S", "3", 1);
  auto job = std::make_unique<MatrixJob>(shape, kJob);
  unsetenv("FP_LATE_RANK");
  unsetenv("FP_LATE_S");
  return job;
}

// The job's elapsed_s (-1 when it wrote no report).
double elapsed_of(const json& j) {
  return j.is_discarded() ? -1 : j["matrix"].value("elapsed_s", -1.0);
}

// A job left alone: its verdicts clean; its elapsed_s.
double alone_job(const JobShape& shape) {
  auto job = late_rank0_job(shape);
  EXPECT_EQ(job->wait(120), 0) << job->err();
  json j = job->json();
  expect_clean(j, "alone");
  return elapsed_of(j);
}

// Connects from 127.0.0.99, outside the job, to each of the job's ports: every server must
// refuse at once, saying why, and every agent drop the connection unread (one that took it would
// say, after 2 s, that the handshake timed out: the job is still running when all have answered,
// so no connection was merely cut by its end).
void expect_outside_address_refused(MatrixJob& job, const std::set<Endpoint>& ports) {
  // All connected first, then read: a rank that took its connection answers only when it
  // cuts it unproven, 2 s later, and the job may be over before a second such wait.
  std::vector<int> fds;
  for (const Endpoint& port : ports) {
    fds.push_back(connect_from("127.0.0.99", port));
    EXPECT_GE(fds.back(), 0) << "cannot reach " << port.first << ":" << port.second << ": "
                             << job.err();
  }
  int refused = 0, dropped = 0;
  std::string heard;
  size_t i = 0;
  for (const Endpoint& port : ports) {
    const int fd = fds[i++];
    if (fd < 0) continue;
    std::string error = error_message_in(read_until_eof(fd, 10));
    close(fd);
    refused += contains(error, "127.0.0.99 is not in this server's --allow list");
    dropped += error.empty();
    heard += port.first + ":" + std::to_string(port.second) + ": " + error + "\n";
  }
  EXPECT_EQ(refused, 4) << heard;
  EXPECT_EQ(dropped, 4) << heard;
  EXPECT_LT(job.wait(0), 0) << "the job ended before the outside connections were answered";
}

// A job with 16 strangers on each of its ports, and the outside address tried on each; its
// verdicts clean; its elapsed_s.
double job_with_strangers(const JobShape& shape, int* opened) {
  auto job = late_rank0_job(shape);
  std::vector<std::unique_ptr<Outsiders>> outsiders;
  std::set<Endpoint> ports;
  for (int first : {1, 0}) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    std::set<Endpoint> found;
    bool all = false;
    while (!all && std::chrono::steady_clock::now() < deadline && job->wait(0) < 0) {
      found.clear();
      all = true;
      for (int r = first; r < (first == 1 ? 4 : 1); ++r) {
        std::set<Endpoint> mine =
            job->pid(r) > 0 ? listening_ports(job->pid(r)) : std::set<Endpoint>();
        all &= mine.size() >= 2;  // its server and its agent
        found.insert(mine.begin(), mine.end());
      }
      if (!all) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(all) << "ranks " << first << ".. never listened: " << job->err();
    ports.insert(found.begin(), found.end());
    outsiders.push_back(std::make_unique<Outsiders>(found, 16, kPeerAddress));
  }
  EXPECT_EQ(ports.size(), 8u) << "every rank's server and agent found";
  expect_outside_address_refused(*job, ports);
  EXPECT_EQ(job->wait(120), 0) << job->err();
  json j = job->json();
  expect_clean(j, "with strangers");
  for (const auto& o : outsiders) *opened += o->opened();
  return elapsed_of(j);
}

// The strangers add less than a second to the job (issue 30). A loaded machine moves a 1.5 s
// job by more than that now and then: a pair of runs whose difference is past it is measured
// once more, and the means of the two pairs (the medians of two) decide.
TEST_F(ClusterOutsiders, IdleStrangersChangeNoVerdict) {
  JobShape shape;
  shape.ranks = 4;
  shape.bind_base = kBase;
  std::vector<double> alone, strangers;
  int opened = 0;
  for (int pair = 0; pair < 2; ++pair) {
    alone.push_back(alone_job(shape));
    strangers.push_back(job_with_strangers(shape, &opened));
    if (HasFatalFailure() || strangers.back() - alone.back() < 1.0) break;
  }
  std::printf(
      "[ measured ] %d stranger connections opened; jobs of %s s alone, %s s with strangers\n",
      opened, fmt_list(alone).c_str(), fmt_list(strangers).c_str());
  const double alone_s = mean(alone), strangers_s = mean(strangers);
  EXPECT_GT(alone_s, 0);
  EXPECT_GT(strangers_s, 0);
  EXPECT_LT(strangers_s - alone_s, 1.0) << "the strangers slowed the job";
  EXPECT_GE(opened, 8 * 16) << "the strangers held their connections";
}

}  // namespace
}  // namespace fabperf::testing
