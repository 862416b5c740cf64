// libFuzzer target: the control-frame decoder and what the server does with a RUN body, and
// the qperf request that shares the port (src/qperf_wire/).
//
// The input is a byte stream as a client would send it: frames are decoded one after another
// (header, then a body of the announced length) until the bytes run out or a frame is refused.
// An input that opens like a qperf request (the server's first-byte test) takes the qperf path
// instead: the request decoded and checked as the server does, then what follows it read as a
// server's answers (results block, conf) the way fabperf's client reads them.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "app/all_tests.h"
#include "cli/command_line.h"
#include "net/control.h"
#include "options/option_table.h"
#include "options/run_options_json.h"
#include "qperf_wire/server_session.h"
#include "qperf_wire/stat_times.h"
#include "qperf_wire/wire.h"
#include "security/limits.h"

using namespace fabperf;

namespace {

// A server's limits when no --max_* is given: the option table's defaults.
const ServerLimits& default_limits() {
  static const ServerLimits limits = limits_from(default_program_options());
  return limits;
}

void qperf_request_path(const uint8_t* data, size_t size) {
  namespace qw = qperf_wire;
  uint8_t bytes[qw::kRequestSize] = {};
  memcpy(bytes, data, std::min(size, qw::kRequestSize));
  qw::Request req = qw::decode_request(bytes);
  qw::version_mismatch(req.ver_maj, req.ver_min, req.ver_inc);
  const char* name = qw::test_name(req.req_index);
  const TestSpec* spec = name != nullptr ? all_tests().find(name) : nullptr;
  if (spec != nullptr && spec->family == TransportFamily::kSocket) {
    RunOptions opts = qw::request_options(req);
    check_request(default_limits(), *spec, opts, RunCost{}).ok();
    run_cost(*spec, opts);
  }
  if (size < qw::kRequestSize + qw::kStatSize) return;
  const uint8_t* reply = data + qw::kRequestSize;
  SideStats side = qw::side_stats_from_stat(qw::decode_stat(reply));
  if (side.cpu.cpus_used != side.cpu.cpus_used) __builtin_trap();  // never NaN
  qw::Conf conf = qw::decode_conf(reply);
  // Text from a peer must be safe to put in JSON (dump throws on invalid UTF-8).
  nlohmann::json({{"node", conf.node}, {"cpu", conf.cpu}, {"os", conf.os}}).dump();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (qperf_wire::looks_like_request(data, size)) {
    qperf_request_path(data, size);
    return 0;
  }
  size_t at = 0;
  for (int frames = 0; frames < 16 && size - at >= kFrameHeaderSize; ++frames) {
    auto header = decode_frame_header(data + at, size - at);
    if (!header.ok()) break;
    at += kFrameHeaderSize;
    if (header->length > kMaxFrameBody) __builtin_trap();  // the decoder must refuse these
    size_t take = std::min<size_t>(header->length, size - at);
    auto frame = decode_frame_body(*header, data + at, take);
    at += take;
    if (!frame.ok()) continue;
    if (frame->type != MsgType::kRun) continue;
    // What the server does with a request: find the test, rebuild and check its options.
    const nlohmann::json& body = frame->body;
    auto opts = run_options_from_json(body.contains("params") ? body["params"] : nlohmann::json());
    auto it = body.find("test");
    const TestSpec* spec =
        it != body.end() && it->is_string() ? all_tests().find(it->get<std::string>()) : nullptr;
    if (opts.ok() && spec != nullptr) {
      check_request(default_limits(), *spec, *opts, RunCost{}).ok();
      run_cost(*spec, *opts);
    }
  }
  return 0;
}
