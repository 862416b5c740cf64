// Registry assembly: misc tests, socket tests, fabric (libfabric) tests.
#include "core/registry.h"

#include "fabric/fabric_tests.h"
#include "tests/misc_tests.h"
#include "tests/socket_tests.h"

namespace fabperf {

const std::vector<const TestSpec*>& all_tests() {
  static const std::vector<const TestSpec*> tests = [] {
    std::vector<const TestSpec*> out;
    for (const auto* table : {&misc_tests(), &socket_tests(), &fabric_tests()}) {
      for (const TestSpec& t : *table) out.push_back(&t);
    }
    return out;
  }();
  return tests;
}

const TestSpec* find_test(std::string_view name) {
  for (const TestSpec* t : all_tests()) {
    if (name == t->name) return t;
  }
  return nullptr;
}

std::vector<std::string> test_names() {
  std::vector<std::string> out;
  for (const TestSpec* t : all_tests()) out.push_back(t->name);
  return out;
}

}  // namespace fabperf
