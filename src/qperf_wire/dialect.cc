// Refusals in qperf's terms on the shared port.
#include "qperf_wire/dialect.h"

#include "qperf_wire/control.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

bool refuse_if_qperf(int fd, const uint8_t* sent, size_t size, const std::string& why) {
  if (!looks_like_request(sent, size)) return false;
  QperfControl ctl(fd, "client");
  ctl.send_error(why);
  return true;
}

}  // namespace fabperf::qperf_wire
