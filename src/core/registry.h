// The test registry: every test row, from each family's table, looked up by name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/test_context.h"

namespace fabperf {

const std::vector<const TestSpec*>& all_tests();
const TestSpec* find_test(std::string_view name);
std::vector<std::string> test_names();

}  // namespace fabperf
