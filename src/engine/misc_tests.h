// conf and quit: tests that measure nothing, handled by the engine itself.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "engine/test_context.h"

namespace fabperf {

const std::vector<TestSpec>& misc_tests();

// This node's description for conf: node, cpu ("2 Cores: ..."), os, version.
nlohmann::json node_info();

}  // namespace fabperf
