// Completions: the operation contexts, the stall watch and the stuck-call watch.
#include "fabric/completions.h"

#include <cstdlib>

#include "core/environment.h"

namespace fabperf {

void ContextPool::init(OpKind kind, size_t count) {
  contexts_.assign(count, OpContext{});
  free_.assign(count, 0);
  capacity_ = count;
  free_count_ = count;
  peak_ = 0;
  // Taken from the back: context 0 first.
  for (size_t i = 0; i < count; ++i) {
    contexts_[i].kind = kind;
    contexts_[i].index = static_cast<uint32_t>(i);
    free_[count - 1 - i] = static_cast<uint32_t>(i);
  }
}

void Completions::watch_calls() {
  if (ctx_.role != Role::kClient || !ctx_.on_stuck) return;
  signals_off_table_.emplace();
  stuck_watch_ = std::make_unique<StuckCallWatch>(ctx_.timeout_s(), ctx_.on_stuck);
  // Test hook: FABPERF_TEST_STUCK_CALL_AFTER=N, the client spins for good in a provider call
  // once N have returned (StuckCallWatch::spin_inside_call_after). Unset in normal use.
  stuck_watch_->spin_inside_call_after(environment().test_stuck_call_after);
}

void Completions::attach(FabricEndpoint& endpoint, const std::string& provider, size_t tx_window,
                         size_t rx_window, int64_t now) {
  endpoint_ = &endpoint;
  provider_ = provider;
  tx_pool.init(OpKind::kTx, tx_window);
  rx_pool.init(OpKind::kRx, rx_window);
  last_progress_ns_ = now;
}

bool Completions::not_stalled(int64_t now) {
  if (now - last_progress_ns(now) <= static_cast<int64_t>(ctx_.timeout_s() * 1e9)) return true;
  return error_.fail(Status::timeout("no completion from provider " + provider_ + " for " +
                                     std::to_string(ctx_.timeout_s()) + " s (peer gone?)"));
}

}  // namespace fabperf
