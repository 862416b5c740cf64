// A process-wide count of completed fabric operations, for a tool that watches a run while it
// goes: fab_heatsink_check's workers point it at shared memory, and the parent reads each
// interval's rate from it while the traffic runs on without a pause. Off (nullptr) unless set.
#pragma once

#include <atomic>
#include <cstdint>

namespace fabperf {

void set_operation_meter(std::atomic<uint64_t>* meter);
std::atomic<uint64_t>* operation_meter();

}  // namespace fabperf
