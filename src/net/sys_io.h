// The data path's send and receive system calls, made directly rather than through glibc's
// send()/recv()/sendto().
#pragma once

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstddef>

namespace fabperf {

// glibc's socket calls are thread cancellation points: in a process with more than one thread
// (every fabperf run has its supervisor and stall watchdog beside the measuring thread) each
// call wraps the system call in __pthread_enable_asynccancel/__pthread_disable_asynccancel,
// two atomic read-modify-writes, where a single-threaded qperf pays nothing. On a loopback
// 64-byte UDP send (~1.3 us) that was 2-3% of the call (perf: pthread_disable_asynccancel
// 1.6% of the sender's samples). fabperf never cancels a thread, so the measured loops make
// the same system calls without the wrapper: same arguments, same return value and errno.
inline ssize_t sys_sendto(int fd, const void* buf, size_t len, int flags, const sockaddr* to,
                          socklen_t to_len) {
  return static_cast<ssize_t>(syscall(SYS_sendto, fd, buf, len, flags, to, to_len));
}
inline ssize_t sys_send(int fd, const void* buf, size_t len, int flags) {
  return sys_sendto(fd, buf, len, flags, nullptr, 0);
}
inline ssize_t sys_recvfrom(int fd, void* buf, size_t len, int flags, sockaddr* from,
                            socklen_t* from_len) {
  return static_cast<ssize_t>(syscall(SYS_recvfrom, fd, buf, len, flags, from, from_len));
}
inline ssize_t sys_recv(int fd, void* buf, size_t len, int flags) {
  return sys_recvfrom(fd, buf, len, flags, nullptr, nullptr);
}

}  // namespace fabperf
