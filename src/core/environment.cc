// Environment: the table of variables fabperf reads, and the process's snapshot of them.
#include "core/environment.h"

#include <cstdlib>

namespace fabperf {

namespace {

// One row per variable: its name and where its value goes.
struct Variable {
  const char* name;
  void (*take)(Environment& env, const char* value);  // value: nullptr when unset
};

void text(std::string& field, const char* value) { field = value != nullptr ? value : ""; }
void present(std::optional<std::string>& field, const char* value) {
  if (value != nullptr) field = value;
}
void number(uint64_t& field, const char* value) {
  if (value != nullptr && *value != '\0') field = std::strtoull(value, nullptr, 10);
}

constexpr Variable kVariables[] = {
    {"FABPERF_LIBFABRIC", [](Environment& e, const char* v) { text(e.libfabric, v); }},
    {"FABPERF_LIBPMIX", [](Environment& e, const char* v) { text(e.libpmix, v); }},
    {"FABPERF_GPU_RUNTIME", [](Environment& e, const char* v) { text(e.gpu_runtime, v); }},
    {"FABPERF_SYSFS_ROOT", [](Environment& e, const char* v) { text(e.sysfs_root, v); }},
    {"FABPERF_HWMON_ROOT", [](Environment& e, const char* v) { text(e.hwmon_root, v); }},
    {"SLINGSHOT_VNIS", [](Environment& e, const char* v) { text(e.slingshot_vnis, v); }},
    {"PMIX_RANK", [](Environment& e, const char* v) { present(e.pmix_rank, v); }},
    {"PMIX_NAMESPACE", [](Environment& e, const char* v) { present(e.pmix_namespace, v); }},
    {"PMI_RANK", [](Environment& e, const char* v) { present(e.pmi_rank, v); }},
    {"PMI_FD", [](Environment& e, const char* v) { present(e.pmi_fd, v); }},
    {"SLURM_PROCID", [](Environment& e, const char* v) { present(e.slurm_procid, v); }},
    {"SLURM_STEP_ID", [](Environment& e, const char* v) { present(e.slurm_step_id, v); }},
    {"OMPI_COMM_WORLD_RANK", [](Environment& e, const char* v) { present(e.ompi_rank, v); }},
    {"FABPERF_TEST_STALL_MS", [](Environment& e, const char* v) { number(e.test_stall_ms, v); }},
    {"FABPERF_TEST_STALL_AT", [](Environment& e, const char* v) { number(e.test_stall_at, v); }},
    {"FABPERF_TEST_STUCK_CALL_AFTER",
     [](Environment& e, const char* v) { number(e.test_stuck_call_after, v); }},
};

const Environment* current = nullptr;  // an override's, else nullptr

}  // namespace

Environment Environment::read(const std::function<const char*(const char*)>& get) {
  Environment env;
  for (const Variable& v : kVariables) v.take(env, get(v.name));
  return env;
}

const std::vector<std::string>& Environment::names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const Variable& v : kVariables) out.push_back(v.name);
    return out;
  }();
  return names;
}

const Environment& environment() {
  if (current != nullptr) return *current;
  static const Environment process =
      Environment::read([](const char* name) { return std::getenv(name); });
  return process;
}

EnvironmentOverride::EnvironmentOverride(Environment replacement)
    : previous_(current), replacement_(std::move(replacement)) {
  current = &replacement_;
}

EnvironmentOverride::~EnvironmentOverride() { current = previous_; }

}  // namespace fabperf
