// Atomic fabric tests: latency and rate of any op/type, qperf's message-rate and ver_* tests.
#include <rdma/fi_atomic.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "engine/latency_loop.h"
#include "fabric/atomic_ops.h"
#include "fabric/roles.h"
#include "fabric/run_support.h"
#include "fabric/session.h"
#include "fabric/window_defaults.h"

namespace fabperf {

namespace {

// Opens the session and checks, on this side's domain, that the provider takes the atomic.
Result<std::unique_ptr<FabricSession>> open_atomic(TestContext& ctx, fi_ep_type type,
                                                   const AtomicSpec& spec, size_t window,
                                                   bool latency) {
  auto session =
      FabricSession::establish(ctx, atomic_needs(type, window, latency && !spec.fetching()));
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  FP_RETURN_IF_ERROR(check_provider_atomic(f.link.endpoint->domain(), spec, f.link.provider()));
  if (spec.fetching() && f.link.provider().find("ofi_rxd") != std::string::npos &&
      fi_version() <= FI_VERSION(1, 17)) {
    // Seen here: the target segfaults inside libfabric 1.17's ofi_rxd on any fetching atomic.
    return Status::unsupported("fetching atomics crash libfabric " +
                               std::to_string(FI_MAJOR(fi_version())) + "." +
                               std::to_string(FI_MINOR(fi_version())) +
                               "'s ofi_rxd provider; use non-fetching atomics or another provider");
  }
  f.ctx.stats.info["atomic"] = spec.describe() + " " + spec.type_name;
  f.ctx.stats.info["atomic_targets"] =
      std::to_string(f.mem.atomic_slots()) + " 64-byte slots, operands changed every operation";
  return session;
}

// Operation `iteration`'s operands (atomic_operands) into its slot, written through the
// session (the buffers may be in GPU memory). Operations in flight have their own slots.
bool set_operands(FabricSession& f, const AtomicSpec& spec, uint32_t slot, uint64_t iteration) {
  AtomicOperands values = atomic_operands(spec, iteration);
  uint8_t operand[16] = {}, compare[16] = {};
  store_atomic_value(spec.type, values.operand, operand);
  store_atomic_value(spec.type, values.compare, compare);
  return f.mem.put(f.mem.atomic_operand(slot), operand, spec.type_size) &&
         (spec.form != AtomicForm::kCompare ||
          f.mem.put(f.mem.atomic_compare(slot), compare, spec.type_size));
}

// Who writes a post's operands: post_atomic before each post, nobody (each slot's were written
// once: they never change, atomic_operands_vary), or the caller, into the slot it names.
enum class Operands { kEachPost, kWrittenOnce, kByCaller };

// Where one test's atomics go, looked up once when it starts: the endpoint, the peer, the key,
// the descriptor, the op, a list's flags, and per slot (a context's own) its operand, compare and
// result words and its target at the peer. A post then loads what it passes. Looked up through the
// session's layers for every post, it was some sixty more instructions and two 64-bit
// divides a post, and over shm the initiator's work between posts costs the row several
// times its own time (bench/README.md, "rdm_atomic_bw over shm: fabperf's own work").
struct AtomicRoute {
  struct Slot {
    void* operand;
    void* compare;
    void* result;
    uint64_t target;
  };
  AtomicRoute(FabricSession& f, const AtomicSpec& spec)
      : ep(f.link.ep()),
        peer(f.link.peer),
        key(f.mem.remote_key()),
        desc(f.mem.desc()),
        type(spec.type),
        op(spec.op),
        more_flags(f.link.more_flags()) {
    // Every context's slot, wrapped where the session has fewer (as SessionMemory wraps).
    const size_t count = std::max<size_t>(1, f.cq.tx_pool.capacity());
    slots.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      slots.push_back({f.mem.atomic_operand(i), f.mem.atomic_compare(i), f.mem.atomic_result(i),
                       f.mem.remote_atomic(i)});
    }
  }
  // One post of the form kForm, chosen once for a run (with_atomic_form), not per post: a switch
  // and a call a post were some fourteen of the atomics' own instructions over the floor's.
  template <AtomicForm kForm>
  [[gnu::always_inline]] ssize_t post(const Slot& s, OpContext* c) const {
    if constexpr (kForm == AtomicForm::kBase) {
      return fi_atomic(ep, s.operand, 1, desc, peer, s.target, key, type, op, c);
    } else if constexpr (kForm == AtomicForm::kFetch) {
      return fi_fetch_atomic(ep, s.operand, 1, desc, s.result, desc, peer, s.target, key, type, op,
                             c);
    } else {
      return fi_compare_atomic(ep, s.operand, 1, desc, s.compare, desc, s.result, desc, peer,
                               s.target, key, type, op, c);
    }
  }
  // The same through fi_atomicmsg, fi_fetch_atomicmsg or fi_compare_atomicmsg with FI_MORE:
  // a list's operation that another follows at once (run_window's list.more_follows), so the
  // provider may wait for the list's last to ring.
  template <AtomicForm kForm>
  ssize_t post_more(const Slot& s, OpContext* c) const {
    void* d = desc;
    fi_ioc operand{s.operand, 1};
    fi_ioc compare{s.compare, 1};
    fi_ioc result{s.result, 1};
    fi_rma_ioc target{s.target, 1, key};
    fi_msg_atomic msg{};
    address_one_sided_msg(msg, &operand, &d, peer, &target, c);
    msg.datatype = type;
    msg.op = op;
    if constexpr (kForm == AtomicForm::kBase) {
      return fi_atomicmsg(ep, &msg, more_flags);
    } else if constexpr (kForm == AtomicForm::kFetch) {
      return fi_fetch_atomicmsg(ep, &msg, &result, &d, 1, more_flags);
    } else {
      return fi_compare_atomicmsg(ep, &msg, &compare, &d, 1, &result, &d, 1, more_flags);
    }
  }

  fid_ep* ep;
  fi_addr_t peer;
  uint64_t key;
  void* desc;
  fi_datatype type;
  fi_op op;
  uint64_t more_flags;  // a *msg post's (SessionLink::more_flags)
  std::vector<Slot> slots;
};

template <AtomicForm kForm>
using AtomicFormTag = std::integral_constant<AtomicForm, kForm>;

// Calls fn with the run's form as a type (AtomicFormTag), so that what fn compiles posts that
// one form with no switch: the form is looked at once, here, not on every post.
template <typename Fn>
decltype(auto) with_atomic_form(AtomicForm form, Fn&& fn) {
  switch (form) {
    case AtomicForm::kFetch:
      return fn(AtomicFormTag<AtomicForm::kFetch>{});
    case AtomicForm::kCompare:
      return fn(AtomicFormTag<AtomicForm::kCompare>{});
    case AtomicForm::kBase:
      break;
  }
  return fn(AtomicFormTag<AtomicForm::kBase>{});
}

// Operation `iteration`: its own operands, its own target slot at the peer (`slot`, where
// the caller wrote them; otherwise its context's own). `list`: the post's place in a
// --bw_method list (run_window's PostList; nullptr outside one). `on` is the test's
// completion handler, inlined into the retry loop (a template, as everywhere on the hot
// path). Inlined into the window loop, as the RMA posts are (bench/README.md, "The window
// loop's own work").
// kForm is spec.form (with_atomic_form); kOperands says who writes the operands.
template <AtomicForm kForm, Operands kOperands, typename On>
[[gnu::always_inline]] inline bool post_atomic(FabricSession& f, const AtomicSpec& spec,
                                               const AtomicRoute& route, uint32_t slot,
                                               uint64_t iteration, On&& on, PostList* list) {
  // A window never asks for more contexts than the pool holds; should one ever, the post
  // waits for a completion rather than post without a context.
  // In flight at once, operations never share operands or results: the context's own slot
  // (a provider may complete them out of order), where the caller names none.
  OpContext* c = f.cq.context(f.cq.tx_pool,
                              kOperands == Operands::kByCaller ? slot : ContextPool::kOwnSlot, on);
  if (c == nullptr) return false;
  slot = c->slot;
  if constexpr (kOperands == Operands::kEachPost) {
    if (!set_operands(f, spec, slot, iteration)) return false;
  }
  if (slot >= route.slots.size()) [[unlikely]] {  // the route holds every context's slot
    return f.fail(Status::failed("internal: atomic slot " + std::to_string(slot) +
                                 " outside the run's " + std::to_string(route.slots.size())));
  }
  const AtomicRoute::Slot* s = &route.slots[slot];
  return f.cq.post(
      "fi_atomic",
      // By value (but the route): the out-of-line retry takes the lambda by reference, and
      // captured references would keep these in memory on every post.
      [=, &route](bool more) -> ssize_t {
        return more ? route.post_more<kForm>(*s, c) : route.post<kForm>(*s, c);
      },
      on, list);
}

// One atomic of spec's form outside a list, its operands written by the caller into `slot`: the
// latency tests' post, one operation at a time.
template <typename On>
bool post_atomic_at(FabricSession& f, const AtomicSpec& spec, const AtomicRoute& route,
                    uint32_t slot, uint64_t iteration, On&& on) {
  return with_atomic_form(spec.form, [&](auto form) {
    return post_atomic<decltype(form)::value, Operands::kByCaller>(f, spec, route, slot, iteration,
                                                                   on, nullptr);
  });
}

// Keeps `window` atomics in flight for the test time or count (rate tests); both sides at
// once when `bidirectional`.
Status atomic_rate(TestContext& ctx, fi_ep_type type, const AtomicSpec& spec, size_t window,
                   bool bidirectional = false) {
  auto session = open_atomic(ctx, type, spec, window, false);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  WindowRun run;
  run.op_bytes = spec.type_size;  // as send_bytes counts them below
  run.lists = ctx.opts.bw_method == "lists";
  auto on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c != nullptr) tx_completed(f, run, c);
    return true;
  };
  // Operands that never change are written into every slot once, not before every post: over
  // shm the initiator's work between posts costs the row several times its own time
  // (bench/README.md, "rdm_atomic_bw over shm: the target's pace").
  const bool written_once = !atomic_operands_vary(spec);
  if (written_once) {
    for (size_t slot = 0; slot < f.cq.tx_pool.capacity(); ++slot) {
      if (!set_operands(f, spec, static_cast<uint32_t>(slot), 0)) return f.status();
    }
    ctx.stats.info["atomic_targets"] =
        std::to_string(f.mem.atomic_slots()) + " 64-byte slots, operands the same every operation";
  }
  const AtomicRoute route(f, spec);
  // Runs `loop` (run_window or run_both_ways) with a post function compiled for this run's
  // form and operands: each post takes its context's own slot (post_atomic), and neither choice
  // is looked at again on the way.
  auto with_post_one = [&](auto&& loop) -> Status {
    return with_atomic_form(spec.form, [&](auto form) -> Status {
      constexpr AtomicForm kForm = decltype(form)::value;
      if (written_once) {
        return loop([&](uint64_t index, PostList* list) {
          return post_atomic<kForm, Operands::kWrittenOnce>(f, spec, route, 0, index, on, list);
        });
      }
      return loop([&](uint64_t index, PostList* list) {
        return post_atomic<kForm, Operands::kEachPost>(f, spec, route, 0, index, on, list);
      });
    });
  };
  if (bidirectional) {
    return with_post_one([&](auto&& post_one) {
      return run_both_ways(f, window, run, spec.type_size, post_one, on);
    });
  }
  // Both sides name the target's pace (-v, JSON); the server keeps it.
  const TargetPace pace = announce_target_pace(f, WindowedOp::kAtomic);
  if (ctx.role == Role::kServer) {
    FP_RETURN_IF_ERROR(passive_start(f, run, on));
    FP_RETURN_IF_ERROR(serve_target(f, on, pace.gap_ns).status());
    return f.sync.send_done({{"served", true}});
  }
  run.barrier = run.lists;
  FP_RETURN_IF_ERROR(
      with_post_one([&](auto&& post_one) { return run_window(f, window, run, post_one, on); }));
  ctx.mark_end();
  uint64_t measured = run.measured(f.sync.warmup);
  ctx.stats.send_msgs = measured;
  ctx.stats.send_bytes = measured * spec.type_size;
  ctx.stats.send_time_ns = run.last_completion_ns - run.start_ns;
  FP_RETURN_IF_ERROR(finish_client(f, {{"sent", run.posted}}, on).status());
  if (run.lists) ctx.stats.send_time_ns = lists_time_ns(run, ctx);
  return Status::success();
}

// qperf's ver_* tests: one atomic at a time on a word starting at 0, so operation i must
// return i; the server checks the final word against the client's count.
Status atomic_sequence(TestContext& ctx, fi_ep_type type, bool compare_swap) {
  auto spec = make_atomic_spec(compare_swap ? "CSWAP" : "SUM", "UINT64", "EQ", true);
  if (!spec.ok()) return spec.status();
  auto session = open_atomic(ctx, type, *spec, 1, false);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  bool done_op = false;
  auto on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c == nullptr) return true;
    f.cq.tx_pool.release(c);
    done_op = true;
    return true;
  };
  if (ctx.role == Role::kServer) {
    auto msg = serve_target(f, on);
    if (!msg.ok()) return msg.status();
    uint64_t expected = msg->value("sent", uint64_t{0});
    uint64_t word = 0;
    if (!f.mem.get(&word, f.mem.atomic_target(), sizeof(word))) return f.status();
    ctx.stats.verify_checked++;
    if (word != expected) ctx.stats.verify_errors++;
    return f.sync.send_done({{"final", word}});
  }
  // Operation i must return i: warm-up operations are part of the sequence, and the run's
  // count and time start after them (run_latency_loop).
  uint64_t sent = 0;
  const AtomicRoute route(f, *spec);
  auto once = [&](uint64_t iter, int64_t t0, const SampleClock& clock) -> Result<Sample> {
    // CSWAP: compare with the expected value, swap in the next; SUM: add one.
    uint64_t compare = iter, next = iter + 1, add = 1;
    uint64_t poison = ~iter;
    if (!f.mem.put(f.mem.atomic_compare(), &compare, sizeof(compare)) ||
        !f.mem.put(f.mem.atomic_operand(), compare_swap ? &next : &add, sizeof(next)) ||
        !f.mem.put(f.mem.atomic_result(0), &poison, sizeof(poison))) {
      return f.status();
    }
    done_op = false;
    // One operation at a time: no list.
    if (!post_atomic_at(f, *spec, route, 0, iter, on) || !wait_for(
                                                             f, [&] { return done_op; }, on)) {
      return f.status();
    }
    uint64_t old = 0;
    if (!f.mem.get(&old, f.mem.atomic_result(0), sizeof(old))) return f.status();
    ctx.stats.verify_checked++;
    if (old != iter) ctx.stats.verify_errors++;
    if (iter >= f.sync.warmup) {
      ctx.stats.send_msgs++;
      ctx.stats.send_bytes += sizeof(uint64_t);
    }
    ++sent;
    return Sample{clock.now() - t0, false};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  ctx.stats.send_time_ns = ctx.stats.real_time_ns;
  return finish_client(f, {{"sent", sent}}, on).status();
}

}  // namespace

SessionNeeds atomic_needs(fi_ep_type type, size_t window, bool delivery_complete) {
  return {.ep_type = type,
          .caps = FI_ATOMIC,
          .delivery_complete = delivery_complete,
          .tx_window = window,
          .atomic = true};
}

Status atomic_lat(TestContext& ctx, fi_ep_type type) {
  auto spec = atomic_spec_from_options(ctx.opts);
  if (!spec.ok()) return spec.status();
  auto session = open_atomic(ctx, type, *spec, 1, true);
  if (!session.ok()) return session.status();
  FabricSession& f = **session;
  bool done_op = false;
  auto on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<OpContext*>(e.op_context);
    if (c == nullptr) return true;
    f.cq.tx_pool.release(c);
    done_op = true;
    return true;
  };
  if (ctx.role == Role::kServer) {
    FP_RETURN_IF_ERROR(serve_target(f, on).status());
    return f.sync.send_done({{"served", true}});
  }
  ctx.latency.set_scale(1.0);  // issue to completion, not half a round trip
  uint64_t sent = 0;
  const AtomicRoute route(f, *spec);
  auto once = [&](uint64_t iter, int64_t, const SampleClock& clock) -> Result<Sample> {
    done_op = false;
    if (!set_operands(f, *spec, 0, iter)) return f.status();  // before the clock starts
    // One operation at a time: no list.
    int64_t t0 = clock.now();
    if (!post_atomic_at(f, *spec, route, 0, iter, on) || !wait_for(
                                                             f, [&] { return done_op; }, on)) {
      return f.status();
    }
    int64_t t1 = clock.now();
    if (iter >= f.sync.warmup) {
      ctx.stats.send_msgs++;
      ctx.stats.send_bytes += spec->type_size;
    }
    ++sent;
    return Sample{t1 - t0, false};
  };
  FP_RETURN_IF_ERROR(run_latency_loop(ctx, once, f.sync.peer_check()));
  return finish_client(f, {{"sent", sent}}, on).status();
}

Status atomic_bw(TestContext& ctx, fi_ep_type type, bool bidirectional) {
  auto spec = atomic_spec_from_options(ctx.opts);
  if (!spec.ok()) return spec.status();
  size_t window = ctx.opts.tx_depth;
  if (spec->fetching()) window = std::min(window, ctx.opts.rd_atomic);
  return atomic_rate(ctx, type, *spec, window, bidirectional);
}

Status compare_swap_rate(TestContext& ctx, fi_ep_type type) {
  auto spec = make_atomic_spec("CSWAP", "UINT64", "EQ", true);
  size_t window = std::min(ctx.opts.tx_depth, ctx.opts.rd_atomic);
  return spec.ok() ? atomic_rate(ctx, type, *spec, window) : spec.status();
}

Status fetch_add_rate(TestContext& ctx, fi_ep_type type) {
  auto spec = make_atomic_spec("SUM", "UINT64", "EQ", true);
  size_t window = std::min(ctx.opts.tx_depth, ctx.opts.rd_atomic);
  return spec.ok() ? atomic_rate(ctx, type, *spec, window) : spec.status();
}

Status verify_compare_swap(TestContext& ctx, fi_ep_type type) {
  return atomic_sequence(ctx, type, true);
}

Status verify_fetch_add(TestContext& ctx, fi_ep_type type) {
  return atomic_sequence(ctx, type, false);
}

}  // namespace fabperf
