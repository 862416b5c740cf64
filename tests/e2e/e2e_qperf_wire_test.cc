// End-to-end: stock qperf 0.4.11 and fabperf on qperf's wire protocol, both directions
// (src/qperf_wire/): a qperf client against a fabperf server, a fabperf client against a
// qperf server, qperf's errors, and the server's rules for qperf clients. Runs are short.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "e2e_qperf_util.h"
#include "e2e_robust_util.h"
#include "e2e_util.h"
#include "net/socket.h"
#include "qperf_wire/control.h"
#include "session_child_util.h"

namespace fabperf::testing {
namespace {

#define REQUIRE_QPERF()                                         \
  if (qperf_program().empty())                                  \
  GTEST_SKIP() << "qperf is not installed (make deps installs " \
                  "Debian's qperf 0.4.11)"

RunOutput qperf(const std::vector<std::string>& args, int port, double timeout_s = 60) {
  std::vector<std::string> all = {"-lp", std::to_string(port)};
  all.insert(all.end(), args.begin(), args.end());
  return run(all, timeout_s, qperf_program());
}

// Whether a stock client printed the server's `text`. A stock client reads the text in its
// SIGURG handler at once, without waiting, and the kernel sends the urgent byte in a segment of
// its own (urgent mode overrides the cork): a client that runs its handler before the text's
// segment arrives (tcpdump here: the text 30 us after the byte) prints an empty "server: ".
// qperf's own server loses it about one time in five; against fabperf's, 15% to 60% of tries
// on the 2-vCPU VMs CI runs on, and 17 of 20 on another (`-rca 999`, plain build, cbd8f84).
// A sanitizer build's server is slow enough that a loaded CI lost it every time; there an
// empty "server: " from a client that exited 1 counts, and the plain build checks every text.
// Where the server may take a real-time priority for its two sends (root here), the woken
// client cannot run between them on the server's CPU, and a plain build must be heard every
// time: 1 of 30 stock clients pinned with the server to one CPU read the text before, 30 of 30
// after (e2e_qperf_wire, N9).
bool every_text_heard() {
#if defined(__SANITIZE_ADDRESS__)
  return false;
#else
  return geteuid() == 0;
#endif
}

bool heard(const RunOutput& r, const std::string& text) {
  if (contains(r.err + r.out, text)) return true;
#if defined(__SANITIZE_ADDRESS__)
  return r.exit_code == 1 && contains(r.err + r.out, "server: \n");
#else
  return false;
#endif
}

// A stock client's view of a server's error: qperf's error channel loses the text now and then
// (see heard()), so a run is repeated until the text shows, 100 times at most: at the 85% loss
// seen on one VM, 20 tries all missed in one run of 26 (a red CI); 100 in fewer than one run
// of ten million. Each try must fail, and say "server:".
RunOutput qperf_error(const std::vector<std::string>& args, int port, const std::string& text) {
  RunOutput r;
  for (int attempt = 0; attempt < (every_text_heard() ? 1 : 100); ++attempt) {
    r = qperf(args, port, 30);
    if (r.exit_code != 1 || !contains(r.err + r.out, "server:")) return r;
    if (heard(r, text)) return r;  // fewer runs, fewer server log lines to be rate-limited
  }
  return r;
}

// Every value of `name` in qperf's -vu output, in order.
std::vector<std::string> values_of(const std::string& out, const std::string& name) {
  std::vector<std::string> values;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string key, eq, value;
    if (words >> key >> eq >> value && key == name && eq == "=") values.push_back(value);
  }
  return values;
}

// The kernel protocols qperf tests beyond TCP and UDP, with what a stock server says without.
struct Optional {
  const char* bw;
  const char* lat;
  bool present;
  const char* error;
};
std::vector<Optional> optional_protocols() {
  return {
      {"sctp_bw", "sctp_lat", kernel_has(AF_INET, SOCK_STREAM, IPPROTO_SCTP),
       "server: unable to make SCTP socket"},
      {"sdp_bw", "sdp_lat", kernel_has(27, SOCK_STREAM, 0), "server: unable to make SDP socket"},
      {"rds_bw", "rds_lat", kernel_has(21, SOCK_SEQPACKET, 0), "server: socket failed"}};
}

TEST(QperfWireServe, StockClientRunsEverySocketTestConfAndQuit) {
  REQUIRE_QPERF();
  LoggedServer server;
  RunOutput r = qperf({"-t", "1", "127.0.0.1", "tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf"},
                      server.port());
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err << server.log();
  EXPECT_GT(qperf_figure(r.out, "tcp_bw", "bw"), 1e6) << r.out;
  EXPECT_GT(qperf_figure(r.out, "tcp_lat", "latency"), 0) << r.out;
  EXPECT_GT(qperf_figure(r.out, "udp_bw", "recv_bw"), 1e5) << r.out;
  EXPECT_GT(qperf_figure(r.out, "udp_lat", "latency"), 0) << r.out;
  EXPECT_TRUE(contains(r.out, "rem_qperf  =  fabperf " FABPERF_VERSION)) << r.out;
  RunOutput quit = qperf({"127.0.0.1", "quit"}, server.port());
  EXPECT_EQ(quit.exit_code, 0) << quit.err;
  EXPECT_EQ(server.proc().wait(15), 0) << server.log();
  EXPECT_TRUE(contains(server.log(), "quit (a qperf client)")) << server.log();
}

// SCTP, SDP and RDS run where the kernel has them; elsewhere a stock client hears why not.
// A server of its own: the retries of a lost error text log a line each, and the server's log
// limit (20 lines a second) would hide the other test's "quit" line.
TEST(QperfWireServe, StockClientRunsOrHearsWhyNotEveryOptionalProtocol) {
  REQUIRE_QPERF();
  LoggedServer server;
  for (const Optional& p : optional_protocols()) {
    for (const char* test : {p.bw, p.lat}) {
      if (p.present) {
        RunOutput o = qperf({"-t", "1", "127.0.0.1", test}, server.port());
        EXPECT_EQ(o.exit_code, 0) << test << ": " << o.err;
      } else {
        RunOutput o = qperf_error({"-t", "1", "127.0.0.1", test}, server.port(), p.error);
        EXPECT_EQ(o.exit_code, 1) << test;
        EXPECT_TRUE(heard(o, p.error)) << test << ": " << o.err << o.out;
      }
    }
  }
}

TEST(QperfWireServe, LoopsAndTheRequestsParametersAreHonoured) {
  REQUIRE_QPERF();
  LoggedServer server;
  RunOutput loop =
      qperf({"-t", "1", "-oo", "msg_size:1:4:*2", "-vu", "127.0.0.1", "tcp_lat"}, server.port());
  ASSERT_EQ(loop.exit_code, 0) << loop.err << server.log();
  EXPECT_EQ(values_of(loop.out, "msg_size"), (std::vector<std::string>{"1", "2", "4"})) << loop.out;
  // -n: a stock server ignores it (and a stock client without -t runs forever); ours stops
  // after that many and ends the client's side too.
  RunOutput counted =
      qperf({"-n", "300", "-vv", "127.0.0.1", "udp_lat", "tcp_bw"}, server.port(), 30);
  ASSERT_FALSE(counted.timed_out);
  EXPECT_EQ(counted.exit_code, 0) << counted.err;
  EXPECT_EQ(qperf_figure(counted.out, "udp_lat", "rem_recv_msgs"), 300) << counted.out;
  EXPECT_EQ(qperf_figure(counted.out, "tcp_bw", "recv_msgs"), 300) << counted.out;
  // -ip: the server binds its data socket to that port (here one already taken).
  auto taken = listen_tcp("127.0.0.1", 0, 1);
  ASSERT_TRUE(taken.ok());
  std::string port = std::to_string(local_address(taken->get()).port());
  RunOutput ip = qperf_error({"-t", "1", "-ip", port, "127.0.0.1", "tcp_bw"}, server.port(),
                             "server: unable to make TCP socket: bind");
  EXPECT_EQ(ip.exit_code, 1);
  EXPECT_TRUE(heard(ip, "server: unable to make TCP socket: bind")) << ip.err;
  // -rca: the server pins itself, with qperf's words when it cannot.
  RunOutput cpu = qperf_error({"-t", "1", "-rca", "999", "127.0.0.1", "tcp_lat"}, server.port(),
                              "server: cannot set processor affinity (cpu 998)");
  EXPECT_EQ(cpu.exit_code, 1);
  EXPECT_TRUE(heard(cpu, "server: cannot set processor affinity (cpu 998)")) << cpu.err;
  RunOutput ok =
      qperf({"-t", "1", "-sb", "64K", "-ar1", "-rca", "0", "-m", "8K", "127.0.0.1", "tcp_bw"},
            server.port());
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(QperfWireServe, BadRequestsGetQperfsErrors) {
  LoggedServer server({"-to", "1", "--max_msg_size", "1M"});
  qperf_wire::Request req;
  req.req_index = 99;
  EXPECT_EQ(qperf_request_error(server.port(), req, 5), "server: bad request index: 99");
  req.req_index = 13;  // rc_bw: RDMA
  EXPECT_TRUE(contains(qperf_request_error(server.port(), req, 5),
                       "server: bad request index: 13 (rc_bw: fabperf serves qperf clients"));
  req.req_index = 9;
  req.ver_min = 3;
  req.ver_inc = 0;
  EXPECT_EQ(qperf_request_error(server.port(), req, 5),
            "server: upgrade qperf on client from 0.3.0 to 0.4.11");
  req = qperf_wire::Request();
  req.req_index = 8;
  req.msg_size = 2 << 20;
  req.time = 1;
  req.timeout = 5;
  EXPECT_TRUE(contains(qperf_request_error(server.port(), req, 5),
                       "server: refused: message size 2M exceeds this server's limit of 1M"));
  req.msg_size = 0;
  EXPECT_TRUE(contains(qperf_request_error(server.port(), req, 5), "message size 0"));
  // A request cut short: the server's -to (1 s) ends the wait, with qperf's words.
  EXPECT_EQ(qperf_request_error(server.port(), req, 10, 50),
            "server: failed to receive request data: timed out");
  EXPECT_GE(server.wait_log_lines(6, 5), 6) << server.log();
  EXPECT_TRUE(contains(server.log(), "qperf tcp_bw: refused: message size 2M")) << server.log();
  RunOutput still = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
}

TEST(QperfWireServe, TheServersRulesApplyToQperfClients) {
  REQUIRE_QPERF();
  LoggedServer refusing({"--no_qperf"});
  RunOutput r = qperf_error({"-t", "1", "127.0.0.1", "tcp_lat"}, refusing.port(),
                            "server: this fabperf server does not serve qperf clients");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(heard(r, "server: this fabperf server does not serve qperf clients"))
      << r.err << r.out;
  LoggedServer allowing({"--allow", "10.0.0.0/8"});
  r = qperf_error({"-t", "1", "127.0.0.1", "tcp_lat"}, allowing.port(), "access denied: 127.0.0.1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(heard(r, "access denied: 127.0.0.1")) << r.err << r.out;
  TempDir dir;
  write_file(dir.file("key"), "0123456789abcdef0123456789abcdef\n");
  LoggedServer keyed({"--auth_key_file", dir.file("key")});
  r = qperf_error({"-t", "1", "127.0.0.1", "conf"}, keyed.port(), "needs a pre-shared key");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(heard(r, "needs a pre-shared key")) << r.err << r.out;
}

TEST(QperfWireServe, LimitsBusyAndTheDeadlineApplyToQperfClients) {
  REQUIRE_QPERF();
  LoggedServer server({"--max_clients", "1", "--max_time", "2", "-to", "1"});
  // --max_clients: a fabperf client that said hello and thinks holds the only place; a qperf
  // client hears "busy" in its own terms, and the server logs it as a qperf client.
  {
    auto holder = fake_session(server.port());
    ASSERT_TRUE(holder);
    RunOutput busy =
        qperf_error({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port(), "server: server busy");
    EXPECT_EQ(busy.exit_code, 1);
    EXPECT_TRUE(heard(busy, "server: server busy")) << busy.err << busy.out;
  }
  // The server logs after it has answered: the client may have heard first.
  EXPECT_TRUE(wait_until(
      [&] { return contains(server.log(), "refused (a qperf client): server busy"); }, 30))
      << server.log();
  // The holder has hung up; its place is free once the server has closed its side.
  ASSERT_TRUE(wait_until([&] { return connected_peers(server.pid()).empty(); }, 30))
      << server.log();
  // --max_time: a longer run is refused before it starts, with the option's name.
  RunOutput longer = qperf_error({"-t", "3", "127.0.0.1", "tcp_lat"}, server.port(),
                                 "exceeds this server's limit of 2 s");
  EXPECT_EQ(longer.exit_code, 1);
  EXPECT_TRUE(wait_until(
      [&] { return contains(server.log(), "qperf tcp_lat: refused: -t 3 s exceeds"); }, 30))
      << server.log();
  // A run without a timer (a stock client ignores -n for tcp_lat and would go on for ever) is
  // ended by the server's deadline, and the client is told why.
  RunOutput endless = qperf_error({"-n", "100000000", "127.0.0.1", "tcp_lat"}, server.port(),
                                  "run time limit reached");
  ASSERT_FALSE(endless.timed_out);
  EXPECT_EQ(endless.exit_code, 1);
  EXPECT_TRUE(wait_until([&] { return contains(server.log(), "run time limit reached"); }, 30))
      << server.log();
  // The place is free again, for either protocol.
  RunOutput ok = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port());
  EXPECT_EQ(ok.exit_code, 0) << ok.err << server.log();
  RunOutput still = run({"127.0.0.1", "-lp", server.port_arg(), "-n", "20", "tcp_lat"});
  EXPECT_EQ(still.exit_code, 0) << still.err;
}

// Review N9: once a flood of silent connections had spent the server's 200 ms a second of
// waiting for refused clients to speak, a refused stock client read fabperf's ERROR frame as
// its data port ("could not make TCP connection to server"). Refused connections now wait for
// their first byte beside the listener, so every stock client hears qperf's error frame.
TEST(QperfWireServe, RefusedQperfClientsHearQperfsErrorFrameThroughAFlood) {
  REQUIRE_QPERF();
  LoggedServer server({"--max_clients", "1", "-to", "30"});
  auto holder = fake_session(server.port());
  ASSERT_TRUE(holder);
  std::vector<int> flood;
  bool texts = false;
  for (int i = 0; i < 10; ++i) {
    // Ten silent connections just before each client: the old budget was spent on them.
    for (int k = 0; k < 10; ++k) flood.push_back(connect_raw(server.port()));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    RunOutput r = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port(), 60);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, "server:")) << "try " << i << ": " << r.out << r.err;
    EXPECT_FALSE(contains(r.out + r.err, "could not make TCP connection")) << r.out << r.err;
    const bool this_one = heard(r, "server busy: 1 client is being served");
    if (every_text_heard()) {
      EXPECT_TRUE(this_one) << "try " << i << ": " << r.out << r.err;
    }
    texts = texts || this_one;
  }
  EXPECT_TRUE(texts) << "no stock client read the reason in 10 tries";
  for (int fd : flood) {
    if (fd >= 0) close(fd);
  }
}

// Review N9's last case: a stock client woken onto the server's own CPU by the urgent byte ran
// its handler before the text was sent and printed an empty "server: " (29 of 30 pinned
// together). The server's two sends now run at a real-time priority where it may take one.
TEST(QperfWireServe, AStockClientOnTheServersCpuHearsWhyItWasRefused) {
  REQUIRE_QPERF();
  if (!every_text_heard()) GTEST_SKIP() << "the server may not take a real-time priority here";
  cpu_set_t all, one;
  ASSERT_EQ(sched_getaffinity(0, sizeof all, &all), 0);
  CPU_ZERO(&one);
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &all)) {
      CPU_SET(c, &one);
      break;
    }
  }
  // Server and clients inherit this thread's one CPU.
  ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
  {
    LoggedServer server({"--max_clients", "1", "-to", "30"});
    auto holder = fake_session(server.port());
    ASSERT_TRUE(holder);
    for (int i = 0; i < 10; ++i) {
      RunOutput r = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port(), 60);
      EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
      EXPECT_TRUE(heard(r, "server busy: 1 client is being served"))
          << "try " << i << ": " << r.out << r.err;
    }
  }
  sched_setaffinity(0, sizeof all, &all);
}

// Review N1, the slow request: one byte every 0.5 s was cut only at 2 x -to (11 s at -to 5),
// each of qperf's two reads (6 bytes, then 194) getting a -to of its own. The whole request
// now has one deadline, the server's -to: the client hears why at about 4 s here, before the
// old 6.5 s.
TEST(QperfWireServe, ARequestSentByteByByteIsCutAtTheServersTimeout) {
  constexpr double kTimeoutS = 4;
  LoggedServer server({"-to", "4"});
  qperf_wire::Request req;
  req.req_index = 8;  // tcp_bw
  req.msg_size = 1024;
  req.time = 1;
  req.timeout = 5;
  const auto bytes = qperf_wire::encode_request(req);
  Fd conn(connect_raw(server.port()));
  ASSERT_GE(conn.get(), 0);
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  size_t sent = 0;
  bool cut = false;
  // Bounded: 200 bytes at most, 30 s at most; it ends when the server speaks or closes.
  while (!cut && sent < bytes.size() && elapsed() < 30) {
    if (::send(conn.get(), &bytes[sent], 1, MSG_NOSIGNAL) != 1) {
      cut = true;
      break;
    }
    ++sent;
    pollfd pfd{conn.get(), POLLIN | POLLPRI, 0};
    cut = ::poll(&pfd, 1, 500) > 0;
  }
  const double cut_s = elapsed();
  ASSERT_TRUE(cut) << "the whole request went through one byte at a time: " << sent << " bytes";
  EXPECT_LT(sent, bytes.size());
  // About -to: not before it, and before the old cut. The old code gave the 194-byte read a
  // -to of its own after the 6-byte one, which a byte every 0.5 s completes at 2.5 s: it cut at
  // -to + 2.5 s (6.5 s here; a mutant doing so fails here).
  EXPECT_GE(cut_s, kTimeoutS - 0.5) << sent << " bytes";
  EXPECT_LE(cut_s, kTimeoutS + 1.5) << sent << " bytes; " << server.log();
  EXPECT_EQ(qperf_wire::read_error_text(conn.get(), 3, true),
            "failed to receive request data: timed out");
  EXPECT_TRUE(wait_until(
      [&] { return contains(server.log(), "failed to receive request data: timed out"); }, 10))
      << server.log();
}

TEST(QperfWireServe, AQperfClientThatFallsSilentIsEndedByTheIdleLimit) {
  REQUIRE_QPERF();
  // A run without a timer has no end of its own: when its client stops (here: stopped by a
  // signal mid-run), the server's -to ends it long before --max_time, and says why.
  LoggedServer server({"-to", "1", "--max_time", "600"});
  int lines = server.log_lines();
  Proc client({"-lp", server.port_arg(), "-n", "100000000", "127.0.0.1", "tcp_lat"},
              qperf_program());
  // Running once the server holds the control and the data connection.
  for (int i = 0; i < 300 && connected_peers(server.pid()).size() < 2; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  ASSERT_GE(connected_peers(server.pid()).size(), 2u) << server.log() << client.err();
  client.signal(SIGSTOP);
  EXPECT_GE(server.wait_log_lines(lines + 1, 60), lines + 1) << server.log();
  client.signal(SIGCONT);
  EXPECT_TRUE(contains(server.log(), "qperf tcp_lat: nothing from the client within the timeout"))
      << server.log();
  EXPECT_FALSE(contains(server.log(), "run time limit reached")) << server.log();
  EXPECT_NE(client.wait(30), 0) << client.out() << client.err();
  RunOutput ok = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port());
  EXPECT_EQ(ok.exit_code, 0) << ok.err << server.log();
}

// Review N1: a stock client with a timer (-t 30) that is stopped mid-run held the server's
// measurement queue for its whole time. The server's -to ends it, and a client queued behind
// it (a stock one, whose own -to is 5 s, and a fabperf one) then runs.
TEST(QperfWireServe, AStoppedTimedQperfClientFreesTheQueueAtTheServersTimeout) {
  REQUIRE_QPERF();
  for (const char* test : {"tcp_bw", "udp_bw"}) {
    SCOPED_TRACE(test);
    LoggedServer server({"-to", "1", "--queue_timeout", "20"});
    Proc stopped({"-lp", server.port_arg(), "-t", "30", "127.0.0.1", test}, qperf_program());
    // Running once the server holds its control connection and, for TCP, its data connection;
    // a UDP run is given a moment past its control connection (if it is stopped earlier, in
    // its set-up, the server's -to ends it all the same, in other words).
    const bool tcp = std::string(test) == "tcp_bw";
    ASSERT_TRUE(
        wait_until([&] { return connected_peers(server.pid()).size() >= (tcp ? 2u : 1u); }, 60))
        << server.log() << stopped.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(tcp ? 300 : 1000));
    stopped.signal(SIGSTOP);
    RunOutput queued_qperf = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, server.port(), 60);
    RunOutput queued = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "tcp_lat"});
    stopped.signal(SIGCONT);
    EXPECT_EQ(queued_qperf.exit_code, 0) << queued_qperf.err << queued_qperf.out << server.log();
    EXPECT_EQ(queued.exit_code, 0) << queued.err << server.log();
    const std::string ended = std::string("qperf ") + test + ": " +
                              (tcp ? "nothing from the client within the timeout" : "");
    EXPECT_TRUE(contains(server.log(), ended)) << server.log();
    EXPECT_NE(stopped.wait(60), 0) << stopped.out() << stopped.err();
  }
}

TEST(QperfWireServe, AFabToolServerRefusesQperfClients) {
  REQUIRE_QPERF();
  // A fab_* server serves its own tool's clients only; a qperf client is told so, in its own
  // terms, and the server ends as it does after its one session. The server's log is checked
  // (the stock client's text can be lost to qperf's error-channel race, and this server takes
  // one session only, so it cannot be asked twice).
  int port = free_port();
  Proc server({"-p", std::to_string(port)}, beside_fabperf("fab_read_lat"));
  for (int i = 0; i < 1000 && !contains(server.out() + server.err(), "for client to connect");
       ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  RunOutput r = qperf({"-t", "1", "127.0.0.1", "tcp_lat"}, port, 30);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_EQ(server.wait(30), 1);
  EXPECT_TRUE(contains(server.out() + server.err(),
                       "qperf tcp_lat: this is a fab_read_lat server: it serves fab_read_lat "
                       "clients only"))
      << server.out() << server.err();
}

TEST(QperfWireClient, MeasuresAgainstAStockServerAndRecordsIt) {
  REQUIRE_QPERF();
  QperfServer server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "-t", "0.3", "--json",
                     "-", "tcp_bw", "tcp_lat", "udp_bw", "udp_lat", "conf"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out, nullptr, false);
  ASSERT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["server"]["tool"], "qperf");
  EXPECT_EQ(doc["server"]["version"], "0.4.11");
  ASSERT_EQ(doc["results"].size(), 5u);
  for (const auto& result : doc["results"]) {
    EXPECT_EQ(result["status"], "ok") << result.dump();
    if (result["test"] == "conf") {
      EXPECT_EQ(result["conf"]["rem"]["version"], "0.4.11");
      continue;
    }
    EXPECT_EQ(result["info"]["rem"]["tool"], "qperf 0.4.11") << result.dump();
    EXPECT_GT(result["counters"]["rem"]["real_time_ns"].get<double>(), 0) << result.dump();
  }
  EXPECT_GT(doc["results"][0]["bandwidth"]["recv_Bps"].get<double>(), 1e6);
  EXPECT_GT(doc["results"][1]["latency_ns"]["samples"].get<double>(), 10);
  EXPECT_GT(doc["results"][2]["bandwidth"]["recv_Bps"].get<double>(), 1e5);
  EXPECT_GT(doc["results"][3]["latency_ns"]["mean"].get<double>(), 0);
}

// qperf's bandwidth server only receives, and has no two-way socket test: refused by name,
// never measured the other way round and labelled reversed.
TEST(QperfWireClient, ReverseAndTwoWayNeedAFabperfServer) {
  REQUIRE_QPERF();
  QperfServer server;
  RunOutput r =
      run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "-t", "0.3", "-R", "tcp_bw"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.err, "tcp_bw: -R/--reverse needs a fabperf server")) << r.err;
  RunOutput bi =
      run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "-t", "0.3", "tcp_bi_bw"});
  EXPECT_EQ(bi.exit_code, 1);
  EXPECT_TRUE(contains(bi.err, "tcp_bi_bw: against a qperf server")) << bi.err;
  RunOutput after = run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "conf"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

TEST(QperfWireClient, KernelProtocolsRunOrFailWithTheServersWords) {
  REQUIRE_QPERF();
  QperfServer server;
  // RDS goes through qperf's helper exchange of addresses before the server's socket fails;
  // a client that left it half done would wedge the stock server for every later client.
  for (const Optional& p : optional_protocols()) {
    RunOutput r =
        run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "-t", "0.3", p.bw, p.lat});
    if (p.present) {
      EXPECT_EQ(r.exit_code, 0) << r.err;
    } else {
      EXPECT_EQ(r.exit_code, 1);
      EXPECT_TRUE(contains(r.err, std::string(p.bw) + ": " + p.error)) << r.err;
      EXPECT_TRUE(contains(r.err, std::string(p.lat) + ": " + p.error)) << r.err;
    }
  }
  RunOutput after = run({"127.0.0.1", "-lp", server.port_arg(), "--qperf_server", "conf"});
  EXPECT_EQ(after.exit_code, 0) << after.err;
}

TEST(QperfWireClient, NoticesAStockServerBySelf) {
  REQUIRE_QPERF();
  QperfServer server;
  RunOutput r = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "-v", "tcp_lat"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "the server is qperf 0.4.11: measuring with qperf's protocol"))
      << r.err;
  EXPECT_TRUE(contains(r.out, "rem_tool")) << r.out;
  EXPECT_TRUE(contains(r.out, "qperf 0.4.11")) << r.out;
  EXPECT_TRUE(contains(r.out, "latency_p99")) << r.out;  // fabperf's own record of the run
  if (!kernel_has(AF_INET, SOCK_STREAM, IPPROTO_SCTP)) {
    RunOutput sctp = run({"127.0.0.1", "-lp", server.port_arg(), "-t", "0.3", "sctp_lat"});
    EXPECT_EQ(sctp.exit_code, 1);
    EXPECT_TRUE(contains(sctp.err, "sctp_lat: server: unable to make SCTP socket")) << sctp.err;
  }
  RunOutput quit = run({"127.0.0.1", "-lp", server.port_arg(), "quit"});
  EXPECT_EQ(quit.exit_code, 0) << quit.err;
  EXPECT_EQ(server.proc().wait(15), 0);
}

}  // namespace
}  // namespace fabperf::testing
