// TestRegistry lookups.
#include "engine/registry.h"

namespace fabperf {

const TestSpec* TestRegistry::find(std::string_view name) const {
  for (const TestSpec* t : tests_) {
    if (name == t->name) return t;
  }
  return nullptr;
}

std::vector<std::string> TestRegistry::names() const {
  std::vector<std::string> out;
  for (const TestSpec* t : tests_) out.push_back(t->name);
  return out;
}

}  // namespace fabperf
