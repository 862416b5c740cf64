// The session layer's view of qperf's protocol: each hook forwards to the file that owns it.
#include "qperf_wire/hooks.h"

#include "qperf_wire/client_session.h"
#include "qperf_wire/dialect.h"
#include "qperf_wire/server_session.h"
#include "qperf_wire/wire.h"

namespace fabperf::qperf_wire {

const QperfHooks* hooks() {
  static const QperfHooks kHooks{
      .opens_request = looks_like_request,
      .serve = serve_qperf,
      .refuse = refuse_if_qperf,
      .recognise = qperf_server_version,
      .greet = greet_qperf_server,
      .run = run_qperf_test,
  };
  return &kHooks;
}

}  // namespace fabperf::qperf_wire
