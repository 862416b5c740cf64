// End-to-end: real server and client processes on loopback, checked as a user sees them.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <future>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "session_child_util.h"

namespace fabperf::testing {
namespace {

using nlohmann::json;

// The newline-ended lines of a program's output (CSV rows).
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1) {
    lines.push_back(text.substr(start, nl - start));
  }
  return lines;
}

// A CSV row's cells (fabperf's rows here hold no quoted commas).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells;
  size_t start = 0;
  for (size_t c; (c = line.find(',', start)) != std::string::npos; start = c + 1) {
    cells.push_back(line.substr(start, c - start));
  }
  cells.push_back(line.substr(start));
  return cells;
}

bool ipv6_loopback_available() {
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in6 a{};
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  bool ok = bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  close(fd);
  return ok;
}

TEST(E2eSocket, LoopbackPrintsQperfLayout) {
  RunOutput r = run({"--loopback", "-t", "0.3", "tcp_lat", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(
      std::regex_search(r.out, std::regex("tcp_lat:\n    latency  =  [0-9.]+ (ns|us|ms)\n")))
      << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex("tcp_bw:\n    bw  =  [0-9.]+ [KMGT]?B/sec\n")))
      << r.out;
}

TEST(E2eSocket, EverySocketTestAgainstASeparateServer) {
  ServerProcess server;
  for (const char* test : {"tcp_lat", "tcp_bw", "udp_lat", "udp_bw"}) {
    RunOutput r = run({"localhost", "-lp", server.port_arg(), "-t", "0.3", test});
    EXPECT_EQ(r.exit_code, 0) << test << ": " << r.err;
    EXPECT_TRUE(contains(r.out, std::string(test) + ":\n")) << r.out;
  }
  RunOutput udp = run({"localhost", "-lp", server.port_arg(), "-t", "0.3", "udp_bw"});
  EXPECT_TRUE(contains(udp.out, "send_bw")) << udp.out;
  EXPECT_TRUE(contains(udp.out, "recv_bw")) << udp.out;
  EXPECT_TRUE(contains(udp.out, "lost_msgs")) << udp.out;
  EXPECT_TRUE(server.running());
}

TEST(E2eSocket, JsonDocumentIsValidAndComplete) {
  RunOutput r = run({"--loopback", "-n", "200", "--json", "-", "tcp_lat", "udp_bw", "conf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);  // throws on NaN, Infinity or a second document
  EXPECT_EQ(doc["tool"], "fabperf");
  EXPECT_TRUE(doc["schema"].is_number_integer());
  EXPECT_EQ(doc["clock"], "CLOCK_MONOTONIC_RAW");
  EXPECT_TRUE(std::regex_match(doc["started"].get<std::string>(),
                               std::regex("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ")));
  for (const char* side : {"client", "server"}) {
    for (const char* key : {"node", "cpu", "os", "version"}) {
      EXPECT_TRUE(doc[side].contains(key)) << side << "." << key;
    }
  }
  ASSERT_EQ(doc["results"].size(), 3u);
  const json& lat = doc["results"][0];
  EXPECT_EQ(lat["test"], "tcp_lat");
  EXPECT_EQ(lat["status"], "ok");
  EXPECT_EQ(lat["params"]["msg_size"], 1);
  EXPECT_EQ(lat["params"]["no_msgs"], 200);
  EXPECT_EQ(lat["latency_ns"]["samples"], 200);  // -n works on socket tests; warm-up excluded
  for (const char* key : {"min", "max", "mean", "stddev", "p50", "p90", "p99", "p99_9", "p99_99"}) {
    ASSERT_TRUE(lat["latency_ns"].contains(key)) << key;
  }
  EXPECT_LE(lat["latency_ns"]["min"].get<double>(), lat["latency_ns"]["p50"].get<double>());
  EXPECT_LE(lat["latency_ns"]["p50"].get<double>(), lat["latency_ns"]["p99"].get<double>());
  EXPECT_LE(lat["latency_ns"]["p99_99"].get<double>(),
            lat["latency_ns"]["max"].get<double>() * 1.001);
  EXPECT_GT(lat["msg_rate"].get<double>(), 0);
  EXPECT_TRUE(lat["cpu"]["loc"].contains("used"));
  const json& bw = doc["results"][1];
  EXPECT_EQ(bw["messages"]["sent"], 200);
  EXPECT_GT(bw["bandwidth"]["send_Bps"].get<double>(), 0);
  EXPECT_LE(bw["messages"]["received"].get<uint64_t>() + bw["messages"]["lost"].get<uint64_t>(),
            200u);
  EXPECT_EQ(doc["results"][2]["test"], "conf");
}

TEST(E2eSocket, CsvHasHeaderAndOneRowPerResult) {
  RunOutput r = run({"--loopback", "-n", "50", "--csv", "-", "tcp_lat", "tcp_bw"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> rows = lines_of(r.out);
  ASSERT_EQ(rows.size(), 3u) << r.out;
  EXPECT_EQ(rows[0].rfind("test,status,error,msg_size", 0), 0u);
  EXPECT_EQ(rows[1].rfind("tcp_lat,ok,,1,", 0), 0u) << rows[1];
  EXPECT_EQ(rows[2].rfind("tcp_bw,ok,,65536,", 0), 0u) << rows[2];
  auto commas = [](const std::string& s) { return std::count(s.begin(), s.end(), ','); };
  EXPECT_EQ(commas(rows[0]), commas(rows[1]));
  EXPECT_EQ(commas(rows[0]), commas(rows[2]));
}

// The CSV says which way the data went, and a two-way test's two directions, as the JSON does.
TEST(E2eSocket, CsvSaysTheDirection) {
  TempDir tmp;
  // -R applies to every test of the command line (tcp_lat and tcp_bi_bw warn and ignore it):
  // the one-way forward test runs apart.
  RunOutput r = run({"--loopback", "-t", "0.2", "-R", "--csv", "-", "--json", tmp.file("r.json"),
                     "tcp_lat", "tcp_bw", "tcp_bi_bw"});
  RunOutput forward = run({"--loopback", "-t", "0.2", "--csv", "-", "tcp_bw"});
  ASSERT_EQ(forward.exit_code, 0) << forward.err;
  auto table = [](const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    for (const std::string& line : lines_of(text)) {
      if (line.rfind("test,", 0) == 0 || line.rfind("tcp_", 0) == 0) rows.push_back(cells_of(line));
    }
    return rows;
  };
  auto column = [](const std::vector<std::string>& header, const std::string& name) {
    return static_cast<size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::vector<std::vector<std::string>> fw = table(forward.out);
  ASSERT_EQ(fw.size(), 2u) << forward.out;
  size_t dir = column(fw[0], "direction");
  size_t c2s = column(fw[0], "client_to_server_Bps");
  size_t s2c = column(fw[0], "server_to_client_Bps");
  ASSERT_LT(s2c, fw[0].size()) << forward.out;
  EXPECT_EQ(fw[1][dir], "client_to_server");
  EXPECT_EQ(fw[1][c2s], "");

  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> rows = table(r.out);
  ASSERT_EQ(rows.size(), 4u) << r.out;  // header, tcp_lat, tcp_bw -R, tcp_bi_bw
  nlohmann::json doc = nlohmann::json::parse(read_file(tmp.file("r.json")));
  EXPECT_EQ(rows[1][dir], "");  // a latency test has no direction
  EXPECT_EQ(rows[2][dir], "server_to_client");
  EXPECT_EQ(rows[2][dir], doc["results"][1]["bandwidth"]["direction"]);
  EXPECT_EQ(rows[3][dir], "both");
  double to_server = std::stod(rows[3][c2s]), to_client = std::stod(rows[3][s2c]);
  EXPECT_GT(to_server, 0);
  EXPECT_GT(to_client, 0);
  const nlohmann::json& bi = doc["results"][2]["bandwidth"];
  EXPECT_NEAR(to_server, bi["client_to_server_Bps"].get<double>(), 1e-5 * to_server);
  EXPECT_NEAR(to_client, bi["server_to_client_Bps"].get<double>(), 1e-5 * to_client);
}

TEST(E2eSocket, LoopOverMessageSizes) {
  RunOutput r = run({"--loopback", "-n", "20", "-oo", "msg_size:1:64:*4", "-vu", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* size : {"1 bytes", "4 bytes", "16 bytes", "64 bytes"}) {
    EXPECT_TRUE(contains(r.out, size)) << size << "\n" << r.out;
  }
  size_t blocks = 0;
  for (size_t at = 0; (at = r.out.find("tcp_lat:", at)) != std::string::npos; ++at) ++blocks;
  EXPECT_EQ(blocks, 4u);
}

TEST(E2eSocket, NestedLoopsRunEveryCombination) {
  RunOutput r = run(
      {"--loopback", "-oo", "msg_size:1:2", "-oo", "no_msgs:10:30:10", "--json", "-", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  json doc = json::parse(r.out);
  ASSERT_EQ(doc["results"].size(), 6u);
  EXPECT_EQ(doc["results"][5]["loop"]["msg_size"], 2);
  EXPECT_EQ(doc["results"][5]["loop"]["no_msgs"], 30);
  EXPECT_EQ(doc["results"][5]["latency_ns"]["samples"], 30);
}

TEST(E2eSocket, VerboseShowsDistributionAndCpu) {
  RunOutput r = run({"--loopback", "-n", "300", "-v", "--percentiles", "50,99.9", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name :
       {"msg_rate", "latency_min", "latency_max", "latency_stddev", "latency_p50", "latency_p99_9",
        "loc_cpus_used", "rem_cpus_used", "loc_proc_cpus_used", "no_msgs"}) {
    EXPECT_TRUE(contains(r.out, "    " + std::string(name) + " ")) << name << "\n" << r.out;
  }
  EXPECT_FALSE(contains(r.out, "latency_p90")) << r.out;
}

TEST(E2eSocket, QuitStopsTheServer) {
  ServerProcess server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "quit"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "quit:\n");
  EXPECT_EQ(server.wait_exit(10), 0);
}

TEST(E2eSocket, ConfShowsBothNodes) {
  ServerProcess server;
  RunOutput r = run({"localhost", "-lp", server.port_arg(), "conf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* name : {"loc_node", "loc_cpu", "loc_os", "loc_fabperf", "rem_node", "rem_cpu",
                           "rem_os", "rem_fabperf"}) {
    EXPECT_TRUE(contains(r.out, name)) << r.out;
  }
}

TEST(E2eSocket, Ipv6LiteralAndIpv4Literal) {
  ServerProcess server;
  RunOutput v4 = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "50", "tcp_lat", "udp_lat"});
  EXPECT_EQ(v4.exit_code, 0) << v4.err;
  if (!ipv6_loopback_available()) GTEST_SKIP() << "no IPv6 loopback on this host";
  RunOutput v6 = run({"::1", "-lp", server.port_arg(), "-n", "50", "tcp_lat", "udp_bw"});
  EXPECT_EQ(v6.exit_code, 0) << v6.err;
  RunOutput bracketed = run({"[::1]", "-lp", server.port_arg(), "-n", "50", "tcp_lat"});
  EXPECT_EQ(bracketed.exit_code, 0) << bracketed.err;
}

TEST(E2eSocket, InterfaceAndBindChooseThePath) {
  ServerProcess server;
  RunOutput iface = run({"127.0.0.1%lo", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(iface.exit_code, 0) << iface.err;
  RunOutput bind =
      run({"127.0.0.1", "--bind", "127.0.0.1", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(bind.exit_code, 0) << bind.err;
  RunOutput bad_iface = run({"127.0.0.1%nosuch0", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_NE(bad_iface.exit_code, 0);
  EXPECT_TRUE(contains(bad_iface.err, "nosuch0")) << bad_iface.err;
}

TEST(E2eSocket, MissingKernelProtocolsFailWithTheirName) {
  ServerProcess server;
  for (const auto& [test, proto] :
       std::vector<std::pair<std::string, std::string>>{{"sctp_lat", "SCTP"},
                                                        {"sctp_bw", "SCTP"},
                                                        {"sdp_lat", "SDP"},
                                                        {"sdp_bw", "SDP"},
                                                        {"rds_lat", "RDS"},
                                                        {"rds_bw", "RDS"}}) {
    RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.2", test}, 30);
    if (r.exit_code == 0) {
      // This kernel has the protocol after all: then it must have measured something.
      EXPECT_TRUE(contains(r.out, test + ":")) << r.out;
      continue;
    }
    EXPECT_EQ(r.exit_code, 1) << test << ": " << r.err;
    EXPECT_TRUE(contains(r.err, proto + " is not available")) << test << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "server:")) << "the server's error reaches the client: " << r.err;
  }
  EXPECT_TRUE(server.running());
}

TEST(E2eSocket, UdpDatagramTooLargeIsAnErrorNotZero) {
  RunOutput r = run({"--loopback", "-m", "70000", "-t", "0.2", "udp_lat"}, 30);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.err, "EMSGSIZE")) << r.err;
  EXPECT_FALSE(contains(r.out, "latency")) << r.out;
}

// By default one client's measurement runs at a time: a second one waits its turn, is told
// so, and measures alone; its control traffic (the session itself) is served at once.
TEST(E2eSocket, SecondClientWaitsForTheFirstsMeasurement) {
  ServerProcess server;
  auto first = std::async(std::launch::async, [&] {
    return run({"127.0.0.1", "-lp", server.port_arg(), "-t", "3", "--json", "-", "tcp_bw"}, 60);
  });
  // The first is measuring once the server holds its control and its data connection.
  ASSERT_TRUE(wait_until([&] { return connected_peers(server.pid()).size() >= 2; }, 30));
  RunOutput second =
      run({"127.0.0.1", "-lp", server.port_arg(), "-n", "100", "--json", "-", "tcp_lat"}, 60);
  EXPECT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(contains(second.err, "tcp_lat: waiting for another client's test on the server"))
      << second.err;
  // It measured after the first had finished: the server, which tracks overlap whether runs
  // queue or not, saw none on either side. (The first client may still be printing when the
  // second is done: the server passes the turn on before it sends the first its result.)
  ASSERT_TRUE(first.wait_for(std::chrono::seconds(60)) == std::future_status::ready);
  RunOutput a = first.get();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_FALSE(json::parse(a.out)["results"][0].contains("overlapped")) << a.out;
  EXPECT_FALSE(json::parse(second.out)["results"][0].contains("overlapped")) << second.out;
  RunOutput conf = run({"127.0.0.1", "-lp", server.port_arg(), "conf"});
  EXPECT_EQ(conf.exit_code, 0) << conf.err;
}

// --concurrent: both measure at once, and each result names the run it overlapped.
TEST(E2eSocket, ConcurrentRunsSayWhatOverlappedThem) {
  ServerProcess server({"--concurrent"});
  auto first = std::async(std::launch::async, [&] {
    return run({"127.0.0.1", "-lp", server.port_arg(), "-t", "3", "--json", "-", "tcp_bw"}, 60);
  });
  // The first is measuring once the server holds its control and its data connection.
  ASSERT_TRUE(wait_until([&] { return connected_peers(server.pid()).size() >= 2; }, 30));
  RunOutput second =
      run({"127.0.0.1", "-lp", server.port_arg(), "-n", "100", "--json", "-", "tcp_lat"}, 60);
  ASSERT_EQ(second.exit_code, 0) << second.err;
  EXPECT_TRUE(first.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
      << "the second client should have finished while the first ran";
  EXPECT_FALSE(contains(second.err, "waiting for another client")) << second.err;
  json b = json::parse(second.out)["results"][0];
  ASSERT_TRUE(b.contains("overlapped")) << second.out;
  EXPECT_TRUE(contains(b["overlapped"][0].get<std::string>(), "tcp_bw")) << b["overlapped"];
  RunOutput a = first.get();
  ASSERT_EQ(a.exit_code, 0) << a.err;
  json r = json::parse(a.out)["results"][0];
  ASSERT_TRUE(r.contains("overlapped")) << a.out;
  EXPECT_TRUE(contains(r["overlapped"][0].get<std::string>(), "tcp_lat")) << r["overlapped"];
}

TEST(E2eSocket, OptionsAfterTheLastTestAreApplied) {
  RunOutput r = run({"--loopback", "--json", "-", "tcp_lat", "-n", "42"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["results"][0]["latency_ns"]["samples"], 42);
}

TEST(E2eSocket, SetButNotUsedWarns) {
  RunOutput r = run({"--loopback", "-n", "10", "--verify", "-sl", "3", "tcp_lat"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: --verify set but not used in test tcp_lat")) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: -sl set but not used in test tcp_lat")) << r.err;
}

struct BadInput {
  std::vector<std::string> args;
  int exit_code;
  std::string message;
};

void PrintTo(const BadInput& c, std::ostream* os) {
  for (const std::string& a : c.args) *os << a << ' ';
}

class E2eBadInput : public ::testing::TestWithParam<BadInput> {};

TEST_P(E2eBadInput, ClearMessageAndExitCode) {
  const BadInput& c = GetParam();
  RunOutput r = run(c.args, 30);
  EXPECT_FALSE(r.timed_out);
  EXPECT_EQ(r.exit_code, c.exit_code) << r.err;
  EXPECT_TRUE(contains(r.err, c.message)) << "stderr: " << r.err;
  EXPECT_TRUE(r.out.empty() || c.exit_code == 1) << r.out;
}

INSTANTIATE_TEST_SUITE_P(
    Usage, E2eBadInput,
    ::testing::Values(
        BadInput{{"localhost", "foo_lat"}, 2, "foo_lat: bad test"},
        BadInput{{"localhost", "tcp_lta"}, 2, "did you mean tcp_lat?"},
        BadInput{{"localhost", "-xyz", "tcp_lat"}, 2, "-xyz: bad option"},
        BadInput{{"localhost", "--msg_sise", "1", "tcp_lat"}, 2, "did you mean --msg_size?"},
        BadInput{{"localhost", "-m", "12Q", "tcp_lat"}, 2, "-m: bad size: 12Q"},
        BadInput{{"localhost", "-m", "20000000000G", "tcp_lat"}, 2, "-m:"},
        BadInput{{"localhost", "-t", "-3", "tcp_lat"}, 2, "-t:"},
        BadInput{{"localhost", "-t", "0", "tcp_lat"}, 2, "would run forever"},
        BadInput{{"localhost", "tcp_lat", "-m"}, 2, "missing argument to -m"},
        BadInput{{"localhost", "-oo", "bogus:1:2:1", "tcp_lat"}, 2, "unknown loop variable"},
        BadInput{{"localhost", "-oo", "msg_size:8:1", "tcp_lat"}, 2, "Init is above Last"},
        BadInput{{"localhost", "--percentiles", "50,abc", "tcp_lat"}, 2, "abc"},
        BadInput{{"localhost"}, 2, "must specify a test type"},
        BadInput{{"-v"}, 2, "client-only option"},
        BadInput{{"--help", "nosuchtopic"}, 2, "nosuchtopic"},
        BadInput{{"-lp", "70000"}, 2, "-lp:"},
        BadInput{{"localhost", "-ca", "x", "-n", "5", "tcp_lat"}, 2, "processor affinity"}),
    [](const ::testing::TestParamInfo<BadInput>& info) {
      return "case" + std::to_string(info.index);
    });

TEST(E2eSocket, UnreachableServerFailsAfterWaitServer) {
  int port = free_port();
  auto t0 = std::chrono::steady_clock::now();
  RunOutput r = run({"127.0.0.1", "-lp", std::to_string(port), "-ws", "1", "tcp_lat"}, 30);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "failed to connect")) << r.err;
  EXPECT_GE(took, 0.9);
  EXPECT_LT(took, 10);
}

TEST(E2eSocket, SilentServerTimesOutInsteadOfHanging) {
  // A listener that accepts and never answers: every receive has a deadline (-to).
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
  socklen_t len = sizeof a;
  getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  listen(fd, 4);
  auto t0 = std::chrono::steady_clock::now();
  RunOutput r =
      run({"127.0.0.1", "-lp", std::to_string(ntohs(a.sin_port)), "-to", "1", "tcp_lat"}, 30);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  close(fd);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "no answer from server")) << r.err;
  EXPECT_LT(took, 10);
}

TEST(E2eSocket, HelpTopicsAndVersion) {
  for (const char* topic : {"categories", "examples", "opts", "options", "tests", "tcp_lat"}) {
    RunOutput r = run({"--help", topic});
    EXPECT_EQ(r.exit_code, 0) << topic;
    EXPECT_FALSE(r.out.empty()) << topic;
  }
  RunOutput tests = run({"--help", "tests"});
  for (const char* t : {"tcp_lat", "udp_bw", "sctp_lat", "rds_bw", "conf", "quit"}) {
    EXPECT_TRUE(contains(tests.out, t)) << t;
  }
  RunOutput opts = run({"-h", "options"});
  EXPECT_TRUE(contains(opts.out, "--loc_timeout")) << opts.out;
  RunOutput version = run({"-V"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_TRUE(std::regex_search(version.out, std::regex("^fabperf [0-9]+\\.[0-9]+\\.[0-9]+\n$")));
}

}  // namespace
}  // namespace fabperf::testing
