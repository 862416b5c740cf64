// The bandwidth floor: one stream over loopback with nothing but the system calls, in qperf's
// shape: the sender sends whole messages with blocking calls until a SIGALRM flag says the
// time is up (no clock read per message), the receiver takes each message with blocking calls
// (TCP: the rest of the current message a call; UDP: one datagram a call). It shows whether a
// bandwidth row's gap to a peer is fabperf's own code (fabperf below this floor) or something
// the peer's system calls alone do not explain (fabperf at the floor, the peer above it).
// Usage: floor_stream tcp|udp SIZE SECONDS [CPU_CLIENT CPU_SERVER [SHAPE [CALLS]]]
// SHAPE and CALLS (bench/floor_shape.h) default to single and send. A socket's send and recv
// skip the file layer's write and read checks and notifications, and ran faster with nothing
// else changed (bench/README.md, calls-cubic-*), so the floor of fabperf's code is send's in a
// process of one thread; with more threads compare in syscall's calls, as fabperf makes them.
// The timeout shape: a UDP receiver's 2 s SO_RCVTIMEO, as this floor had until that was found
// to make the stream faster at small datagrams, which fabperf's receiver, with no kernel
// timer, is not (b2b66f7:bench/results/timeout-af2f692/).
// Prints one JSON line: recv_Bps (bytes received over the time from the sender's first write to
// the last byte received, as fabperf's receive interval), sent_Bps, recv_bytes, sent_bytes.
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "floor_pin.h"
#include "floor_shape.h"

namespace {

int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

volatile sig_atomic_t g_done = 0;
void on_alarm(int) { g_done = 1; }

// What the receiver sends back through the pipe.
struct Received {
  uint64_t bytes = 0;
  int64_t last_ns = 0;
};

int fail(const char* what) {
  fprintf(stderr, "floor_stream: %s: %s\n", what, strerror(errno));
  return 1;
}

// The receiver (the forked child): counts what arrives until EOF (TCP) or a zero-length
// datagram (UDP). If every end marker was lost, the sender's SIGUSR1 ends its wait: the
// receiver blocks with no kernel timeout, as fabperf's does, unless the shape is `timeout`.
Received receive(int lfd, bool tcp, size_t size, Calls calls, Shape shape) {
  Received r;
  std::vector<char> buf(size);
  int fd = tcp ? accept(lfd, nullptr, nullptr) : lfd;
  if (fd < 0) return r;
  struct sigaction act {};
  act.sa_handler = [](int) {};  // no SA_RESTART: the blocked call returns EINTR
  sigaction(SIGUSR1, &act, nullptr);
  take_timeout(shape, fd);
  size_t at = 0;
  for (;;) {
    ssize_t n = recv_from(calls, fd, buf.data() + at, size - at, 0);
    if (n <= 0) break;  // EOF, the end marker, an error or the sender's SIGUSR1
    r.bytes += static_cast<uint64_t>(n);
    r.last_ns = now_ns();
    if (tcp) at = (at + static_cast<size_t>(n)) % size;
  }
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: %s tcp|udp SIZE SECONDS [CPU_CLIENT CPU_SERVER [SHAPE [CALLS]]]\n",
            argv[0]);
    return 2;
  }
  const bool tcp = std::string(argv[1]) == "tcp";
  const size_t size = std::strtoul(argv[2], nullptr, 10);
  const double seconds = std::atof(argv[3]);
  const int cpu_client = argc > 5 ? std::atoi(argv[4]) : -1;
  const int cpu_server = argc > 5 ? std::atoi(argv[5]) : -1;
  const std::string shape_name = argc > 6 ? argv[6] : "single";
  const std::string calls_name = argc > 7 ? argv[7] : "send";
  if (size == 0 || seconds <= 0) {
    fprintf(stderr, "floor_stream: SIZE and SECONDS must be positive\n");
    return 2;
  }
  Shape shape = Shape::kSingle;
  if (!parse_shape("floor_stream", shape_name, &shape)) return 2;
  Calls calls = Calls::kSend;
  if (!parse_calls("floor_stream", calls_name, &calls)) return 2;
  const int type = tcp ? SOCK_STREAM : SOCK_DGRAM;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int lfd = socket(AF_INET, type, 0);
  if (lfd < 0) return fail("socket");
  if (bind(lfd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) return fail("bind");
  socklen_t alen = sizeof addr;
  getsockname(lfd, reinterpret_cast<sockaddr*>(&addr), &alen);
  if (tcp && listen(lfd, 1) < 0) return fail("listen");
  int results[2];
  if (pipe(results) < 0) return fail("pipe");
  pid_t child = fork();
  if (child < 0) return fail("fork");
  if (child == 0) {
    pin(cpu_server);
    take_shape(shape);
    Received r = receive(lfd, tcp, size, calls, shape);
    ssize_t w = write(results[1], &r, sizeof r);
    _exit(w == static_cast<ssize_t>(sizeof r) ? 0 : 1);
  }
  pin(cpu_client);
  take_shape(shape);
  signal(SIGPIPE, SIG_IGN);
  int fd = socket(AF_INET, type, 0);
  if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) < 0) {
    kill(child, SIGKILL);
    return fail("connect");
  }
  std::vector<char> buf(size, 'a');
  struct sigaction act {};
  act.sa_handler = on_alarm;
  sigaction(SIGALRM, &act, nullptr);
  itimerval timer{};
  timer.it_value.tv_sec = static_cast<time_t>(seconds);
  timer.it_value.tv_usec =
      static_cast<suseconds_t>((seconds - static_cast<double>(timer.it_value.tv_sec)) * 1e6);
  timer.it_interval.tv_usec = 10000;  // again every 10 ms, as qperf: a write the first one missed
  uint64_t sent = 0;
  const int64_t start = now_ns();
  setitimer(ITIMER_REAL, &timer, nullptr);
  while (!g_done) {
    size_t left = size;
    const char* p = buf.data();
    while (left > 0 && !g_done) {
      ssize_t n = send_to(calls, fd, p, left, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        kill(child, SIGKILL);
        return fail("write");
      }
      sent += static_cast<uint64_t>(n);
      left -= static_cast<size_t>(n);
      p += n;
    }
  }
  const int64_t send_end = now_ns();
  timer = itimerval{};
  setitimer(ITIMER_REAL, &timer, nullptr);
  if (tcp) {
    shutdown(fd, SHUT_WR);
  } else {
    for (int i = 0; i < 3; ++i) send(fd, "", 0, 0);  // end markers; one may be dropped
  }
  Received r;
  // Every end marker lost: end the receiver's wait (again, should the signal land between
  // two calls), and give up on it after 5 s more.
  pollfd done{results[0], POLLIN, 0};
  for (int tries = 0; poll(&done, 1, tries == 0 ? 2000 : 100) == 0; ++tries) {
    if (tries == 50) {
      kill(child, SIGKILL);
      break;
    }
    kill(child, SIGUSR1);
  }
  ssize_t got = read(results[0], &r, sizeof r);
  int status = 0;
  waitpid(child, &status, 0);
  if (got != static_cast<ssize_t>(sizeof r) || r.bytes == 0) {
    fprintf(stderr, "floor_stream: the receiver reported nothing\n");
    return 1;
  }
  const double recv_s = static_cast<double>(r.last_ns - start) / 1e9;
  const double send_s = static_cast<double>(send_end - start) / 1e9;
  printf("{\"recv_Bps\": %.1f, \"sent_Bps\": %.1f, \"recv_bytes\": %llu, \"sent_bytes\": %llu}\n",
         static_cast<double>(r.bytes) / recv_s, static_cast<double>(sent) / send_s,
         static_cast<unsigned long long>(r.bytes), static_cast<unsigned long long>(sent));
  return 0;
}
