// TCP_INFO, read through the kernel's own definition (newer than glibc's: it has snd_wnd).
#include "net/tcp_state.h"

#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>

namespace fabperf {

Result<TcpState> tcp_state(int fd) {
  tcp_info info;
  std::memset(&info, 0, sizeof info);
  socklen_t len = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0) {
    return Status::failed(std::string("TCP_INFO: ") + std::strerror(errno));
  }
  TcpState out;
  out.last_data_recv_ms = info.tcpi_last_data_recv;
  out.mss = info.tcpi_snd_mss;
  // Kernels before 5.4 end the structure before snd_wnd, and say so by the length.
  if (len >= offsetof(tcp_info, tcpi_snd_wnd) + sizeof info.tcpi_snd_wnd) {
    out.peer_window = info.tcpi_snd_wnd;
  }
  return out;
}

}  // namespace fabperf
