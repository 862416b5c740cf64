// The kernel-socket tests (tcp, udp, sctp, sdp, rds; lat and bw) as registry rows.
#pragma once

#include <vector>

#include "engine/test_context.h"

namespace fabperf {

const std::vector<TestSpec>& socket_tests();

}  // namespace fabperf
