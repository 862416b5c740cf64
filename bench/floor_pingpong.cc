// The floor: a ping-pong over loopback with nothing but the system calls (one send and one
// recv per side per round trip; busy-poll mode spins on MSG_DONTWAIT), to show what fabperf
// itself adds. Usage:
//   floor_pingpong tcp|udp block|poll SIZE SECONDS [CPU_CLIENT CPU_SERVER [SHAPE [CALLS]]]
// SHAPE and CALLS (bench/floor_shape.h) default to single and send: qperf's processes, one
// thread each. `write` (read and write) takes a blocking TCP ping-pong only: those calls have
// neither MSG_DONTWAIT nor the UDP server's reply address.
// Prints one JSON line: half round trip in ns (mean, p50), samples.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "floor_pin.h"
#include "floor_shape.h"

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

bool g_poll = false;
Calls g_calls = Calls::kSend;

// Exactly len bytes (TCP) or one datagram (UDP); spins on EAGAIN in poll mode.
bool recv_all(int fd, char* buf, size_t len, bool stream) {
  size_t got = 0;
  while (got < len) {
    ssize_t n = recv_from(g_calls, fd, buf + got, len - got, g_poll ? MSG_DONTWAIT : 0);
    if (n > 0) {
      if (!stream) return true;
      got += static_cast<size_t>(n);
    } else if (n == 0) {
      return false;
    } else if (errno != EAGAIN && errno != EINTR) {
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 5) {
    fprintf(stderr,
            "usage: %s tcp|udp block|poll SIZE SECONDS [CPU_CLIENT CPU_SERVER [SHAPE [CALLS]]]\n",
            argv[0]);
    return 2;
  }
  bool tcp = std::string(argv[1]) == "tcp";
  g_poll = std::string(argv[2]) == "poll";
  size_t size = std::strtoul(argv[3], nullptr, 10);
  double seconds = std::atof(argv[4]);
  int cpu_client = argc > 6 ? std::atoi(argv[5]) : -1,
      cpu_server = argc > 6 ? std::atoi(argv[6]) : -1;
  const std::string shape_name = argc > 7 ? argv[7] : "single";
  const std::string calls_name = argc > 8 ? argv[8] : "send";
  Shape shape = Shape::kSingle;
  if (!parse_shape("floor_pingpong", shape_name, &shape)) return 2;
  if (!parse_calls("floor_pingpong", calls_name, &g_calls)) return 2;
  if (g_calls == Calls::kWrite && (!tcp || g_poll)) {
    fprintf(stderr, "floor_pingpong: write and read take a blocking TCP ping-pong only\n");
    return 2;
  }
  int type = tcp ? SOCK_STREAM : SOCK_DGRAM;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int lfd = socket(AF_INET, type, 0);
  bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
  socklen_t alen = sizeof addr;
  getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &alen);
  if (tcp) listen(lfd, 1);
  int one = 1;
  std::vector<char> buf(std::max<size_t>(size, 1));
  pid_t child = fork();
  if (child == 0) {  // server: echo
    pin(cpu_server);
    take_shape(shape);
    int fd = lfd;
    if (tcp) {
      fd = accept(lfd, nullptr, nullptr);
      setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    take_timeout(shape, fd);
    for (;;) {
      if (tcp) {
        if (!recv_all(fd, buf.data(), size, true)) _exit(0);
        if (send_to(g_calls, fd, buf.data(), size, 0) < 0) _exit(0);
      } else {
        sockaddr_in peer{};
        socklen_t plen = sizeof peer;
        ssize_t n;
        do
          n = recv_from(g_calls, fd, buf.data(), size, g_poll ? MSG_DONTWAIT : 0,
                        reinterpret_cast<sockaddr*>(&peer), &plen);
        while (n < 0 && (errno == EAGAIN || errno == EINTR));
        if (n <= 0) _exit(0);  // a zero-length datagram ends the test
        send_to(g_calls, fd, buf.data(), static_cast<size_t>(n), 0,
                reinterpret_cast<sockaddr*>(&peer), plen);
      }
    }
  }
  pin(cpu_client);
  take_shape(shape);
  int fd = socket(AF_INET, type, 0);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) return 1;
  if (tcp) setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  take_timeout(shape, fd);
  std::vector<int64_t> samples;
  samples.reserve(4 << 20);
  int64_t end = now_ns() + static_cast<int64_t>(seconds * 1e9);
  for (int i = 0; i < 1000; ++i) {  // warm-up, as fabperf's --warmup
    send_to(g_calls, fd, buf.data(), size, 0);
    recv_all(fd, buf.data(), size, tcp);
  }
  for (;;) {
    int64_t t0 = now_ns();
    if (t0 >= end || samples.size() == samples.capacity()) break;
    if (send_to(g_calls, fd, buf.data(), size, 0) < 0) return 1;
    if (!recv_all(fd, buf.data(), size, tcp)) return 1;
    samples.push_back(now_ns() - t0);
  }
  if (tcp)
    shutdown(fd, SHUT_WR);
  else
    send(fd, "", 0, 0);
  waitpid(child, nullptr, 0);
  double sum = 0;
  for (int64_t s : samples) sum += static_cast<double>(s);
  std::nth_element(samples.begin(), samples.begin() + samples.size() / 2, samples.end());
  printf("{\"mean_ns\": %.1f, \"p50_ns\": %.1f, \"samples\": %zu}\n",
         sum / static_cast<double>(samples.size()) / 2,
         static_cast<double>(samples[samples.size() / 2]) / 2, samples.size());
  return 0;
}
