// The window and inject size of the fabric bandwidth tests (rdm_send_bw, rdm_write_bw, their
// two-way, rc_* and fab_* spellings) on each provider, where --tx_depth is not given: measured
// against the bare libfabric floor (bench/fabric_floor.h, bench/README.md), not one constant.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fabperf {

// What a windowed bandwidth test posts (kRead: rdm_read_bw, whose window is --rd_atomic's;
// only its target's pace is looked up).
enum class WindowedOp { kSend, kWrite, kRead, kAtomic };

// The window a run keeps in flight and the largest message it injects (fi_inject: copied at
// once, no completion; 0: none), with where they came from, for -v and JSON.
struct WindowChoice {
  size_t window = 128;
  size_t inject_max = 0;
  std::string why;
};

// The provider's default for `op` at `msg_size` (a provider the table does not name takes
// fabperf's long-standing 128 and no inject), or `tx_depth` where the user gave it.
WindowChoice window_choice(const std::string& provider, WindowedOp op, uint64_t msg_size,
                           bool tx_depth_given, uint64_t tx_depth);

// How often the passive side of a one-sided bandwidth run (the target of rdm_atomic_bw and
// its fetching forms, of rdm_read_bw and of rdm_write_bw) calls into the provider: every
// gap_ns, 0 as often as it can. Over shm each progress call and each of the initiator's posts
// take the same lock in the target's region, and a target that polls without pause takes it
// away from the posts.
struct TargetPace {
  int64_t gap_ns = 0;
  std::string why;
};
TargetPace target_pace(const std::string& provider, WindowedOp op);

}  // namespace fabperf
