// End-to-end: hostile input, limits, access control, authentication, no amplification, and
// concurrent clients, against a real server process on loopback.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <random>
#include <thread>

#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "session_child_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

std::string frame_bytes(MsgType type, const json& body) {
  auto bytes = encode_frame(type, body);
  return std::string(bytes.begin(), bytes.end());
}

std::string header(const char* magic, uint16_t version, uint16_t type, uint32_t length) {
  std::string h(magic, 4);
  h += static_cast<char>(version >> 8);
  h += static_cast<char>(version);
  h += static_cast<char>(type >> 8);
  h += static_cast<char>(type);
  for (int i = 3; i >= 0; --i) h += static_cast<char>(length >> (8 * i));
  return h;
}

struct Hostile {
  const char* name;
  std::string bytes;  // sent, then our side stops writing (unless `silent`)
  const char* reply;  // text the ERROR sent back must contain ("" when none can be)
  bool close_first;   // the client leaves at once: nothing can be sent back
};

std::vector<Hostile> hostile_inputs() {
  std::mt19937 rng(7);
  std::string random(3000, '\0');
  for (char& c : random) c = static_cast<char>(rng());
  std::string hello = frame_bytes(MsgType::kHello, {{"tool", "x"}});
  std::string nested(200, '[');
  return {
      {"random bytes", random, "not a fabperf client", false},
      {"HTTP request", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", "HTTP request", false},
      {"wrong magic", header("QPRF", kProtocolVersion, 1, 2) + "{}", "bad magic", false},
      {"wrong version", header("FBPF", 9, 1, 2) + "{}", "upgrade", false},
      {"unknown type", header("FBPF", kProtocolVersion, 999, 2) + "{}", "unknown message type",
       false},
      {"length 2^32-1", header("FBPF", kProtocolVersion, 1, 0xffffffffu), "exceeds the limit",
       false},
      {"length 2^20+1", header("FBPF", kProtocolVersion, 1, (1u << 20) + 1), "exceeds the limit",
       false},
      {"length 100000", header("FBPF", kProtocolVersion, 1, 100000), "exceeds the limit", false},
      {"truncated header", std::string("FBPF\0", 5), "closed", false},
      {"truncated body",
       header("FBPF", kProtocolVersion, 1, 50) + "{\"tool\":", "middle of a message", false},
      {"not JSON", header("FBPF", kProtocolVersion, 1, 5) + "hello", "malformed HELLO", false},
      {"JSON array", header("FBPF", kProtocolVersion, 1, 2) + "[]", "malformed HELLO", false},
      {"deep nesting", header("FBPF", kProtocolVersion, 1, 200) + nested, "nested deeper", false},
      {"RUN before HELLO", frame_bytes(MsgType::kRun, {{"test", "tcp_lat"}}), "expected HELLO",
       false},
      {"unknown test", hello + frame_bytes(MsgType::kRun, {{"test", "evil\n\x1b[31m"}}),
       "unknown test", false},
      {"bad params",
       hello + frame_bytes(MsgType::kRun, {{"test", "tcp_lat"}, {"params", {{"msg_size", -1}}}}),
       "msg_size", false},
      {"half a header, then gone", "FBP", "", true},
      {"connect and close", "", "", true},
  };
}

TEST(RobustControl, HostileInputGetsAClearErrorAndOneLogLine) {
  LoggedServer server({"-to", "1"});
  int lines = server.log_lines();
  for (const Hostile& h : hostile_inputs()) {
    int fd = connect_raw(server.port());
    ASSERT_GE(fd, 0) << h.name;
    send(fd, h.bytes.data(), h.bytes.size(), MSG_NOSIGNAL);
    if (h.close_first) {
      close(fd);
    } else {
      shutdown(fd, SHUT_WR);
      std::string reply = read_until_eof(fd, 10);
      close(fd);
      std::string message = error_message_in(reply);
      EXPECT_NE(message.find(h.reply), std::string::npos)
          << h.name << ": the client was told \"" << message << "\"";
    }
    int now = server.wait_log_lines(lines + 1, 5);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(server.log_lines(), lines + 1) << h.name << ": one log line\n" << server.log();
    lines = std::max(now, server.log_lines());
  }
  // Log lines stay lines: a peer's control characters never reach the log.
  EXPECT_EQ(server.log().find('\x1b'), std::string::npos);
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustControl, SilentClientIsToldAndDropped) {
  LoggedServer server({"-to", "1"});
  int lines = server.log_lines();
  int fd = connect_raw(server.port());
  auto t0 = std::chrono::steady_clock::now();
  std::string reply = read_until_eof(fd, 10);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(fd);
  EXPECT_NE(error_message_in(reply).find("no answer from client within 1 s"), std::string::npos)
      << error_message_in(reply);
  EXPECT_LT(took, 4);
  EXPECT_EQ(server.wait_log_lines(lines + 1, 5), lines + 1);
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "conf"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustControl, QperfClientIsToldApart) {
  if (access("/usr/bin/qperf", X_OK) != 0) GTEST_SKIP() << "qperf is not installed";
  // A stock qperf client is served on the same port (e2e_qperf_wire_test.cc); one the server
  // will not serve (--no_qperf) is told so in its own dialect, logged once, and nothing else.
  LoggedServer server({"-to", "1", "--no_qperf"});
  int lines = server.log_lines();
  RunOutput q =
      run({"-lp", server.port_arg(), "-t", "1", "127.0.0.1", "tcp_lat"}, 60, "/usr/bin/qperf");
  EXPECT_FALSE(q.timed_out);
  EXPECT_NE(q.exit_code, 0);
  EXPECT_EQ(server.wait_log_lines(lines + 1, 5), lines + 1);
  EXPECT_TRUE(contains(server.log(), "does not serve qperf clients (--no_qperf)")) << server.log();
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustLimits, RequestsBeyondTheLimitsAreRefusedWithTheReason) {
  LoggedServer server({"--max_time", "5", "--max_msgs", "1000", "--max_memory", "8M"});
  struct Case {
    std::vector<std::string> args;
    const char* reason;
  };
  for (const Case& c : std::vector<Case>{
           {{"-m", "5G", "tcp_bw"}, "message size 5G exceeds this server's limit of 1G"},
           {{"-t", "10", "tcp_bw"}, "-t 10 s exceeds this server's limit of 5 s"},
           {{"-n", "5000", "tcp_lat"}, "--max_msgs"},
           {{"-m", "16M", "-n", "5", "tcp_bw"}, "--max_memory"}}) {
    std::vector<std::string> args = {"127.0.0.1", "-lp", server.port_arg()};
    args.insert(args.end(), c.args.begin(), c.args.end());
    RunOutput r = run(args, 30);
    EXPECT_EQ(r.exit_code, 1) << c.args[0] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, c.reason)) << r.err;
    EXPECT_TRUE(contains(r.err, "server:")) << r.err;
  }
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "100", "tcp_bw"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustLimits, ServerOptionsOnAClientAreAUsageError) {
  RunOutput r = run({"127.0.0.1", "--max_clients", "3", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_TRUE(contains(r.err, "--max_clients is a server option")) << r.err;
  // With --loopback the in-process server takes them.
  RunOutput lb = run({"--loopback", "--max_msg_size", "1K", "-m", "2K", "-n", "5", "tcp_lat"});
  EXPECT_EQ(lb.exit_code, 1);
  EXPECT_TRUE(contains(lb.err, "exceeds this server's limit of 1K")) << lb.err;
  RunOutput bad = run({"--max_memory", "12Q"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_TRUE(contains(bad.err, "--max_memory")) << bad.err;
}

TEST(RobustLimits, ARunPastMaxTimeIsEnded) {
  LoggedServer server({"--max_time", "1"});
  auto t0 = std::chrono::steady_clock::now();
  RunOutput r =
      run({"127.0.0.1", "-lp", server.port_arg(), "-to", "1", "-n", "100000000", "tcp_lat"}, 60);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "run time limit reached")) << r.err;
  EXPECT_LT(took, 20);
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustConcurrency, BusyWithOneClientSaysClientInTheSingular) {
  LoggedServer server({"--max_clients", "1", "-to", "3"});
  auto a = fake_session(server.port());
  ASSERT_TRUE(a);
  RunOutput busy = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat"}, 30);
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_TRUE(contains(busy.err, "server busy: 1 client is being served")) << busy.err;
}

TEST(RobustConcurrency, BeyondMaxClientsTheClientHearsBusy) {
  LoggedServer server({"--max_clients", "2", "-to", "3"});
  ASSERT_TRUE(wait_for_resources(server.pid(), 1000, 2, 5));
  int fds = fd_count(server.pid());
  // Two clients that said hello and then think: they hold both places.
  auto a = fake_session(server.port()), b = fake_session(server.port());
  ASSERT_TRUE(a && b);
  RunOutput busy = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat"}, 30);
  EXPECT_EQ(busy.exit_code, 1);
  EXPECT_TRUE(contains(busy.err, "server busy")) << busy.err;
  EXPECT_TRUE(contains(busy.err, "try again")) << busy.err;
  a.reset();
  b.reset();
  ASSERT_TRUE(wait_for_resources(server.pid(), fds, 2, 10)) << "the two sessions did not end";
  RunOutput ok = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "10", "tcp_lat"}, 30);
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(RobustConcurrency, ClientsAtOnceGetTheirOwnResults) {
  LoggedServer server;
  struct Job {
    std::vector<std::string> args;
    const char* test;
    int msg_size;
    int n;
  };
  std::vector<Job> jobs = {
      {{"-m", "1"}, "tcp_lat", 1, 3000},    {{"-m", "100"}, "tcp_lat", 100, 2000},
      {{"-m", "4K"}, "tcp_bw", 4096, 3000}, {{"-m", "32"}, "udp_lat", 32, 1000},
      {{"-m", "1K"}, "udp_bw", 1024, 2000}, {{"-m", "8K"}, "tcp_bw", 8192, 1000}};
  std::vector<std::future<RunOutput>> runs;
  for (const Job& job : jobs) {
    std::vector<std::string> args = {
        "127.0.0.1", "-lp", server.port_arg(), "-n", std::to_string(job.n), "--json", "-"};
    args.insert(args.end(), job.args.begin(), job.args.end());
    args.push_back(job.test);
    runs.push_back(std::async(std::launch::async, [args] { return run(args, 60); }));
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    RunOutput r = runs[i].get();
    ASSERT_EQ(r.exit_code, 0) << jobs[i].test << ": " << r.err;
    json result = json::parse(r.out)["results"][0];
    EXPECT_EQ(result["status"], "ok");
    EXPECT_EQ(result["params"]["msg_size"], jobs[i].msg_size) << jobs[i].test;
    if (std::string(jobs[i].test).find("lat") != std::string::npos) {
      EXPECT_EQ(result["latency_ns"]["samples"].get<int>() + result["messages"]["lost"].get<int>(),
                jobs[i].n)
          << jobs[i].test;
    } else {
      EXPECT_EQ(result["messages"]["sent"], jobs[i].n) << jobs[i].test;
    }
  }
}

TEST(RobustAmplifier, DataGoesOnlyToTheControlConnectionsPeer) {
  LoggedServer server;
  for (const char* test : {"tcp_lat", "udp_lat", "udp_bw", "tcp_bw"}) {
    // The client's source address is 127.0.0.5; the server may talk to nobody else.
    Proc client({"127.0.0.1", "-lp", server.port_arg(), "--bind", "127.0.0.5", "-t", "2", test});
    // Looked at once the data connection is up (the control connection's peer and the data
    // socket's), not after a fixed sleep a loaded machine may outlast.
    EXPECT_TRUE(wait_until([&] { return connected_peers(server.pid()).size() >= 2; }, 30)) << test;
    std::vector<std::string> peers = connected_peers(server.pid());
    EXPECT_GE(peers.size(), 1u) << test;
    for (const std::string& peer : peers) {
      EXPECT_TRUE(peer == "127.0.0.5" || peer == "::ffff:127.0.0.5")
          << test << " talks to " << peer;
    }
    EXPECT_EQ(client.wait(30), 0) << test << ": " << client.err();
  }
}

TEST(RobustAmplifier, NoParameterNamesAnotherHost) {
  LoggedServer server;
  for (const char* name : {"host", "bind", "listen_port", "loopback", "allow", "auth_key_file"}) {
    auto ch = fake_session(server.port());
    ASSERT_TRUE(ch);
    ASSERT_TRUE(
        ch->send(MsgType::kRun, {{"test", "udp_bw"}, {"params", {{name, "127.0.0.9"}}}}).ok());
    auto reply = ch->recv(5);
    EXPECT_FALSE(reply.ok()) << name;
    EXPECT_TRUE(contains(reply.status().message(), "unknown parameter"))
        << reply.status().message();
  }
  // Extra address fields in the data-port exchange are ignored: the answer goes to our port
  // on 127.0.0.1, the control connection's address, and never to 127.0.0.9.
  int victim = socket(AF_INET, SOCK_DGRAM, 0), mine = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(0x7f000001);
  ASSERT_EQ(bind(mine, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(mine, reinterpret_cast<sockaddr*>(&a), &len);
  sockaddr_in v = a;
  v.sin_addr.s_addr = htonl(0x7f000009);
  ASSERT_EQ(bind(victim, reinterpret_cast<sockaddr*>(&v), sizeof v), 0);
  auto ch = fake_session(server.port());
  ASSERT_TRUE(ch);
  ASSERT_TRUE(
      ch->send(MsgType::kRun, {{"test", "udp_lat"}, {"params", {{"no_msgs", 1}, {"msg_size", 1}}}})
          .ok());
  ASSERT_TRUE(ch->expect(MsgType::kReady, 5).ok());
  ASSERT_TRUE(ch->send(MsgType::kExchange,
                       {{"port", ntohs(a.sin_port)}, {"host", "127.0.0.9"}, {"addr", "127.0.0.9"}})
                  .ok());
  auto reply = ch->expect(MsgType::kExchange, 5);
  ASSERT_TRUE(reply.ok()) << reply.status().message();
  sockaddr_in server_data = a;
  server_data.sin_port = htons(static_cast<uint16_t>((*reply)["port"].get<int>()));
  ASSERT_EQ(connect(mine, reinterpret_cast<sockaddr*>(&server_data), sizeof server_data), 0);
  ASSERT_EQ(send(mine, "p", 1, 0), 1);
  pollfd fds[2] = {{mine, POLLIN, 0}, {victim, POLLIN, 0}};
  ASSERT_GT(poll(fds, 2, 3000), 0);
  EXPECT_TRUE(fds[0].revents & POLLIN) << "the echo reached the control connection's address";
  EXPECT_EQ(poll(&fds[1], 1, 300), 0) << "nothing reached 127.0.0.9";
  close(mine);
  close(victim);
}

}  // namespace
}  // namespace fabperf::testing
