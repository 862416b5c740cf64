// The server's fabric sessions in session processes (app/session_process.h): a dead shm
// client frees its slot and leaves nothing spinning (security review D3), the run's memory
// is bounded (D4), and as root the run is nobody's.
#include <dirent.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "fabric/provider.h"
#include "net/shm_cleanup.h"
#include "session/child_limits.h"
#include "session_child_util.h"

namespace fabperf::testing {
namespace {

bool has(const std::vector<std::string>& list, const std::string& name) {
  return std::find(list.begin(), list.end(), name) != list.end();
}

// A fabric run any user may reach: tcp;ofi_rxm where there is one.
bool have_rxm() { return has(providers_with(FI_EP_RDM, FI_RMA), "tcp;ofi_rxm"); }

// The security review's D3: SIGKILL the client of `-P shm rdm_write_bw` mid-run. Before,
// the session spun in libfabric forever and its slot stayed taken.
TEST(E2eSessionChildTest, ADeadShmClientFreesItsSlotAndNothingSpins) {
  if (!has(providers_with(FI_EP_RDM, FI_RMA), "shm")) GTEST_SKIP() << "no shm provider";
  // As root the child would be nobody, whose shm regions a root client cannot reach.
  std::vector<std::string> args = {"--max_clients", "1", "--max_time", "60"};
  if (geteuid() == 0) args.insert(args.end(), {"--run_as", "root"});
  LoggedServer server(args);
  Proc client(
      {"127.0.0.1", "-lp", server.port_arg(), "-P", "shm", "-n", "100000000", "rdm_write_bw"});
  pid_t child = wait_for_running_child(server.pid(), 60);
  ASSERT_GT(child, 0) << "no session process ran; client: " << client.err();
  client.signal(SIGKILL);
  EXPECT_EQ(client.wait(30), 128 + SIGKILL);
  // Well before the --max_time watchdog (60 + 5 + 5 s): the hang-up ends it.
  EXPECT_TRUE(wait_until([&] { return children_of(server.pid()).empty(); }, 40))
      << "session process still running; server log:\n"
      << server.log();
  // The accept loop and the signal thread.
  EXPECT_TRUE(wait_for_resources(server.pid(), 1000, 2, 30)) << "a session thread remains";
  RunOutput next = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "tcp_lat"}, 60);
  EXPECT_EQ(next.exit_code, 0) << next.err;
  // Mostly the session spins in the provider and is killed after the hang-up, its region
  // left for us to remove; now and then the client dies where the child notices and ends.
  std::string log = server.log();
  std::string who = "session process " + std::to_string(child) + " ";
  bool killed = contains(log, who + "killed: it did not end within 2 s of its client hanging up");
  EXPECT_TRUE(killed || contains(log, ": rdm_write_bw: ")) << log;  // or it ended with its error
  if (killed) {
    EXPECT_TRUE(contains(log, "removed 1 shm file(s) it left in /dev/shm")) << log;
  }
  EXPECT_TRUE(remove_shm_files_of(child, geteuid()).empty());
  // The killed client's own 16 MiB regions are removed by its server too (review N11).
  const std::string prefix = std::to_string(client.pid()) + ":";
  auto client_regions = [&] {
    std::vector<std::string> names;
    DIR* d = opendir("/dev/shm");
    while (dirent* e = d != nullptr ? readdir(d) : nullptr) {
      if (std::string(e->d_name).rfind(prefix, 0) == 0) names.push_back(e->d_name);
    }
    if (d != nullptr) closedir(d);
    return names;
  };
  EXPECT_TRUE(wait_until([&] { return client_regions().empty(); }, 30))
      << client_regions().front() << "\n"
      << log;
  remove_shm_files_of(client.pid(), geteuid());
}

TEST(E2eSessionChildTest, AsRootAFabricRunIsTheRunAsUsers) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: only root drops to another user";
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  auto nobody = lookup_user("nobody");
  if (!nobody.ok()) GTEST_SKIP() << "no user nobody";
  LoggedServer server({"--run_as", "nobody"});
  Proc client(
      {"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-t", "3", "rdm_write_bw"});
  pid_t child = wait_for_running_child(server.pid(), 60);
  ASSERT_GT(child, 0) << "no session process ran; client: " << client.err();
  std::string id = std::to_string(nobody->uid);
  EXPECT_EQ(uid_line(child), "Uid:\t" + id + "\t" + id + "\t" + id + "\t" + id);
  EXPECT_EQ(client.wait(60), 0) << client.err();
  EXPECT_TRUE(contains(client.out(), "bw  =")) << client.out();
}

// A root server given no --run_as runs a local client's session as the client's own user:
// the bench's root client over shm once met a nobody session, and fi_av_insert said only
// EINVAL (each side opens the other's region, mode 600). Named otherwise, it is said in words.
TEST(E2eSessionChildTest, AsRootALocalShmClientsSessionIsItsOwnUsers) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root: only root runs sessions as another user";
  if (!has(providers_with(FI_EP_RDM, FI_MSG), "shm")) GTEST_SKIP() << "no shm provider";
  if (!lookup_user("nobody").ok()) GTEST_SKIP() << "no user nobody";
  {
    LoggedServer server;
    RunOutput out =
        run({"127.0.0.1", "-lp", server.port_arg(), "-P", "shm", "-t", "0.2", "rdm_send_lat"}, 120);
    EXPECT_EQ(out.exit_code, 0) << out.err << server.log();
    EXPECT_TRUE(contains(out.out, "latency  =")) << out.out;
  }
  LoggedServer nobodys({"--run_as", "nobody"});
  RunOutput out =
      run({"127.0.0.1", "-lp", nobodys.port_arg(), "-P", "shm", "-t", "0.2", "rdm_send_lat"}, 120);
  EXPECT_EQ(out.exit_code, 1) << out.err;
  EXPECT_TRUE(contains(out.err, "so both sides must be one user")) << out.err;
}

// D4: --max_memory 8M once admitted a run that peaked at 1.1 GiB. Admission now counts the
// buffer layout the run will have (--tx_depth slots of -m bytes, both sides' regions, the
// provider's own allowance), so the run is refused before a session process starts, in
// words naming both figures; the session process's own memory limit (a backstop for an
// estimate that falls short) is tested in session_child_test.cc.
TEST(E2eSessionChildTest, ARunBeyondTheMemoryLimitIsRefusedBeforeItStarts) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server({"--max_memory", "8M"});
  // Under --verify a slot per operation in flight, up to 1 GiB of them: 512 of 1 MiB a side.
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-m", "1M",
                     "--tx_depth", "1024", "--verify", "-t", "2", "rdm_write_bw"},
                    120);
  EXPECT_EQ(r.exit_code, 1);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.err, m,
                                std::regex("the run needs about ([0-9.]+)G of buffers, "
                                           "more than this server's limit of 8M "
                                           "\\(server option --max_memory\\)")))
      << r.err;
  EXPECT_GE(std::stod(m[1]), 1.0) << r.err;  // the 1024 slots counted, not one message
  // Without --verify the operations share 1 MiB of slots: the session process's own memory
  // over tcp;ofi_rxm (about 116 MiB, measured) is what is left over the limit.
  RunOutput plain = run({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-m", "1M",
                         "--tx_depth", "1024", "-t", "2", "rdm_write_bw"},
                        120);
  EXPECT_EQ(plain.exit_code, 1);
  ASSERT_TRUE(std::regex_search(plain.err, m,
                                std::regex("the run needs about ([0-9.]+)M of "
                                           "buffers, more than this server's "
                                           "limit of 8M")))
      << plain.err;
  EXPECT_LT(std::stod(m[1]), 130.0) << plain.err;
  RunOutput after = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "tcp_lat"}, 60);
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

// Review N10: the session process peaked 16 MB above what --max_memory counted for it (a flat
// 64 MiB allowance beside the buffers; tcp;ofi_rxm holds about 80-114). The estimate is now
// measured per provider: at a large window every run stays within 10% above it, and the
// provider's most demanding shape comes near it (the estimate is not padding): within 10%, but
// over shm within 20%. Over shm the receiving session's peak follows how far the sender got
// ahead of it (the inject buffers it touched): 4 KiB sends peaked 16.6 to 20.4 MiB beside their
// buffers from run to run on the same host, a spread no 10% band around the most holds. The
// demanding shape's best of up to three runs is taken; every run stays under the estimate.
TEST(E2eSessionChildTest, TheSessionProcessPeaksUnderAndNearItsEstimate) {
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "AddressSanitizer's shadow memory and quarantine are not the program's";
#endif
  struct Shape {
    const char* provider;
    std::vector<std::string> worst;  // the shape that takes the most beside its buffers
    double reaches;                  // the least share of the estimate its best run peaks at
  };
  const std::vector<Shape> shapes = {{"shm", {"-m", "4K", "rdm_send_bw"}, 0.8},
                                     {"tcp;ofi_rxm", {"-m", "64K", "rdm_send_bw"}, 0.9},
                                     {"udp;ofi_rxd", {"-m", "64K", "rdm_write_bi_bw"}, 0.9},
                                     {"sockets", {"-m", "64K", "rdm_write_bi_bw"}, 0.9}};
  constexpr int kTriesOfTheWorst = 3;
  LoggedServer server(keep_root_sessions());
  int tried = 0;
  for (const Shape& shape : shapes) {
    if (!has(providers_with(FI_EP_RDM, FI_MSG), shape.provider)) continue;
    ++tried;
    for (const auto& test : {shape.worst, std::vector<std::string>{"-m", "64K", "rdm_write_bw"}}) {
      SCOPED_TRACE(std::string(shape.provider) + " " + test.back() + " " + test[1]);
      const bool worst = test == shape.worst;
      double best = 0, estimate = 0;
      std::string peaks;
      for (int run_no = 0; run_no < (worst ? kTriesOfTheWorst : 1); ++run_no) {
        std::vector<std::string> args = {
            "127.0.0.1", "-lp", server.port_arg(), "-P", shape.provider, "--tx_depth", "1024",
            "-t",        "0.5", "--json",          "-"};
        args.insert(args.end(), test.begin(), test.end());
        RunOutput r = run(args, 120);
        if (r.exit_code != 0 && known_provider_flake(shape.provider, test.back(), r.err)) continue;
        ASSERT_EQ(r.exit_code, 0) << r.err;
        auto doc = nlohmann::json::parse(r.out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << r.out;
        const nlohmann::json& process = doc["results"][0]["info"]["rem"]["session_process"];
        ASSERT_TRUE(process.is_object()) << doc.dump();
        double peak = process["peak_resident_bytes"].get<double>();
        estimate = process["admitted_bytes"].get<double>();
        EXPECT_LE(peak, 1.1 * estimate) << "peak " << peak << " against " << estimate;
        best = std::max(best, peak);
        peaks += (peaks.empty() ? "" : ", ") + std::to_string(static_cast<int64_t>(peak));
        if (worst && best >= shape.reaches * estimate) break;
      }
      if (worst && estimate > 0) {
        EXPECT_GE(best, shape.reaches * estimate) << "peaks " << peaks << " against " << estimate;
      }
    }
  }
  if (tried == 0) GTEST_SKIP() << "none of shm, tcp;ofi_rxm, udp;ofi_rxd, sockets";
}

// A hostile client that leaves msg_size out (0: "the test's default") once had its run
// counted at 64-byte slots while the session laid out the default's 64 KiB ones: under
// --verify, 1024 slots a side passed a limit they were 64 MiB over. The server resolves the
// default before it counts, so the figure is the session's own.
TEST(E2eSessionChildTest, AMessageSizeLeftToTheDefaultIsCountedAtTheDefault) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server({"--max_memory", "200M"});
  for (const nlohmann::json& size : {nlohmann::json(0), nlohmann::json()}) {
    auto ch = fake_session(server.port());
    ASSERT_TRUE(ch);
    nlohmann::json params = {{"provider", "tcp;ofi_rxm"},
                             {"tx_depth", 1024},
                             {"verify", true},
                             {"time", 1},
                             {"timeout", 3}};
    if (!size.is_null()) params["msg_size"] = size;
    ASSERT_TRUE(ch->send(MsgType::kRun, {{"test", "rdm_write_bw"}, {"params", params}}).ok());
    auto reply = ch->expect(MsgType::kReady, 20);
    ASSERT_FALSE(reply.ok()) << "admitted with msg_size " << size.dump();
    EXPECT_TRUE(ch->peer_reported_error()) << reply.status().message();
    EXPECT_NE(reply.status().message().find("more than this server's limit of 200M"),
              std::string::npos)
        << reply.status().message();
  }
  // The same run with the size given is refused alike, and a run within the limit still runs.
  RunOutput given = run({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "--tx_depth",
                         "1024", "--verify", "-t", "1", "rdm_write_bw"},
                        120);
  EXPECT_EQ(given.exit_code, 1) << given.out;
  EXPECT_TRUE(contains(given.err, "more than this server's limit of 200M")) << given.err;
  RunOutput after =
      run({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-t", "0.2", "rdm_write_bw"},
          120);
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

// The review's "--tx_depth 8192 -t 1 rdm_write_bw ran for minutes": the posting loop now
// checks the run's limit between posts and while waiting, so the run ends on time and the
// bandwidth is the bytes over the time that really ran.
TEST(E2eSessionChildTest, ADeepWindowEndsWithinItsTime) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-m", "4K",
                     "--tx_depth", "8192", "-t", "1", "--json", "-", "rdm_write_bw"},
                    120);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  const nlohmann::json& result = doc["results"][0];
  EXPECT_EQ(result["status"], "ok");
  EXPECT_LE(result["elapsed_s"].get<double>(), 2.0) << result.dump();
  EXPECT_GE(result["elapsed_s"].get<double>(), 0.9) << result.dump();
}

// A fabric run's passive side has the server's deadline: a client that stops (SIGSTOP, as a
// hung node would) loses its run and its slot within the server's -to, whatever -to it asked.
TEST(E2eSessionChildTest, TheServersTimeoutCapsAStoppedFabricClient) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server({"-to", "2", "--max_clients", "1"});
  Proc client({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-to", "3600", "-t",
               "60", "rdm_write_bw"});
  pid_t child = wait_for_running_child(server.pid(), 60);
  ASSERT_GT(child, 0) << "no session process ran; client: " << client.err();
  client.signal(SIGSTOP);
  // Generous for a loaded machine, yet far below the 60 s run and the 3600 s the client asked.
  EXPECT_TRUE(wait_until([&] { return children_of(server.pid()).empty(); }, 30))
      << "session process still running; server log:\n"
      << server.log();
  client.signal(SIGKILL);
  client.wait(30);
  RunOutput next = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "tcp_lat"}, 60);
  EXPECT_EQ(next.exit_code, 0) << next.err << server.log();
}

// Once libfabric is loaded its providers install their own handlers; the signal thread still
// owns SIGINT: the client prints and writes what it has, marked interrupted, and exits 130.
TEST(E2eSessionChildTest, SigintOnAFabricClientKeepsItsResults) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server;
  for (const char* test : {"rdm_write_bw", "rdm_write_lat"}) {
    TempDir dir;
    std::string json_path = dir.file("out.json");
    Proc client({"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-t", "60", "--json",
                 json_path, test});
    ASSERT_GT(wait_for_running_child(server.pid(), 60), 0) << test << ": " << client.err();
    client.signal(SIGINT);
    EXPECT_EQ(client.wait(30), 130) << test << ": " << client.err();
    EXPECT_TRUE(contains(client.out(), std::string(test) + ":\n")) << client.out();
    nlohmann::json doc = nlohmann::json::parse(read_file(json_path));
    ASSERT_EQ(doc["results"].size(), 1u) << test;
    EXPECT_EQ(doc["results"][0]["status"], "interrupted") << test;
    EXPECT_LT(doc["results"][0]["elapsed_s"].get<double>(), 40) << test;
  }
}

// SIGTERM on a server whose session process is mid-run: the client hears why, the child is
// ended with it, and the server exits 0.
TEST(E2eSessionChildTest, SigtermOnAServerMidFabricRun) {
  if (!have_rxm()) GTEST_SKIP() << "no tcp;ofi_rxm";
  LoggedServer server;
  Proc client(
      {"127.0.0.1", "-lp", server.port_arg(), "-P", "tcp;ofi_rxm", "-t", "60", "rdm_write_bw"});
  pid_t child = wait_for_running_child(server.pid(), 60);
  ASSERT_GT(child, 0) << "no session process ran; client: " << client.err();
  server.proc().signal(SIGTERM);
  EXPECT_EQ(server.proc().wait(30), 0) << server.log();
  EXPECT_EQ(client.wait(30), 1) << client.err();
  EXPECT_TRUE(contains(client.err(), "server shutting down")) << client.err();
  EXPECT_TRUE(wait_until([&] { return kill(child, 0) != 0; }, 30)) << "session process left";
}

}  // namespace
}  // namespace fabperf::testing
