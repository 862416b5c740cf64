// The server side of qperf's protocol: request, checks, conf, quit and the socket tests' loops.
#include "qperf_wire/server_session.h"

#include <errno.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>
#include <optional>

#include "core/host_buffer.h"
#include "engine/affinity.h"
#include "engine/misc_tests.h"
#include "options/option_table.h"
#include "qperf_wire/control.h"
#include "qperf_wire/data_link.h"
#include "qperf_wire/end_rule.h"
#include "qperf_wire/stat_times.h"
#include "socket/message_loops.h"
#include "socket/sock_protocol.h"

namespace fabperf::qperf_wire {

RunOptions request_options(const Request& r) {
  RunOptions o = default_run_options();
  o.msg_size = r.msg_size;
  o.time = r.time;
  o.no_msgs = r.no_msgs;
  o.timeout = r.timeout;
  o.sock_buf_size = r.sock_buf_size;
  o.ip_port = r.port;
  o.access_recv = r.access_recv != 0;
  o.cpu_affinity = r.affinity == 0 ? std::string() : std::to_string(r.affinity - 1ull);
  o.warmup = 0;
  return o;
}

namespace {

Status run_test(QperfControl& ctl, const QperfLease& lease, const Request& req,
                const SocketProtocol& proto, const TestSpec& spec, double timeout) {
  auto data = open_server_data(proto, ctl, req, timeout);
  if (!data.ok()) return data.status();
  FP_RETURN_IF_ERROR(ctl.sync(kSyncBefore, timeout));
  EndRule rule(req.time, ctl, lease.stop);
  // A client that moves nothing for the timeout (stopped, gone silent) is cut then, timer or
  // not: it must not hold the measurement queue for the rest of its time (review N1).
  rule.set_idle_limit(timeout);
  auto buf = HostBuffer::allocate(req.msg_size, "");
  if (!buf.ok()) return buf.status().prefixed("message buffer");
  // qperf's -n, carried by every request, is ended on here too (0: by time).
  const bool rds = proto.family_override != 0 && !proto.connected;
  LoopShape shape{req.msg_size, req.access_recv != 0, rds, req.no_msgs};
  // Only the control connection's peer is counted or answered (the server is no amplifier);
  // a UDP link is fixed on its first datagram. An address once judged is not formatted again.
  const std::string client = peer_address(ctl.fd()).host();
  SockAddr known;
  auto heard = [&](const SockAddr& from) {
    if (from.len == known.len && memcmp(&from.storage, &known.storage, from.len) == 0) return true;
    if (!same_host(from, client)) return false;
    known = from;
    return true;
  };
  std::optional<DataLink> link(data_link(proto, std::move(*data)));
  LoopCounts counts;
  rule.start();
  serve_loop(*link, reinterpret_cast<char*>(buf->data()), shape, spec.kind == TestKind::kLatency,
             rule, counts, heard);
  rule.mark_finished();
  if (!rule.control_status().ok()) return rule.control_status();
  if (lease.stop != nullptr && lease.stop->load()) return Status::interrupted("stopped");
  if (shape.max_msgs > 0 && counts.received.msgs >= shape.max_msgs) {
    // Ended by -n: a client without a timer learns it from the closed connection (streams) or
    // '.' (datagrams; sent only then: a stock client outside its test loop takes '.' for an
    // error).
    if (proto.connected) {
      link.reset();  // unread data makes this a reset: a blocked writer fails at once
    } else if (req.time == 0) {
      ctl.send_finished();
    }
  }
  Stat stat = make_stat(rule.start_times(), rule.end_times(), counters(counts.sent),
                        counters(counts.received));
  auto bytes = encode_stat(stat);
  FP_RETURN_IF_ERROR(ctl.send(bytes.data(), bytes.size(), "results", timeout));
  char after[kSyncAfter.size()];
  FP_RETURN_IF_ERROR(ctl.recv(after, sizeof after, "synchronization after test", timeout));
  if (std::string_view(after, sizeof after) != kSyncAfter) {
    return Status::failed("synchronize synchronization after test failure: data does not match");
  }
  return Status::success();
}

std::string index_text(uint16_t index) { return "bad request index: " + std::to_string(index); }

// The request, read and checked, then conf, quit or a socket test on `ctl`.
Status serve_request(QperfControl& ctl, QperfLease& lease, std::string& name) {
  uint8_t bytes[kRequestSize];
  // The whole request within the server's -to, as qperf reads it (6 bytes, then the rest).
  const Deadline request_deadline = Deadline::after(lease.timeout_s);
  FP_RETURN_IF_ERROR(ctl.recv(bytes, kRequestVersionSize, "request version", request_deadline));
  uint16_t maj = static_cast<uint16_t>(decode_le(bytes, 2));
  uint16_t min = static_cast<uint16_t>(decode_le(bytes + 2, 2));
  std::string mismatch = version_mismatch(maj, min, static_cast<uint16_t>(decode_le(bytes + 4, 2)));
  if (!mismatch.empty()) return Status::failed(mismatch);
  FP_RETURN_IF_ERROR(ctl.recv(bytes + kRequestVersionSize, kRequestSize - kRequestVersionSize,
                              "request data", request_deadline));
  Request req = decode_request(bytes);
  const char* test = test_name(req.req_index);
  if (test == nullptr) return Status::failed(index_text(req.req_index));
  name = std::string("qperf ") + test;
  if (!lease.refusal.empty()) return Status::failed(lease.refusal);
  if (req.req_index >= kFirstRdmaIndex) {
    return Status::unsupported(index_text(req.req_index) + " (" + test +
                               ": fabperf serves qperf clients the socket tests, conf and quit; "
                               "run the fabperf client for RDMA tests)");
  }
  // The request's -to replaces the server's from here, as in qperf, within the server's own
  // (which bounds every wait of a fabperf client's run too); conf and quit need no more.
  RunOptions opts = request_options(req);
  opts.timeout = req.timeout > 0 ? std::min<double>(req.timeout, lease.timeout_s) : lease.timeout_s;
  if (req.req_index == kConfIndex) {
    nlohmann::json me = node_info();
    Conf conf{me.value("node", ""), me.value("cpu", ""), me.value("os", ""),
              std::string("fabperf ") + FABPERF_VERSION};
    auto reply = encode_conf(conf);
    return ctl.send(reply.data(), reply.size(), "configuration", opts.timeout);
  }
  if (req.req_index == kQuitIndex) {
    FP_RETURN_IF_ERROR(ctl.sync(kSyncBefore, opts.timeout));
    lease.quit();
    return Status::success();
  }
  const TestSpec* spec = lease.tests != nullptr ? lease.tests->find(test) : nullptr;
  const SocketProtocol* proto = spec != nullptr && spec->family == TransportFamily::kSocket
                                    ? find_socket_protocol(spec->transport)
                                    : nullptr;
  if (proto == nullptr) return Status::failed(index_text(req.req_index));
  if (req.msg_size == 0) {
    return Status::failed("message size 0 cannot be measured: give -m 1 or more");
  }
  // The limits, then this client's turn among every client's measurements: qperf has no word
  // for "wait", so its client simply waits (within its own -to); one that gives up meanwhile
  // ends the wait.
  FP_RETURN_IF_ERROR(lease.admit(*spec, opts, [&] { return ctl.check(); }));
  if (req.affinity != 0) {
    Status pinned = apply_cpu_affinity(opts.cpu_affinity);
    if (!pinned.ok()) {
      return Status::failed("cannot set processor affinity (cpu " + opts.cpu_affinity +
                            "): " + pinned.message());
    }
  }
  return run_test(ctl, lease, req, *proto, *spec, opts.timeout);
}

}  // namespace

Status serve_qperf(QperfLease& lease) {
  QperfControl ctl(lease.fd, "client");
  ctl.set_cancel(lease.stop);
  // The server's supervisor (the run's deadline, a stopping server) speaks qperf's words.
  lease.set_teller([&ctl](const std::string& why) { ctl.send_error(why); });
  std::string name;
  Status s = serve_request(ctl, lease, name);
  // A failure is the client's to hear too, unless the server's supervisor already told it.
  if (!s.ok() && s.code() != Code::kInterrupted && !(lease.stop != nullptr && lease.stop->load())) {
    ctl.send_error(s.message());
    // A client that fell silent will not read it either: the slot is not held for it.
    ctl.drain(s.code() == Code::kTimeout ? 0.2 : std::min(3.0, lease.timeout_s));
  }
  lease.set_teller(nullptr);  // before ctl goes
  return s.ok() || name.empty() ? s : s.prefixed(name);
}

}  // namespace fabperf::qperf_wire
