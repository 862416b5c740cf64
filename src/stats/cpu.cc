// CPU accounting: /proc/stat parsing, snapshots and the usage between two of them.
#include "stats/cpu.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <system_error>

#include "core/clock.h"
#include "core/json_numbers.h"

namespace fabperf {

namespace {

int64_t timeval_ns(const timeval& tv) {
  return static_cast<int64_t>(tv.tv_sec) * 1000000000 + static_cast<int64_t>(tv.tv_usec) * 1000;
}

// end - start, or 0 when the counter went backwards.
double delta(uint64_t start, uint64_t end) {
  return end >= start ? static_cast<double>(end - start) : 0.0;
}
double delta(int64_t start, int64_t end) {
  return end >= start ? static_cast<double>(end - start) : 0.0;
}

}  // namespace

Result<ProcStatTicks> parse_proc_stat(std::string_view text) {
  const std::string_view line = text.substr(0, text.find('\n'));
  const auto bad = [&](const std::string& why) {
    return Status::failed("/proc/stat: " + why + " in \"" + std::string(line.substr(0, 120)) +
                          "\"");
  };
  uint64_t fields[8] = {};
  size_t nfields = 0;
  bool saw_label = false;
  size_t pos = 0;
  while (true) {
    while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
    if (pos >= line.size()) break;
    size_t end = pos;
    while (end < line.size() && line[end] != ' ' && line[end] != '\t') ++end;
    const std::string_view token = line.substr(pos, end - pos);
    pos = end;
    if (!saw_label) {
      // "cpu" alone is the aggregate; "cpu0" and the rest are single CPUs.
      if (token != "cpu") return bad("first line is not the aggregate cpu line");
      saw_label = true;
      continue;
    }
    uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
    if (ec != std::errc() || ptr != token.data() + token.size()) return bad("bad number");
    // Later kernels append fields (guest, guest_nice); they are checked but not kept.
    if (nfields < 8) fields[nfields] = v;
    ++nfields;
  }
  if (!saw_label) return bad("empty first line");
  if (nfields < 4) return bad("fewer than 4 counters");
  ProcStatTicks t;
  t.user = fields[0];
  t.nice = fields[1];
  t.system = fields[2];
  t.idle = fields[3];
  t.iowait = fields[4];
  t.irq = fields[5];
  t.softirq = fields[6];
  t.steal = fields[7];
  return t;
}

Result<ProcStatTicks> read_proc_stat() {
  const int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::unsupported(std::string("open /proc/stat: ") + strerror(errno));
  // Only the first line matters and it is short; a fixed buffer keeps snapshots cheap.
  char buf[1024];
  size_t len = 0;
  while (len < sizeof(buf)) {
    const ssize_t n = read(fd, buf + len, sizeof(buf) - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      close(fd);
      return Status::failed(std::string("read /proc/stat: ") + strerror(err));
    }
    if (n == 0) break;
    const bool newline = memchr(buf + len, '\n', static_cast<size_t>(n)) != nullptr;
    len += static_cast<size_t>(n);
    if (newline) break;
  }
  close(fd);
  return parse_proc_stat(std::string_view(buf, len));
}

CpuSnapshot CpuSnapshot::take() {
  CpuSnapshot s;
  Result<ProcStatTicks> ticks = read_proc_stat();
  if (ticks.ok()) {
    s.ticks = *ticks;
    s.have_ticks = true;
  }
  rusage ru;
  if (getrusage(RUSAGE_THREAD, &ru) == 0) {
    s.thread_user_ns = timeval_ns(ru.ru_utime);
    s.thread_sys_ns = timeval_ns(ru.ru_stime);
  }
  s.wall_ns = now_ns();
  return s;
}

CpuUsage cpu_between(const CpuSnapshot& start, const CpuSnapshot& end) {
  CpuUsage u;
  const int64_t wall = end.wall_ns - start.wall_ns;
  if (wall <= 0) return u;
  u.real_s = static_cast<double>(wall) / 1e9;

  const double real_ns = static_cast<double>(wall);
  u.proc_user = finite_or_zero(delta(start.thread_user_ns, end.thread_user_ns) / real_ns * 100);
  u.proc_kernel = finite_or_zero(delta(start.thread_sys_ns, end.thread_sys_ns) / real_ns * 100);
  u.proc_used = u.proc_user + u.proc_kernel;

  if (!start.have_ticks || !end.have_ticks) return u;
  long hz = sysconf(_SC_CLK_TCK);
  if (hz <= 0) hz = 100;  // USER_HZ is 100 on every Linux architecture that matters
  const ProcStatTicks& a = start.ticks;
  const ProcStatTicks& b = end.ticks;
  const double user = delta(a.user, b.user) + delta(a.nice, b.nice);
  const double kernel = delta(a.system, b.system);
  const double intr = delta(a.irq, b.irq) + delta(a.softirq, b.softirq);
  const double iowait = delta(a.iowait, b.iowait);
  const double busy = user + kernel + intr + delta(a.steal, b.steal) + iowait;
  // Ticks to percent of one CPU: ticks / hz seconds of CPU over real_s seconds, times 100.
  const double to_percent = 100.0 / (static_cast<double>(hz) * u.real_s);
  u.cpus_used = finite_or_zero(busy * to_percent);
  u.cpus_user = finite_or_zero(user * to_percent);
  u.cpus_kernel = finite_or_zero(kernel * to_percent);
  u.cpus_intr = finite_or_zero(intr * to_percent);
  u.cpus_iowait = finite_or_zero(iowait * to_percent);
  u.cpu_time_s = finite_or_zero(busy / static_cast<double>(hz));
  return u;
}

nlohmann::json CpuUsage::to_json() const {
  return {
      {"real_s", finite_or_zero(real_s)},           {"cpus_used", finite_or_zero(cpus_used)},
      {"cpus_user", finite_or_zero(cpus_user)},     {"cpus_kernel", finite_or_zero(cpus_kernel)},
      {"cpus_intr", finite_or_zero(cpus_intr)},     {"cpus_iowait", finite_or_zero(cpus_iowait)},
      {"cpu_time_s", finite_or_zero(cpu_time_s)},   {"proc_user", finite_or_zero(proc_user)},
      {"proc_kernel", finite_or_zero(proc_kernel)}, {"proc_used", finite_or_zero(proc_used)}};
}

CpuUsage CpuUsage::from_json(const nlohmann::json& j) {
  CpuUsage u;
  if (!j.is_object()) return u;
  const auto get = [&j](const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return 0.0;
    return finite_or_zero(it->get<double>());
  };
  u.real_s = get("real_s");
  u.cpus_used = get("cpus_used");
  u.cpus_user = get("cpus_user");
  u.cpus_kernel = get("cpus_kernel");
  u.cpus_intr = get("cpus_intr");
  u.cpus_iowait = get("cpus_iowait");
  u.cpu_time_s = get("cpu_time_s");
  u.proc_user = get("proc_user");
  u.proc_kernel = get("proc_kernel");
  u.proc_used = get("proc_used");
  return u;
}

}  // namespace fabperf
