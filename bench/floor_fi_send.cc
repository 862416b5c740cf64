// The send floor: fabperf's rdm_send_lat / rc_lat (a ping-pong: two receives posted, fi_inject
// up to the inject size, else fi_send) and rdm_send_bw / rc_bw (a window of fi_send in flight,
// the receiver with a window of receives posted and counting; with lists=1, fab_send_bw's
// lists, each answered by the receiver) in libfabric's calls alone.
// Usage and output: bench/fabric_floor.h.
#include <functional>

#include "fabric_floor.h"

namespace {

using ff::Side;

size_t index_of(const Side& s, const fi_cq_data_entry& e) {
  return static_cast<size_t>(static_cast<fi_context2*>(e.op_context) - s.ctx.data());
}

using Handler = std::function<void(const fi_cq_data_entry&)>;

void post_recv(Side& s, size_t i, const Handler& on) {
  ff::post(
      s, "fi_recv", [&] { return fi_recv(s.ep, s.rx(i), s.cfg.size, s.desc, s.peer, &s.ctx[i]); },
      on);
}

// One send of tx slot `slot` with context `c` (nullptr: injected), FI_MORE if `more`.
ssize_t send_one(Side& s, size_t slot, fi_context2* c, bool more) {
  if (c == nullptr) return fi_inject(s.ep, s.tx(slot), s.cfg.size, s.peer);
  if (!more) return fi_send(s.ep, s.tx(slot), s.cfg.size, s.desc, s.peer, c);
  iovec iov{s.tx(slot), s.cfg.size};
  void* desc = s.desc;
  fi_msg msg{&iov, &desc, 1, s.peer, c, 0};
  return fi_sendmsg(s.ep, &msg, FI_MORE);
}

// Contexts: 0..1 the receives, 2..5 the sends (the server echoes from a ring of four, as
// fabperf's ping-pong server keeps four in flight).
void pingpong(Side& s) {
  ff::register_memory(s, ff::layout_of(s.cfg.size, 1, 2, 0));
  ff::finish_setup(s, 6);
  const bool inject = s.cfg.size <= s.inject_size;
  bool got_rx = false, got_tx = false;
  size_t next = 0;
  const bool late = s.client && s.cfg.late_repost;
  constexpr size_t kNone = ~size_t{0};
  size_t repost = kNone;  // the reply's receive, posted after the next send (repost=early: before)
  Handler on;
  on = [&](const fi_cq_data_entry& e) {
    size_t i = index_of(s, e);
    if (i >= 2) {
      got_tx = true;
      return;
    }
    got_rx = true;
    if (!s.client) {
      fi_context2* c = inject ? nullptr : &s.ctx[2 + next++ % 4];
      ff::post(
          s, "send", [&] { return send_one(s, 0, c, false); }, on);
    }
    if (late) {
      repost = i;
    } else {
      post_recv(s, i, on);
    }
  };
  post_recv(s, 0, on);
  post_recv(s, 1, on);
  uint64_t done = 1;
  ff::put(s.ctl, &done, sizeof done);  // both sides' receives are posted
  ff::get(s.ctl, &done, sizeof done);
  if (!s.client) {
    ff::serve_until_word(s, on);
    return;
  }
  const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
  int64_t start = 0, now = 0, sampled = 0;
  uint64_t iters = 0;
  for (uint64_t i = 0;; ++i) {
    if (i == s.cfg.warmup) start = ff::now_ns();
    got_rx = false;
    got_tx = inject;
    const int64_t t0 = s.cfg.sample_clock ? ff::now_ns() : 0;
    ff::post(
        s, "send", [&] { return send_one(s, 0, inject ? nullptr : &s.ctx[2], false); }, on);
    if (repost != kNone) {
      const size_t slot = repost;
      repost = kNone;
      post_recv(s, slot, on);
    }
    while (!got_rx || !got_tx) ff::poll(s, on);
    if (s.cfg.sample_clock && i >= s.cfg.warmup) sampled += ff::now_ns() - t0;
    if (i >= s.cfg.warmup && (i - s.cfg.warmup) % 16 == 15) {
      now = ff::now_ns();
      iters = i - s.cfg.warmup + 1;
      if (now - start >= limit) break;
    }
  }
  ff::put(s.ctl, &done, sizeof done);
  ff::Result r;
  r.ops = iters;
  r.mean_ns = static_cast<double>(s.cfg.sample_clock ? sampled : now - start) /
              static_cast<double>(iters) / 2;
  ff::print(s, r, 1);
}

void stream(Side& s) {
  const size_t window = ff::capped_window(s, s.cfg.window);
  if (s.client) {
    ff::register_memory(s, ff::layout_of(s.cfg.size, window, 1, 0));
  } else {
    ff::register_memory(s, ff::layout_of(s.cfg.size, 1, window, 0));
  }
  // With lists, one more context: the sender's receive of the answers.
  ff::finish_setup(s, window + (s.cfg.lists ? 1 : 0));
  static const char kAnswer = 0;  // never read: answers carry no bytes
  if (!s.client) {
    size_t posted = window;
    if (s.info->rx_attr != nullptr && s.info->rx_attr->size > 0) {
      posted = std::min(posted, s.info->rx_attr->size);
    }
    uint64_t received = 0;
    int64_t first = 0, last = 0;
    Handler on;
    on = [&](const fi_cq_data_entry& e) {
      ++received;
      post_recv(s, index_of(s, e), on);
      // A whole list arrived: answer it, as fabperf's receiver of lists does.
      if (s.cfg.lists && received % window == 0) {
        ff::post(
            s, "fi_inject", [&] { return fi_inject(s.ep, &kAnswer, 0, s.peer); }, on);
      }
    };
    for (size_t i = 0; i < posted; ++i) post_recv(s, i, on);
    uint64_t ready = 1;
    ff::put(s.ctl, &ready, sizeof ready);
    // With no warm-up (fabperf's lists, as the CXI tools' bandwidth runs have none) the time
    // counts from here, the receiver's start barrier, as fabperf's lists_time_ns: what the
    // first messages cost (tcp;ofi_rxm connects on the first) is in it.
    if (s.cfg.warmup == 0) first = ff::now_ns();
    // Injected sends have no window: the sender runs ahead of this side by as much as the
    // provider queues (udp;ofi_rxd: minutes of backlog at 64 B), so the count stops at the
    // run's time from the warm-up, and what is still queued then is dropped at the close.
    const bool bounded =
        s.cfg.size <=
        std::min<size_t>(s.info->tx_attr != nullptr ? s.info->tx_attr->inject_size : 0,
                         static_cast<size_t>(std::max<long>(0, s.cfg.inject)));
    const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
    uint64_t counted = 0;
    int64_t counted_last = 0;
    // The clock is read once per poll that brought something, not per message.
    auto timed = [&](uint64_t until, bool until_word) -> uint64_t {
      for (uint32_t polls = 1;; ++polls) {
        uint64_t before = received;
        if (ff::poll(s, on) > 0) {
          last = ff::now_ns();
          if (before < s.cfg.warmup && received >= s.cfg.warmup) first = last;
          if (first == 0 || last - first <= limit) {
            counted = received;
            counted_last = last;
          }
        }
        if (!until_word && received >= until) return 0;
        if (until_word && polls % 1024 == 0 && ff::waiting(s.ctl)) {
          uint64_t word = 0;
          ff::get(s.ctl, &word, sizeof word);
          return word;
        }
      }
    };
    uint64_t sent = timed(0, true);
    if (bounded) {
      received = counted;
      last = counted_last;
    } else {
      timed(sent, false);
    }
    uint64_t result[2] = {(received - s.cfg.warmup) * s.cfg.size,
                          static_cast<uint64_t>(last - first)};
    ff::put(s.ctl, result, sizeof result);
    return;
  }
  uint64_t ready = 0;
  ff::get(s.ctl, &ready, sizeof ready);
  const bool inject = s.cfg.size <= s.inject_size;
  std::vector<fi_context2*> free_ctx;
  for (size_t i = 0; i < window; ++i) free_ctx.push_back(&s.ctx[i]);
  fi_context2* const answer_ctx = s.cfg.lists ? &s.ctx[window] : nullptr;
  uint64_t completed = 0, answers = 0;
  std::function<void(const fi_cq_data_entry&)> on;
  auto post_answer_recv = [&] {
    ff::post(
        s, "fi_recv",
        [&] { return fi_recv(s.ep, s.rx(0), s.cfg.size, s.desc, s.peer, answer_ctx); }, on);
  };
  on = [&](const fi_cq_data_entry& e) {
    auto* c = static_cast<fi_context2*>(e.op_context);
    if (c == answer_ctx) {
      ++answers;
      post_answer_recv();
      return;
    }
    free_ctx.push_back(c);
    ++completed;
  };
  // The run's time counts from the warm-up's completion, as fabperf's measured phase.
  const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
  int64_t start = 0;
  uint64_t posted = 0;
  if (s.cfg.lists) {
    post_answer_recv();
    // A list: `window` sends, all completed, then the receiver's answer.
    for (uint64_t list = 1;; ++list) {
      for (size_t k = 0; k < window; ++k) {
        fi_context2* c = free_ctx.back();
        free_ctx.pop_back();
        ff::post(
            s, "fi_send", [&] { return send_one(s, posted, c, s.cfg.more && k + 1 < window); }, on);
        ++posted;
      }
      while (completed < posted || answers < list) ff::poll(s, on);
      if (start == 0 && completed >= s.cfg.warmup) start = ff::now_ns();
      if (start != 0 && ff::now_ns() - start >= limit) break;
    }
  } else {
    for (uint32_t pass = 1;; ++pass) {
      if (start == 0 && (inject ? posted : completed) >= s.cfg.warmup) start = ff::now_ns();
      if (inject) {
        while (fi_inject(s.ep, s.tx(posted), s.cfg.size, s.peer) == 0) {
          if (++posted % 64 == 0) break;
        }
      } else {
        size_t burst = free_ctx.size();
        for (size_t k = 0; k < burst; ++k) {
          fi_context2* c = free_ctx.back();
          ssize_t ret = send_one(s, posted, c, s.cfg.more && k + 1 < burst);
          if (ret == -FI_EAGAIN) break;
          if (ret != 0) ff::die("fi_send", ret);
          free_ctx.pop_back();
          ++posted;
        }
      }
      ff::poll(s, on);
      if (pass % 64 == 0 && start != 0 && ff::now_ns() - start >= limit) break;
    }
  }
  while (free_ctx.size() < window) ff::poll(s, on);
  ff::put(s.ctl, &posted, sizeof posted);
  uint64_t result[2];
  ff::get(s.ctl, result, sizeof result);
  ff::Result r;
  r.ops = posted;
  r.recv_Bps = result[1] > 0 ? static_cast<double>(result[0]) * 1e9 / result[1] : 0;
  ff::print(s, r, inject ? 0 : window);
}

}  // namespace

int main(int argc, char** argv) {
  ff::Config cfg = ff::parse(argc, argv, "default", "default");
  // fabperf's streams never inject; its ping-pongs inject up to the provider's size.
  if (cfg.bw && cfg.inject < 0) cfg.inject = 0;
  return ff::run_pair(cfg, FI_MSG, [](Side& s) {
    ff::open_side(s);
    if (s.cfg.bw) {
      stream(s);
    } else {
      pingpong(s);
    }
  });
}
