// TestRegistry: the tests a program knows, looked up by name. The app assembles it from the
// families' tables (app/all_tests.h) and hands it to the layers that need it.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/test_context.h"

namespace fabperf {

class TestRegistry {
 public:
  explicit TestRegistry(std::vector<const TestSpec*> tests) : tests_(std::move(tests)) {}

  const std::vector<const TestSpec*>& all() const { return tests_; }
  const TestSpec* find(std::string_view name) const;
  std::vector<std::string> names() const;

 private:
  std::vector<const TestSpec*> tests_;
};

}  // namespace fabperf
