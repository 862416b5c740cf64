// Stock qperf as a peer of the end-to-end tests.
#include "e2e_qperf_util.h"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "e2e_util.h"
#include "net/socket.h"
#include "qperf_wire/control.h"

namespace fabperf::testing {

std::string qperf_program() {
  for (const char* path : {"/usr/bin/qperf", "/usr/local/bin/qperf"}) {
    if (access(path, X_OK) == 0) return path;
  }
  return "";
}

QperfServer::QperfServer() {
  port_ = free_port();
  proc_ = std::make_unique<Proc>(std::vector<std::string>{"-lp", std::to_string(port_)},
                                 qperf_program());
}

double qperf_figure(const std::string& out, const std::string& test, const std::string& name) {
  size_t block = out.find(test + ":\n");
  if (block == std::string::npos) return -1;
  std::istringstream in(out.substr(block + test.size() + 2));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("warning:", 0) == 0) continue;  // qperf puts its warnings inside the block
    if (line.rfind("    ", 0) != 0) break;
    std::istringstream words(line);
    std::string key, eq, value, unit;
    words >> key >> eq >> value >> unit;
    if (key != name || eq != "=") continue;
    std::string digits;
    for (char c : value) {
      if (c != ',') digits += c;
    }
    double v = std::atof(digits.c_str());
    static const std::pair<const char*, double> kUnits[] = {
        {"ns", 1e-9},     {"us", 1e-6},    {"ms", 1e-3},    {"sec", 1},
        {"bytes/sec", 1}, {"KB/sec", 1e3}, {"MB/sec", 1e6}, {"GB/sec", 1e9},
        {"TB/sec", 1e12}, {"/sec", 1},     {"K/sec", 1e3},  {"M/sec", 1e6}};
    for (const auto& [text, scale] : kUnits) {
      if (unit == text) return v * scale;
    }
    return v;
  }
  return -1;
}

bool kernel_has(int family, int type, int protocol) {
  int fd = socket(family, type, protocol);
  if (fd < 0) return false;
  close(fd);
  return true;
}

std::string qperf_request_error(int port, const qperf_wire::Request& request, double timeout_s,
                                size_t bytes) {
  int fd = connect_raw(port);
  if (fd < 0) return "cannot connect";
  Fd owned(fd);
  qperf_wire::QperfControl ctl(fd, "server");
  auto encoded = qperf_wire::encode_request(request);
  size_t len = bytes == 0 ? encoded.size() : bytes;
  if (!ctl.send(encoded.data(), len, "request", 2).ok()) return "cannot send";
  uint8_t reply[qperf_wire::kConfSize];
  Status s = ctl.recv(reply, sizeof reply, "reply", timeout_s);
  return s.message().rfind("server", 0) == 0 ? s.message() : "";
}

}  // namespace fabperf::testing
