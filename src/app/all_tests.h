// Every test this program knows: the misc, socket and fabric families' tables, in that order.
#pragma once

#include "engine/registry.h"

namespace fabperf {

const TestRegistry& all_tests();

}  // namespace fabperf
