// libFuzzer target: the control-frame decoder and what the server does with a RUN body.
//
// The input is a byte stream as a client would send it: frames are decoded one after another
// (header, then a body of the announced length) until the bytes run out or a frame is refused.
#include <cstddef>
#include <cstdint>

#include "cli/command_line.h"
#include "app/all_tests.h"
#include "net/control.h"
#include "security/limits.h"

using namespace fabperf;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
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
    // What the server does with a request: find the test, rebuild and check its parameters.
    const nlohmann::json& body = frame->body;
    auto params = params_from_json(body.contains("params") ? body["params"] : nlohmann::json());
    auto it = body.find("test");
    const TestSpec* spec =
        it != body.end() && it->is_string() ? all_tests().find(it->get<std::string>()) : nullptr;
    if (params.ok() && spec != nullptr) {
      check_request(ServerLimits{}, *spec, *params, 0).ok();
      session_memory(*spec, *params);
    }
  }
  return 0;
}
