// A fabperf client run against a stock qperf server: request, data phase, results block.
#include "qperf_wire/client_session.h"

#include <poll.h>
#include <sys/socket.h>

#include <cmath>
#include <cstdio>
#include <cstring>

#include "core/clock.h"
#include "core/host_buffer.h"
#include "engine/affinity.h"
#include "engine/misc_tests.h"
#include "net/socket.h"
#include "options/option_table.h"
#include "qperf_wire/control.h"
#include "qperf_wire/data_link.h"
#include "qperf_wire/end_rule.h"
#include "qperf_wire/stat_times.h"
#include "socket/message_loops.h"
#include "socket/sock_protocol.h"
#include "stats/cpu.h"

namespace fabperf::qperf_wire {

namespace {

// A control connection to the server (qperf's client opens one for every test).
Result<Fd> connect_control(const ClientConfig& config, double timeout_s) {
  HostSpec host = split_host_iface(config.host);
  ConnectOptions options{config.wait_server_s, timeout_s, config.bind_addr, host.iface};
  return connect_tcp(host.host, config.port, options);
}

uint32_t whole_seconds(double seconds) {
  double up = std::ceil(seconds);
  return up < 1 ? 1 : up > 1e6 ? 1000000 : static_cast<uint32_t>(up);
}

// What qperf's client would put in the request, from the server side's options.
Result<Request> build_request(uint16_t index, const RunOptions& remote, bool counted) {
  Request req;
  req.req_index = index;
  if (remote.msg_size > UINT32_MAX) {
    return Status::usage("-m " + std::to_string(remote.msg_size) +
                         ": qperf's protocol carries message sizes below 4 GiB");
  }
  req.msg_size = static_cast<uint32_t>(remote.msg_size);
  // The server's timer counts whole seconds. Any other run, and one counted by -n, goes
  // without it: this client ends the server's side (EOF on streams, '.' otherwise).
  bool whole = remote.time >= 1 && remote.time == std::floor(remote.time) && remote.time <= 1e6;
  req.time = whole && !counted ? static_cast<uint32_t>(remote.time) : 0;
  req.timeout = whole_seconds(remote.timeout);
  req.no_msgs = static_cast<uint32_t>(std::min<uint64_t>(remote.no_msgs, UINT32_MAX));
  req.sock_buf_size = static_cast<uint32_t>(std::min<uint64_t>(remote.sock_buf_size, UINT32_MAX));
  req.port = static_cast<uint32_t>(remote.ip_port);
  req.access_recv = remote.access_recv ? 1 : 0;
  const std::string& cpu = remote.cpu_affinity;
  if (!cpu.empty() && cpu != "any") {
    auto n = std::strtoul(cpu.c_str(), nullptr, 10);
    req.affinity = static_cast<uint32_t>(n + 1);
  }
  return req;
}

// qperf's own -m default (sctp_bw 32K, rds_bw 8K) where the user set none (-m or -oo), on
// both sides.
void qperf_defaults(TestResult& result, uint16_t index) {
  if (given(result.local_opts, &RunOptions::msg_size) ||
      given(result.remote_opts, &RunOptions::msg_size)) {
    return;
  }
  result.local_opts.msg_size = default_msg_size(index);
  result.remote_opts.msg_size = default_msg_size(index);
}

// Options qperf's protocol has no room for: said once per run, as "set but not used".
void warn_unused(const TestResult& result) {
  const RunOptions& o = result.local_opts;
  for (FieldRef field : {FieldRef(&RunOptions::streams), FieldRef(&RunOptions::rate),
                         FieldRef(&RunOptions::cq_poll)}) {
    if (given(o, field)) {
      std::fprintf(stderr, "warning: --%s set but not used against a qperf server in test %s\n",
                   option_of(field).name, result.test.c_str());
    }
  }
}

Status run_misc(QperfControl& ctl, TestResult& result, uint16_t index, double timeout) {
  Request req;
  req.req_index = index;
  req.timeout = whole_seconds(timeout);
  auto bytes = encode_request(req);
  FP_RETURN_IF_ERROR(ctl.send(bytes.data(), bytes.size(), "request data", timeout));
  if (index == kQuitIndex) return ctl.sync(kSyncBefore, timeout);
  uint8_t reply[kConfSize];
  FP_RETURN_IF_ERROR(ctl.recv(reply, sizeof reply, "configuration", timeout));
  Conf conf = decode_conf(reply);
  result.conf_local = node_info();
  result.conf_remote = {{"node", conf.node},
                        {"cpu", conf.cpu},
                        {"os", conf.os},
                        {"version", conf.version},
                        {"tool", "qperf"}};
  return Status::success();
}

Status run_measurement(QperfControl& ctl, const ClientConfig& config, TestResult& result,
                       LatencyRecorder& latency, uint16_t index) {
  const RunOptions& local = result.local_opts;
  double timeout = local.timeout;
  uint64_t counted = local.no_msgs;
  auto req = build_request(index, result.remote_opts, counted > 0);
  if (!req.ok()) return req.status();
  const SocketProtocol& proto = *find_socket_protocol(result.spec->transport);
  FP_RETURN_IF_ERROR(apply_cpu_affinity(local.cpu_affinity));
  auto bytes = encode_request(*req);
  FP_RETURN_IF_ERROR(ctl.send(bytes.data(), bytes.size(), "request data", timeout));
  auto data = open_client_data(proto, ctl, local.sock_buf_size, 0, timeout);
  if (!data.ok()) return data.status();
  FP_RETURN_IF_ERROR(ctl.sync(kSyncBefore, timeout));
  // From here ^C ends the measured loop (the rule), and the results are still collected.
  ctl.set_cancel(nullptr);
  EndRule rule(counted > 0 ? 0 : local.time, ctl, config.stop);
  rule.set_idle_limit(timeout);  // -n: a reply that never comes ends the run (qperf waits)
  auto buf = HostBuffer::allocate(local.msg_size, "");
  if (!buf.ok()) return buf.status().prefixed("message buffer");
  fill_letters(buf->data(), buf->size());
  char* bytes_out = reinterpret_cast<char*>(buf->data());
  const bool rds = proto.family_override != 0 && !proto.connected;
  LoopShape shape{local.msg_size, local.access_recv, rds, counted};
  DataLink link = data_link(proto, std::move(*data));
  LoopCounts counts;
  CpuSnapshot cpu_start = CpuSnapshot::take();
  rule.start();
  if (result.spec->kind == TestKind::kLatency) {
    latency.set_scale(0.5);  // one way: half the round trip, as qperf reports it
    uint64_t round = 0;
    ping_loop(link, bytes_out, shape, rule, counts, [&](int64_t ns) {
      if (round++ >= local.warmup) latency.record(static_cast<uint64_t>(ns));
    });
  } else {
    send_loop(link, bytes_out, shape, rule, counts);
  }
  rule.mark_finished();
  CpuSnapshot cpu_end = CpuSnapshot::take();
  if (!rule.control_status().ok()) return rule.control_status();
  if (req->time == 0 || (config.stop != nullptr && config.stop->load())) {
    // The server runs without a timer, or ^C cut the run short: end its side now.
    proto.connected ? link.finish_sending() : ctl.send_finished();
  }
  SideStats& loc = result.loc;
  loc.send_bytes = counts.sent.bytes;
  loc.send_msgs = counts.sent.msgs;
  loc.send_errors = counts.sent.errs;
  loc.recv_bytes = counts.received.bytes;
  loc.recv_msgs = counts.received.msgs;
  loc.recv_errors = counts.received.errs;
  loc.real_time_ns = rule.end_ns() - rule.start_ns();
  loc.send_time_ns = loc.recv_time_ns = loc.real_time_ns;
  loc.cpu = cpu_between(cpu_start, cpu_end);
  uint8_t stat_bytes[kStatSize];
  FP_RETURN_IF_ERROR(ctl.recv(stat_bytes, sizeof stat_bytes, "results", timeout + 1));
  result.rem = side_stats_from_stat(decode_stat(stat_bytes));
  // The results are in: a server that missed the last sync changes nothing here.
  ctl.send(kSyncAfter.data(), kSyncAfter.size(), "synchronization after test", timeout)
      .ignore_error();
  return Status::success();
}

}  // namespace

Status run_qperf_test(const ClientConfig& config, TestResult& result, LatencyRecorder& latency,
                      const std::string& server_version) {
  const TestSpec& spec = *result.spec;
  auto index = test_index(spec.name);
  bool socket_test = spec.family == TransportFamily::kSocket;
  if (!index || (!socket_test && spec.kind != TestKind::kMisc)) {
    return Status::unsupported(
        "against a qperf server fabperf runs the socket tests, conf and quit (qperf's RDMA "
        "exchange is not spoken)");
  }
  if (socket_test && result.local_opts.reverse) {
    // qperf's bandwidth server only receives: measuring the other way would be mislabelled.
    return Status::unsupported(
        "-R/--reverse needs a fabperf server (a qperf server only "
        "receives)");
  }
  if (socket_test) {
    qperf_defaults(result, *index);
    warn_unused(result);
  }
  double timeout = result.local_opts.timeout;
  auto fd = connect_control(config, timeout);
  if (!fd.ok()) return fd.status();
  QperfControl ctl(fd->get(), "server");
  ctl.set_cancel(config.stop);
  Status s = socket_test ? run_measurement(ctl, config, result, latency, *index)
                         : run_misc(ctl, result, *index, timeout);
  if (s.ok() && socket_test && !server_version.empty()) {
    // A fabperf server speaking qperf's protocol names itself in its version.
    bool stock = server_version.rfind("fabperf", 0) != 0;
    result.rem.info["tool"] =
        stock ? "qperf " + server_version : server_version + " (qperf protocol)";
  }
  if (!s.ok() && s.code() != Code::kInterrupted && s.message().rfind("server", 0) != 0) {
    // The server's own account of a failure beats our view of its symptom.
    pollfd pfd{fd->get(), POLLPRI, 0};
    if (poll(&pfd, 1, 500) > 0 && (pfd.revents & POLLPRI)) {
      uint8_t scratch[kStatSize];
      Status told = ctl.recv(scratch, sizeof scratch, "error", 0.5);
      if (told.message().rfind("server", 0) == 0) return told;
    }
  }
  return s;
}

Status greet_qperf_server(const ClientConfig& config, RunInfo& info, std::string& version,
                          double timeout_s) {
  if (!config.auth_key.empty()) {
    // As with a fabperf server without a key: the client cannot tell it from an impostor.
    return Status::failed(
        "the server speaks qperf's protocol, which cannot prove it holds the key "
        "(--auth_key_file): not running a test against it");
  }
  auto fd = connect_control(config, timeout_s);
  if (!fd.ok()) return fd.status();
  QperfControl ctl(fd->get(), "server");
  ctl.set_cancel(config.stop);
  TestResult probe;
  FP_RETURN_IF_ERROR(run_misc(ctl, probe, kConfIndex, timeout_s).prefixed("conf"));
  info.server = probe.conf_remote;
  if (version.empty()) version = info.server.value("version", "");
  return Status::success();
}

std::optional<std::string> qperf_server_version(int fd) {
  // The frame decoder took the start of the text, and with it the urgent byte's mark; the rest
  // ("f on server from 0.4.11 to 16966.18000.256") came in the same write, then the close.
  std::string rest = read_error_text(fd, 0.2, false);
  size_t from = rest.find("server from ");
  if (from == std::string::npos) return std::nullopt;
  from += std::string("server from ").size();
  size_t to = rest.find(" to ", from);
  if (to == std::string::npos) return std::string("0.4");
  return rest.substr(from, std::min<size_t>(to - from, 16));
}

}  // namespace fabperf::qperf_wire
