// What the floor programs (floor_pingpong, floor_stream) share: the system calls they make
// (CALLS) and the shape of their processes (SHAPE), so a floor can be moved toward fabperf's
// calls and threads one difference at a time, by name on the command line.
//
// CALLS: send (send and recv through glibc), write (write and read, qperf's stream calls), or
// syscall (sendto and recvfrom through syscall(2), as fabperf makes them: net/sys_io.h). In a
// process of more than one thread glibc's send and recv, cancellation points, pay two atomic
// operations a call; syscall(2) does not.
// SHAPE: single (one thread, as qperf's processes), thread (one idle thread beside the
// measuring one, as fabperf's supervisor and watchdog sit beside its measuring thread),
// thread-own-fds (that, and the measuring thread takes a private descriptor table,
// unshare(CLONE_FILES), as fabperf's measuring threads do: core/private_fds.h), or timeout
// (single, and every receive waits under a 2 s SO_RCVTIMEO: a kernel timer armed at each
// sleep, which fabperf's stall watchdog replaced).
#pragma once

#include <sched.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <utility>

enum class Calls { kSend, kWrite, kSyscall };
enum class Shape { kSingle, kThread, kThreadOwnFds, kTimeout };

// A name of the table `names`, or false for one that is none of them, after telling so on
// standard error from the table itself: "PROGRAM: WHAT is a, b or c, not NAME".
template <typename T, size_t N>
bool parse_name(const char* program, const char* what, const std::string& name,
                const std::pair<const char*, T> (&names)[N], T* out) {
  for (const auto& [text, value] : names) {
    if (name == text) {
      *out = value;
      return true;
    }
  }
  std::string known;
  for (size_t i = 0; i < N; ++i) {
    known += (i == 0 ? "" : i + 1 == N ? " or " : ", ") + std::string(names[i].first);
  }
  fprintf(stderr, "%s: %s is %s, not %s\n", program, what, known.c_str(), name.c_str());
  return false;
}

inline bool parse_calls(const char* program, const std::string& name, Calls* calls) {
  static const std::pair<const char*, Calls> kNames[] = {
      {"send", Calls::kSend}, {"write", Calls::kWrite}, {"syscall", Calls::kSyscall}};
  return parse_name(program, "CALLS", name, kNames, calls);
}

inline bool parse_shape(const char* program, const std::string& name, Shape* shape) {
  static const std::pair<const char*, Shape> kNames[] = {{"single", Shape::kSingle},
                                                         {"thread", Shape::kThread},
                                                         {"thread-own-fds", Shape::kThreadOwnFds},
                                                         {"timeout", Shape::kTimeout}};
  return parse_name(program, "SHAPE", name, kNames, shape);
}

// One send in the floor's calls. `write` takes neither flags nor an address: the callers use
// it on connected streams only.
inline ssize_t send_to(Calls calls, int fd, const void* p, size_t len, int flags,
                       const sockaddr* to = nullptr, socklen_t to_len = 0) {
  switch (calls) {
    case Calls::kSend:
      return to != nullptr ? sendto(fd, p, len, flags, to, to_len) : send(fd, p, len, flags);
    case Calls::kWrite:
      return write(fd, p, len);
    case Calls::kSyscall:
      return syscall(SYS_sendto, fd, p, len, flags, to, to_len);
  }
  return -1;
}

inline ssize_t recv_from(Calls calls, int fd, void* p, size_t len, int flags,
                         sockaddr* from = nullptr, socklen_t* from_len = nullptr) {
  switch (calls) {
    case Calls::kSend:
      return from != nullptr ? recvfrom(fd, p, len, flags, from, from_len)
                             : recv(fd, p, len, flags);
    case Calls::kWrite:
      return read(fd, p, len);
    case Calls::kSyscall:
      return syscall(SYS_recvfrom, fd, p, len, flags, from, from_len);
  }
  return -1;
}

// The process's shape for the run, taken by each side after fork.
inline void take_shape(Shape shape) {
  if (shape == Shape::kSingle || shape == Shape::kTimeout) return;
  std::thread([] { std::this_thread::sleep_for(std::chrono::hours(1)); }).detach();
  if (shape == Shape::kThreadOwnFds && unshare(CLONE_FILES) != 0) perror("unshare");
}

// The `timeout` shape's kernel timer on a receiving socket (a no-op for the other shapes).
inline void take_timeout(Shape shape, int fd) {
  if (shape != Shape::kTimeout) return;
  timeval tv{2, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}
