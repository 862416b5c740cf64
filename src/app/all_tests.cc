// Registry assembly: the one place that knows every test family.
#include "app/all_tests.h"

#include "engine/misc_tests.h"
#include "fabric/fabric_tests.h"
#include "socket/socket_tests.h"

namespace fabperf {

const TestRegistry& all_tests() {
  static const TestRegistry registry = [] {
    std::vector<const TestSpec*> out;
    for (const auto* table : {&misc_tests(), &socket_tests(), &fabric_tests()}) {
      for (const TestSpec& t : *table) out.push_back(&t);
    }
    return TestRegistry(std::move(out));
  }();
  return registry;
}

}  // namespace fabperf
