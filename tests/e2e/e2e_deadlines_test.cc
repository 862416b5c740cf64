// No client holds the server, and no client hangs (security review round 3, issue 34): the
// server ends a stopped client's fabric session at its -to even when the session process is
// stuck (N3); a client whose server session is killed mid-write exits with its JSON (N4); deep
// windows end on every provider (N5); a client hears a stopped server within its -to (N8); an
// interrupted plan lists the runs it never started (N12); a stopped --matrix rank ends with its
// launcher (N11).
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "e2e_cluster_util.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "fabric/provider.h"
#include "session_child_util.h"
#include "thread_tables.h"

namespace fabperf::testing {
namespace {

bool has_provider(const std::string& name) {
  auto all = providers_with(FI_EP_RDM, FI_RMA);
  return std::find(all.begin(), all.end(), name) != all.end();
}

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

// What a timed case allows past the -to it is about: scheduling on a loaded host, the poll
// slices, a process's exit. Generous, and still far below what each case took before the fix
// (the review: 12.8 to 40 s at -to 2 to 5, or a hang).
constexpr double kMarginS = 5;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

// A --interval line on the client's standard output: its measured phase is under way.
bool measuring(const Proc& client) { return contains(client.out(), " s]"); }

// Waits until the client measures (true), or has ended without (false, its words shown).
bool wait_measuring(const Proc& client) {
  wait_until([&] { return measuring(client) || gone(client.pid()); }, 60);
  return measuring(client);
}

// Review N3: a client stopped mid-run while its session process is stuck in the provider (as
// libfabric's shm lock held it, spinning, until the server's hard deadline). The session
// process is stopped here too, so nothing it would do itself can end it: the server watches
// the client's silence and ends it at its own -to.
TEST(E2eDeadlines, TheServerEndsAStoppedClientsStuckSessionAtItsTimeout) {
  if (!has_provider("shm")) GTEST_SKIP() << "no shm provider";
  LoggedServer server(with({"-to", "2"}, keep_root_sessions()));
  Proc client({"127.0.0.1", "-lp", server.port_arg(), "-P", "shm", "-t", "60", "--interval", "0.2",
               "rdm_write_bw"});
  ASSERT_TRUE(wait_measuring(client)) << client.err() << server.log();
  std::vector<pid_t> children = children_of(server.pid());
  ASSERT_EQ(children.size(), 1u) << server.log();
  client.signal(SIGSTOP);
  kill(children[0], SIGSTOP);
  const auto stopped = std::chrono::steady_clock::now();
  // At the server's -to (2 s), far before its deadline for the run (60 + 2 x 2 + 5 s; the
  // review saw 22.5 s at -t 15).
  EXPECT_TRUE(wait_until([&] { return children_of(server.pid()).empty(); }, 30))
      << "session process still there; server log:\n"
      << server.log();
  EXPECT_LE(seconds_since(stopped), 2 + kMarginS) << server.log();
  EXPECT_TRUE(wait_until(
      [&] { return contains(server.log(), "killed: nothing from its client for 2 s"); }, 30))
      << server.log();
  client.signal(SIGCONT);
  EXPECT_EQ(client.wait(30), 1) << client.err();
  RunOutput next = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "tcp_lat"}, 60);
  EXPECT_EQ(next.exit_code, 0) << next.err << server.log();
}

// Review N4: when the server's session process dies mid-run (killed at its deadline), a shm
// client could spin in fi_write on the dead peer's region lock for good (1 try in 11; minutes
// of CPU, SIGTERM ignored, no JSON). Here the session process is killed at varied moments,
// 50 times, with two CPU hogs running as the review's compile jobs did: every client must
// exit 1 and leave its JSON, the run marked failed.
TEST(E2eDeadlines, AShmClientWhoseSessionProcessDiesNeverHangs) {
  if (!has_provider("shm")) GTEST_SKIP() << "no shm provider";
  std::vector<std::unique_ptr<Proc>> hogs;
  for (int i = 0; i < 2; ++i) {
    hogs.push_back(
        std::make_unique<Proc>(std::vector<std::string>{"-c", "while :; do :; done"}, "/bin/sh"));
  }
  // The -to of both stays the default: set-up under this load takes seconds.
  LoggedServer server(keep_root_sessions());
  int busy = 0;  // set-ups the shm provider refused (see below), at most 5
  for (int i = 0; i < 50; ++i) {
    SCOPED_TRACE("iteration " + std::to_string(i));
    TempDir dir;
    const std::string json = dir.file("run.json");
    Proc client({"127.0.0.1", "-lp", server.port_arg(), "-P", "shm", "-n", "100000000",
                 "--interval", "0.1", "--json", json, "rdm_write_bw"});
    // Killed in the data phase, as the server's deadline kills it, at varied moments.
    if (!wait_measuring(client)) {
      // Seen once in 200 set-ups on a loaded host: the shm provider's fi_enable answered EBUSY
      // right after a killed peer's region was removed. A run that never started is not the
      // hang this test is about; it must still fail cleanly, and only a few times.
      const int rc = client.wait(60);
      ASSERT_TRUE(rc == 1 && contains(client.err(), "fi_enable: Device or resource busy") &&
                  ++busy <= 5)
          << rc << " " << client.err() << server.log();
      continue;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(37 * (i % 5)));
    std::vector<pid_t> children = children_of(server.pid());
    ASSERT_EQ(children.size(), 1u) << client.err() << server.log();
    pid_t child = children[0];
    kill(child, SIGKILL);
    const auto killed = std::chrono::steady_clock::now();
    int rc = client.wait(60);
    ASSERT_NE(rc, -1) << "the client hangs; " << client.err();
    // Within the client's -to (5 s, the default) of its peer's loss: it spun for minutes before.
    EXPECT_LE(seconds_since(killed), 5 + kMarginS) << client.err();
    EXPECT_EQ(rc, 1) << client.err();
    auto doc = nlohmann::json::parse(read_file(json), nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << "no JSON; " << client.err();
    ASSERT_EQ(doc["results"].size(), 1u) << doc.dump();
    EXPECT_EQ(doc["results"][0]["status"], "error") << doc.dump();
    // The JSON says why, in the words the client printed.
    const std::string error = doc["results"][0].value("error", "");
    EXPECT_TRUE(contains(error, "session process") || contains(error, "server:") ||
                contains(error, "the fabric provider did not return"))
        << doc.dump();
    EXPECT_TRUE(!error.empty() && contains(client.err(), error.substr(0, 40))) << error << "\n"
                                                                               << client.err();
    EXPECT_TRUE(wait_until([&] { return children_of(server.pid()).empty(); }, 30));
  }
}

// Review N4, made certain: a provider call that never returns (the client's 50th, through a
// test hook, as shm's spin on a dead peer's lock), and a SIGTERM that the stuck thread cannot
// see. The client gives up at its -to all the same: it writes the run as failed, lists the
// test it never started, removes its shm regions and exits 1.
TEST(E2eDeadlines, AClientStuckInItsProviderWritesItsResultsAndExits) {
  if (!has_provider("shm")) GTEST_SKIP() << "no shm provider";
  LoggedServer server(keep_root_sessions());
  TempDir dir;
  setenv("FABPERF_TEST_STUCK_CALL_AFTER", "50", 1);
  Proc client({"127.0.0.1", "-lp", server.port_arg(), "-P", "shm", "-to", "2", "-t", "30", "--json",
               dir.file("r.json"), "rdm_write_bw", "tcp_lat"});
  unsetenv("FABPERF_TEST_STUCK_CALL_AFTER");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  client.signal(SIGTERM);
  int rc = client.wait(60);
  ASSERT_NE(rc, -1) << "the client hangs; " << client.err();
  EXPECT_EQ(rc, 1) << client.err();
  // Its server, hearing no heartbeat, ended its side meanwhile: its account comes first.
  EXPECT_TRUE(contains(client.err(), "the fabric provider did not return for 2 s")) << client.err();
  EXPECT_FALSE(contains(client.err(), "server: rdm_write_bw:")) << client.err();
  auto doc = nlohmann::json::parse(read_file(dir.file("r.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << "no JSON; " << client.err();
  ASSERT_EQ(doc["results"].size(), 2u) << doc.dump();
  EXPECT_EQ(doc["results"][0]["status"], "error") << doc.dump();
  EXPECT_EQ(doc["results"][1]["status"], "not run") << doc.dump();
  const std::string prefix = std::to_string(client.pid()) + ":";
  EXPECT_FALSE([&] {
    DIR* d = opendir("/dev/shm");
    bool found = false;
    while (dirent* e = d != nullptr ? readdir(d) : nullptr) {
      found = found || std::string(e->d_name).rfind(prefix, 0) == 0;
    }
    if (d != nullptr) closedir(d);
    return found;
  }()) << "the client's shm region was left behind";
}

// Whether the main thread of `pid` (a fabric client's loop) is alone on its descriptor table
// while other threads run: each of at least `others` other threads lists other descriptors
// (a thread on the same table lists the same ones).
bool loop_alone_on_its_table(pid_t pid, size_t others) {
  const std::set<int> mine = thread_fds(pid, pid);
  if (mine.empty()) return false;
  size_t apart = 0;
  for (pid_t tid : process_threads(pid)) {
    if (tid == pid) continue;
    const std::set<int> theirs = thread_fds(pid, tid);
    if (theirs.empty()) continue;  // ended meanwhile
    if (theirs == mine) return false;
    ++apart;
  }
  return apart >= others;
}

// The fabric client's loop is alone on its descriptor table while it measures, as the bare
// floor's is: its system calls then borrow their files. The stuck-call watch and the signal
// thread run on copies meanwhile (core/signals.h SignalsOffTable), so the provider's
// descriptors, opened after they stepped off, are in the loop's table only.
TEST(E2eDeadlines, AFabricClientsLoopIsAloneOnItsDescriptorTable) {
  if (!has_provider("tcp;ofi_rxm")) GTEST_SKIP() << "no tcp;ofi_rxm provider";
  LoggedServer server;
  Proc client(
      {"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-t", "5", "rdm_write_lat"});
  // Polled through the run (5 s): false before the session and after it, when the signal
  // thread shares the table again.
  const bool alone =
      wait_until([&] { return loop_alone_on_its_table(client.pid(), 2) || gone(client.pid()); },
                 60) &&
      !gone(client.pid());
  EXPECT_TRUE(alone) << "a thread shared the loop's table for the whole run";
  EXPECT_EQ(client.wait(60), 0) << client.err();
}

// Review N5: the window left in flight at -t drained without heartbeats (udp;ofi_rxd, ~8 MB/s:
// 1024 x 64 KiB took longer than the server's -to, which blamed a healthy client), and then
// past the server's deadline. A deep window ends, and ends well, on every provider here.
TEST(E2eDeadlines, DeepWindowsEndOnEveryProvider) {
  int tried = 0;
  for (const char* provider : {"udp;ofi_rxd", "tcp;ofi_rxm", "shm", "sockets"}) {
    if (!has_provider(provider)) continue;
    SCOPED_TRACE(provider);
    ++tried;
    LoggedServer server(with({"-to", "2"}, keep_root_sessions()));
    RunOutput r;
    double wall_s = 0;
    for (int attempt = 0; attempt <= kProviderFlakeReruns; ++attempt) {
      const auto t0 = std::chrono::steady_clock::now();
      r = run({"127.0.0.1", "-lp", server.port_arg(), "-P", provider, "--tx_depth", "1024", "-t",
               "1", "--json", "-", "rdm_write_bw"},
              120);
      wall_s = seconds_since(t0);
      // The server's "nothing from the client for" is this test's own failure (N5: no
      // heartbeats in the drain), never a provider's flake here. Its "no answer from client
      // within 2 s" is the set-up's, before any window: at load 7.5, udp;ofi_rxd's client
      // once took longer than the server's -to 2 to open its endpoint and answer. That wait
      // is not what this test is about, so that run is taken again (at most as often as a
      // provider's flake); a set-up that never fits fails the test.
      const bool slow_setup = contains(r.err, "no answer from client within");
      // The sockets provider once stopped completing a 1024-deep window for 5 s in a loaded
      // CI run (the client said so at its -to); none of 70 runs of it alone did so again,
      // idle or beside two busy loops. The provider's stall, taken again as its others are.
      const bool sockets_stall = std::string(provider) == "sockets" &&
                                 contains(r.err, "no completion from provider sockets");
      if (r.exit_code == 0 || contains(r.err, "nothing from the client for") ||
          (!slow_setup && !sockets_stall &&
           !known_provider_flake(provider, "rdm_write_bw", r.err))) {
        break;
      }
    }
    ASSERT_EQ(r.exit_code, 0) << r.err << server.log();
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out;
    EXPECT_EQ(doc["results"][0]["status"], "ok") << doc.dump();
    // On time: the measured phase about -t (1 s), the drain paced to 0.25 s; the whole process,
    // set-up included, far below the review's 12.3 s at -t 2.
    EXPECT_LE(doc["results"][0]["elapsed_s"].get<double>(), 1 + 3) << doc.dump();
    EXPECT_LE(wall_s, 1 + 2 * kMarginS) << r.err;
    EXPECT_GT(doc["results"][0]["bandwidth"]["recv_Bps"].get<double>(), 0) << doc.dump();
  }
  if (tried == 0) GTEST_SKIP() << "none of udp;ofi_rxd, tcp;ofi_rxm, shm, sockets";
}

// Review N8 (D11): a server stopped mid-run was noticed late, or only after -t: udp_bw's sender
// hears nothing back during a run, and a fabric run's session process kept measuring. The
// server promises heartbeats now, its session process sends them only while the server runs,
// and the client gives up after its own -to of silence, in every test.
TEST(E2eDeadlines, AClientHearsAStoppedServerWithinItsTimeout) {
  std::vector<std::vector<std::string>> runs = {
      {"tcp_bw"}, {"udp_bw"}, {"tcp_lat"}, {"-R", "tcp_bw"}};
  if (has_provider("tcp;ofi_rxm")) runs.push_back({"-P", "tcp;ofi_rxm", "rdm_write_bw"});
  for (const auto& test : runs) {
    SCOPED_TRACE(test.back());
    LoggedServer server(keep_root_sessions());
    Proc client(
        with({"127.0.0.1", "-lp", server.port_arg(), "-to", "3", "-t", "60", "--interval", "0.2"},
             test));
    ASSERT_TRUE(wait_measuring(client)) << client.err() << server.log();
    server.proc().signal(SIGSTOP);
    const auto stopped = std::chrono::steady_clock::now();
    // Within the client's -to (3 s): the review saw 12.8 to 40 s.
    int rc = client.wait(30);
    const double heard_s = seconds_since(stopped);
    server.proc().signal(SIGCONT);
    EXPECT_EQ(rc, 1) << client.err();
    EXPECT_LE(heard_s, 3 + kMarginS) << client.err();
    EXPECT_TRUE(contains(client.err(), "nothing from the server for 3 s") ||
                contains(client.err(), "nothing from the peer within the timeout"))
        << client.err();
  }
}

// Review N12: an interrupted plan's JSON and CSV listed the runs done and the one cut short,
// but not the runs never started: a reader could not tell "not run" from "not asked".
TEST(E2eDeadlines, AnInterruptedPlanListsTheRunsItNeverStarted) {
  LoggedServer server;
  TempDir dir;
  Proc client({"127.0.0.1", "-lp", server.port_arg(), "-t", "3", "--json", dir.file("r.json"),
               "--csv", dir.file("r.csv"), "tcp_lat", "tcp_bw", "udp_bw"});
  ASSERT_TRUE(wait_until([&] { return contains(client.out(), "tcp_lat:"); }, 60)) << client.err();
  client.signal(SIGINT);
  EXPECT_EQ(client.wait(30), 130) << client.err();
  auto doc = nlohmann::json::parse(read_file(dir.file("r.json")), nullptr, false);
  ASSERT_FALSE(doc.is_discarded());
  ASSERT_EQ(doc["results"].size(), 3u) << doc.dump();
  EXPECT_EQ(doc["results"][0]["status"], "ok");
  // The signal may come before tcp_bw's RUN: then it was never started either.
  std::string second = doc["results"][1]["status"];
  EXPECT_TRUE(second == "interrupted" || second == "not run") << second;
  EXPECT_EQ(doc["results"][2]["test"], "udp_bw");
  EXPECT_EQ(doc["results"][2]["status"], "not run");
  EXPECT_FALSE(doc["results"][2].contains("bandwidth")) << doc["results"][2].dump();
  std::string csv = read_file(dir.file("r.csv"));
  EXPECT_TRUE(contains(csv, "\nudp_bw,not run,")) << csv;
}

// Review N11: a stopped --matrix rank outlived mpirun --enable-recovery, its ports open. It
// ends with its launcher now (the kernel's parent-death signal: nothing runs in a stopped
// process to notice).
TEST(E2eDeadlines, AStoppedMatrixRankEndsWithItsLauncher) {
  if (mpirun_path().empty()) GTEST_SKIP() << "Open MPI's mpirun is not installed (make deps)";
  JobShape shape;
  shape.ranks = 3;
  MatrixJob job(
      shape, {"-t", "0.3", "-to", "2", "--start_timeout", "30", "--pattern", "serial", "tcp_lat"});
  ASSERT_TRUE(job.wait_for_err("matrix: round 1 of", 60)) << job.err();
  const int stopped = job.pid(2);
  ASSERT_GT(stopped, 0);
  kill(stopped, SIGSTOP);
  ASSERT_GE(job.wait(120), 0) << "mpirun did not end: " << job.err();
  EXPECT_TRUE(wait_until([&] { return gone(stopped); }, 30))
      << "rank 2 (pid " << stopped << ") outlived its launcher";
}

}  // namespace
}  // namespace fabperf::testing
