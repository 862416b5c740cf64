#include "core/operation_meter.h"

namespace fabperf {

namespace {
std::atomic<std::atomic<uint64_t>*> g_meter{nullptr};
}  // namespace

void set_operation_meter(std::atomic<uint64_t>* meter) { g_meter.store(meter); }

std::atomic<uint64_t>* operation_meter() { return g_meter.load(std::memory_order_relaxed); }

}  // namespace fabperf
