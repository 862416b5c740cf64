// The libfabric tests (rc_*, ud_*, rdm_*, and qperf's uc_*/xrc_* names) as registry rows.
#pragma once

#include <vector>

#include "engine/test_context.h"

namespace fabperf {

const std::vector<TestSpec>& fabric_tests();

}  // namespace fabperf
