// A child's error as a link message and back.
#include "session/child_link.h"

#include <cstdlib>
#include <fstream>

namespace fabperf {

uint64_t vm_hwm_kib(const std::string& status_path) {
  std::ifstream in(status_path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmHWM:", 0) == 0) return std::strtoull(line.c_str() + 6, nullptr, 10);
  }
  return 0;
}

nlohmann::json child_error_message(const Status& status) {
  return {{"code", static_cast<int>(status.code())}, {"message", status.message()}};
}

Status status_from_child(const nlohmann::json& message) {
  int code = message.value("code", static_cast<int>(Code::kFailed));
  if (code <= static_cast<int>(Code::kOk) || code > static_cast<int>(Code::kInterrupted)) {
    code = static_cast<int>(Code::kFailed);  // an ok "error" is still an error
  }
  std::string text = message.value("message", std::string("(no message)"));
  return Status(static_cast<Code>(code), text.substr(0, 4096));
}

}  // namespace fabperf
