// The floor for two TCP streams from one process: a bare sender and receiver, nothing measured
// but bytes over time, to set fabperf's and iperf3's two-stream rows against.
//
//   twostream recv PORT SHAPE SIZE        (start first; prints nothing useful)
//   twostream send PORT SHAPE SIZE SECS   (prints the bytes written per second, GB/s)
//
// SHAPE, how one process drives its two sockets:
//   threads  one thread per socket, blocking calls (fabperf's --streams)
//   poll     one thread, a call on whichever socket poll() says is ready (iperf3 3.12 receiving)
//   rr       sender only: one thread, whole blocking writes to each socket in turn (iperf3 3.12
//            sending, its multisend loop); a receiver given rr polls
// V6=1 in a receiver's environment listens on a dual-stack IPv6 socket, as iperf3 and fabperf do.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static size_t size;
static double secs;
static int sending;
static int fds[2];
static char* buf[2];
static long long bytes[2];

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static ssize_t move(int i) {
  return sending ? write(fds[i], buf[i], size) : read(fds[i], buf[i], size);
}

static void* one_stream(void* arg) {
  long i = (long)arg;
  double end = now() + secs;
  while (!sending || now() < end) {
    ssize_t n = move(i);
    if (n <= 0) break;
    bytes[i] += n;
  }
  return NULL;
}

static void polled(void) {
  double end = now() + secs;
  struct pollfd p[2];
  int open = 2;
  for (int i = 0; i < 2; i++) p[i] = (struct pollfd){fds[i], sending ? POLLOUT : POLLIN, 0};
  while (sending ? now() < end : open > 0) {
    if (poll(p, 2, 1000) <= 0) continue;
    for (int i = 0; i < 2; i++) {
      if (!p[i].revents) continue;
      ssize_t n = move(i);
      if (n <= 0) { p[i].fd = -1; open--; } else bytes[i] += n;
    }
  }
}

static void round_robin(void) {
  double end = now() + secs;
  while (now() < end) {
    for (int i = 0; i < 2; i++) {
      for (size_t at = 0; at < size;) {
        ssize_t n = write(fds[i], buf[i] + at, size - at);
        if (n <= 0) return;
        at += n;
        bytes[i] += n;
      }
    }
  }
}

static int listen_on(int port) {
  int on = 1, off = 0, l;
  if (getenv("V6")) {
    struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
    l = socket(AF_INET6, SOCK_STREAM, 0);
    setsockopt(l, IPPROTO_IPV6, IPV6_V6ONLY, &off, sizeof off);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(l, (struct sockaddr*)&a, sizeof a)) return -1;
  } else {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    l = socket(AF_INET, SOCK_STREAM, 0);
    setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (bind(l, (struct sockaddr*)&a, sizeof a)) return -1;
  }
  return listen(l, 4) ? -1 : l;
}

int main(int argc, char** argv) {
  if (argc < 5 || (strcmp(argv[1], "send") == 0 && argc < 6)) {
    fprintf(stderr, "usage: twostream recv PORT SHAPE SIZE | send PORT SHAPE SIZE SECS\n");
    return 2;
  }
  sending = strcmp(argv[1], "send") == 0;
  int port = atoi(argv[2]);
  const char* shape = argv[3];
  size = strtoul(argv[4], NULL, 0);
  secs = sending ? atof(argv[5]) : 0;
  for (int i = 0; i < 2; i++) {
    buf[i] = aligned_alloc(4096, (size + 4095) / 4096 * 4096);
    memset(buf[i], 'a', size);
  }
  if (sending) {
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    for (int i = 0; i < 2; i++) {
      fds[i] = socket(AF_INET, SOCK_STREAM, 0);
      if (connect(fds[i], (struct sockaddr*)&a, sizeof a)) { perror("connect"); return 1; }
    }
  } else {
    int l = listen_on(port);
    if (l < 0) { perror("listen"); return 1; }
    for (int i = 0; i < 2; i++) fds[i] = accept(l, NULL, NULL);
  }
  double t0 = now();
  if (strcmp(shape, "threads") == 0) {
    pthread_t t[2];
    for (long i = 0; i < 2; i++) pthread_create(&t[i], NULL, one_stream, (void*)i);
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  } else if (strcmp(shape, "rr") == 0 && sending) {
    round_robin();
  } else {
    polled();
  }
  double t = now() - t0;
  if (sending) { close(fds[0]); close(fds[1]); }
  printf("%s %s %.2f GB/s\n", argv[1], shape, (bytes[0] + bytes[1]) / t / 1e9);
  return 0;
}
