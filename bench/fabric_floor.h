// What the bare libfabric floors (floor_fi_send, floor_fi_write, floor_fi_read, floor_fi_atomic)
// share: the arguments, two processes forked from one (a client and a server, each pinned),
// the endpoint, completion queue and memory opened as fabperf opens them (provider/session.cc),
// a control socket pair in place of fabperf's control connection, and the completion poll.
// What a floor measures is the provider at fabperf's settings with none of fabperf's
// bookkeeping; a setting named on the command line moves it one difference at a time.
//
// Usage: floor_fi_OP PROVIDER rdm|msg lat|bw SIZE SECONDS CPU_CLIENT CPU_SERVER [KEY=VALUE...]
//   window=N      operations in flight (bw; fabperf's --tx_depth, 128)
//   inject=N      sends (and writes) of at most N bytes go by fi_inject (capped at the
//                 provider's inject_size; -1, the default: the inject size, fabperf's rule for
//                 ping-pongs; 0: never)
//   completion=   the strongest completion level asked first, falling back as fabperf's
//                 select_fabric does: delivery (then transmit, default), transmit (then
//                 default) or default
//   batch=N       completions per fi_cq_read (fabperf's kCqBatch, 128)
//   more=1        FI_MORE on every post of a refill but its last
//   data=1        (write bw) writes carry remote CQ data and the target counts them
//   warmup=N      operations before the measured phase (fabperf's --warmup, 10); send bw
//                 with 0: timed from the receiver's start, as fabperf's lists (which have no
//                 warm-up, as the CXI tools' bandwidth runs have none)
//   lists=1       (send bw) fabperf's --bw_method lists, the fab_send_bw default: the sender
//                 posts a list of `window` sends, waits for them to complete and for the
//                 receiver's answer (an empty message sent as each list's last one arrives),
//                 then posts the next, as cxi_send_bw waits for its response PUT
//   target_gap=NS (one-sided) the target spins NS ns before each progress call
//   client_work=NS (one-sided bw) the initiator spins NS ns on the clock after each post it
//                 makes (two clock reads at least: about 50 ns on the 2-vCPU guest)
//   client_spin=N (one-sided bw) N iterations of an empty loop after each post (0.3 ns each
//                 on the 2-vCPU guest)
//   refusal_clock=N (one-sided bw) N clock reads after each refused post
//   idle_thread=1 the client runs a second thread that only sleeps, as fabperf's client has
//                 threads beside its loop (the signal thread, the stuck-call watch): while
//                 a process's threads share one descriptor table, each system call on a
//                 descriptor takes and drops a reference on its file (core/private_fds.h),
//                 and glibc's mutexes (libfabric's, in every fi_cq_read over shm) take atomic
//                 instructions, which a process that never had a second thread is spared
//   sample_clock=1 (latency) each operation timed on its own, as fabperf's samples are:
//                 the clock read before the post and after the completion, the mean of those
//                 (the plain floor reads the clock every 16th operation, time over count)
//   repost=early  (send latency) the client posts a reply's receive again before its next
//                 send, as fabperf's ping-pong did up to 45a4893. The default posts it after
//                 that send, as fabperf's does now: the other of its two receives takes the
//                 next reply, so the provider's receive path is out of the round trip
//   order=waw     ask for write-after-write ordering (tx msg_order FI_ORDER_WAW; fabperf asks
//                 for none): libfabric 1.17's shm then leaves its fast RMA path (a
//                 process_vm_writev per write) for commands its target copies
// Prints one JSON line: mean_ns (lat) or recv_Bps (bw), the operations measured, and the
// settings the run took (window, inject_size, completion, batch).
#pragma once

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include "floor_pin.h"

namespace ff {

inline int64_t now_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

[[noreturn]] inline void die(const char* what, long ret) {
  fprintf(stderr, "fabric floor: %s: %s (%ld)\n", what,
          ret < 0 ? fi_strerror(static_cast<int>(-ret)) : "failed", ret);
  exit(1);
}

struct Config {
  std::string provider;
  fi_ep_type ep_type = FI_EP_RDM;
  bool bw = false;
  size_t size = 64;
  double seconds = 1;
  int cpu_client = -1, cpu_server = -1;
  size_t window = 128;
  long inject = -1;
  std::string completion;  // "" = the program's default
  size_t batch = 128;
  bool more = false;
  bool data = false;
  bool lists = false;
  uint64_t warmup = 10;
  uint64_t msg_order = 0;
  uint32_t refusal_clock = 0;
  bool sample_clock = false;
  bool idle_thread = false;
  bool late_repost = true;
  int64_t target_gap_ns = 0;   // one-sided: the target's wait between progress calls
  int64_t client_work_ns = 0;  // one-sided bw: the initiator's spin after each post
  uint32_t client_spin = 0;    // one-sided bw: empty loop iterations after each post
};

// Parses the command line; `completion` is the program's default level (fabperf's for the
// operation and mode).
inline Config parse(int argc, char** argv, const char* lat_completion, const char* bw_completion) {
  if (argc < 8) {
    fprintf(stderr,
            "usage: %s PROVIDER rdm|msg lat|bw SIZE SECONDS CPU_CLIENT CPU_SERVER "
            "[window=N inject=N completion=delivery|transmit|default batch=N more=1 data=1 "
            "lists=1 warmup=N order=waw]\n",
            argv[0]);
    exit(2);
  }
  Config c;
  c.provider = argv[1];
  c.ep_type = std::string(argv[2]) == "msg" ? FI_EP_MSG : FI_EP_RDM;
  c.bw = std::string(argv[3]) == "bw";
  c.size = std::strtoul(argv[4], nullptr, 10);
  c.seconds = std::atof(argv[5]);
  c.cpu_client = std::atoi(argv[6]);
  c.cpu_server = std::atoi(argv[7]);
  for (int i = 8; i < argc; ++i) {
    std::string kv = argv[i];
    size_t eq = kv.find('=');
    std::string k = kv.substr(0, eq), v = eq == std::string::npos ? "" : kv.substr(eq + 1);
    if (k == "window")
      c.window = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "inject")
      c.inject = std::strtol(v.c_str(), nullptr, 10);
    else if (k == "completion")
      c.completion = v;
    else if (k == "batch")
      c.batch = std::max<size_t>(1, std::strtoul(v.c_str(), nullptr, 10));
    else if (k == "more")
      c.more = v == "1";
    else if (k == "data")
      c.data = v == "1";
    else if (k == "lists")
      c.lists = v == "1";
    else if (k == "warmup")
      c.warmup = std::strtoull(v.c_str(), nullptr, 10);
    else if (k == "order")
      c.msg_order = v == "waw" ? FI_ORDER_WAW : 0;
    else if (k == "refusal_clock")
      c.refusal_clock = std::strtoul(v.c_str(), nullptr, 10);
    else if (k == "sample_clock")
      c.sample_clock = v == "1";
    else if (k == "idle_thread")
      c.idle_thread = v == "1";
    else if (k == "repost")
      c.late_repost = v != "early";
    else if (k == "target_gap")
      c.target_gap_ns = std::strtoll(v.c_str(), nullptr, 10);
    else if (k == "client_work")
      c.client_work_ns = std::strtoll(v.c_str(), nullptr, 10);
    else if (k == "client_spin")
      c.client_spin = std::strtoul(v.c_str(), nullptr, 10);
    else {
      fprintf(stderr, "%s: unknown setting %s\n", argv[0], kv.c_str());
      exit(2);
    }
  }
  if (c.completion.empty()) c.completion = c.bw ? bw_completion : lat_completion;
  if (c.window == 0) c.window = 1;
  return c;
}

// The control socket pair: whole fixed-size records.
inline void put(int fd, const void* p, size_t len) {
  const char* b = static_cast<const char*>(p);
  while (len > 0) {
    ssize_t n = write(fd, b, len);
    if (n <= 0) die("control write", -1);
    b += n;
    len -= static_cast<size_t>(n);
  }
}
inline void get(int fd, void* p, size_t len) {
  char* b = static_cast<char*>(p);
  while (len > 0) {
    ssize_t n = read(fd, b, len);
    if (n <= 0) die("control read", -1);
    b += n;
    len -= static_cast<size_t>(n);
  }
}
// Whether a record is waiting (a non-blocking peek), or the peer is gone (the read that
// follows then ends this side).
inline bool waiting(int fd) {
  char c;
  ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT | MSG_PEEK);
  return n == 1 || n == 0;
}
inline void put_bytes(int fd, const std::vector<uint8_t>& v) {
  uint64_t n = v.size();
  put(fd, &n, sizeof n);
  put(fd, v.data(), v.size());
}
inline std::vector<uint8_t> get_bytes(int fd) {
  uint64_t n = 0;
  get(fd, &n, sizeof n);
  std::vector<uint8_t> v(n);
  get(fd, v.data(), n);
  return v;
}

// What a side's buffer holds, as fabperf's BufferLayout: slots of `stride` bytes, tx then rx
// then (atomics) a 64-byte target and 16-byte operand/result per operation in flight,
// message slots halved together until they fit 1 MiB.
struct Layout {
  size_t tx_slots = 1, rx_slots = 1, stride = 64, atomic_slots = 0;
};

// One side of a floor: every libfabric object, the buffer and the peer.
struct Side {
  Config cfg;
  bool client = false;
  int ctl = -1;
  uint64_t caps = FI_MSG;
  fi_info* info = nullptr;
  fid_fabric* fabric = nullptr;
  fid_domain* domain = nullptr;
  fid_eq* eq = nullptr;
  fid_pep* pep = nullptr;
  fid_cq* cq = nullptr;
  fid_av* av = nullptr;
  fid_ep* ep = nullptr;
  fid_mr* mr = nullptr;
  void* desc = nullptr;
  fi_addr_t peer = FI_ADDR_UNSPEC;
  std::string completion;  // the level the provider took
  size_t inject_size = 0;  // what this run injects up to (0: never)
  Layout layout;
  uint8_t* buf = nullptr;
  size_t buf_len = 0;
  uint64_t remote_base = 0, remote_key = 0;
  size_t peer_rx_slots = 1;
  std::vector<fi_context2> ctx;  // one per operation in flight
  std::vector<fi_cq_data_entry> entries;

  uint8_t* tx(size_t i) const { return buf + (i % layout.tx_slots) * layout.stride; }
  uint8_t* rx(size_t i) const {
    return buf + (layout.tx_slots + i % layout.rx_slots) * layout.stride;
  }
  size_t atomic_offset() const { return (layout.tx_slots + layout.rx_slots) * layout.stride; }
  uint8_t* atomic_target(size_t i) const { return buf + atomic_offset() + i * 64; }
  uint8_t* atomic_operand(size_t i) const {
    return buf + atomic_offset() + layout.atomic_slots * 64 + i * 16;
  }
  uint8_t* atomic_result(size_t i) const { return atomic_operand(i) + layout.atomic_slots * 16; }
  uint64_t remote_rx(size_t i) const { return remote_base + (i % peer_rx_slots) * layout.stride; }
  uint64_t remote_atomic(size_t i) const {
    return remote_base + peer_rx_slots * layout.stride + i * 64;
  }
};

inline Layout layout_of(size_t size, size_t tx_slots, size_t rx_slots, size_t atomic_slots) {
  Layout l;
  l.stride = (std::max<size_t>(1, size) + 63) / 64 * 64;
  l.tx_slots = std::max<size_t>(1, tx_slots);
  l.rx_slots = std::max<size_t>(1, rx_slots);
  while ((l.tx_slots + l.rx_slots) * l.stride > (size_t{1} << 20) &&
         (l.tx_slots > 1 || l.rx_slots > 1)) {
    l.tx_slots = (l.tx_slots + 1) / 2;
    l.rx_slots = (l.rx_slots + 1) / 2;
  }
  l.atomic_slots = atomic_slots;
  return l;
}

// fabperf's hints (fabric/provider.cc): the same caps, modes, mr_mode, threading and
// completion level.
inline fi_info* hints_for(const Side& s, uint64_t op_flags) {
  fi_info* h = fi_allocinfo();
  h->caps = s.caps;
  if (s.caps & (FI_RMA | FI_ATOMIC))
    h->caps |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  if (s.caps & FI_MSG) h->caps |= FI_SEND | FI_RECV;
  h->mode = FI_CONTEXT | FI_CONTEXT2 | FI_RX_CQ_DATA;
  h->ep_attr->type = s.cfg.ep_type;
  h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_RAW | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                            FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_MMU_NOTIFY | FI_MR_HMEM;
  h->domain_attr->threading = FI_THREAD_DOMAIN;
  h->tx_attr->op_flags = op_flags;
  h->tx_attr->msg_order = s.cfg.msg_order;
  h->fabric_attr->prov_name = strdup(s.cfg.provider.c_str());
  return h;
}

inline bool ip_format(uint32_t f) {
  return f == FI_SOCKADDR || f == FI_SOCKADDR_IN || f == FI_SOCKADDR_IN6;
}

// fi_getinfo at the strongest level the provider takes, bound to 127.0.0.1 where it speaks IP
// (fabperf binds to its control connection's address).
inline fi_info* choose(Side& s, const std::vector<uint8_t>* dest, uint32_t dest_format) {
  struct Level {
    uint64_t flag;
    const char* name;
  };
  std::vector<Level> levels;
  if (s.cfg.completion == "delivery") levels.push_back({FI_DELIVERY_COMPLETE, "delivery"});
  if (s.cfg.completion != "default") levels.push_back({FI_TRANSMIT_COMPLETE, "transmit"});
  levels.push_back({0, "default"});
  for (const Level& level : levels) {
    fi_info* h = hints_for(s, level.flag);
    fi_info* list = nullptr;
    int ret;
    if (dest != nullptr) {
      h->addr_format = dest_format;
      h->dest_addrlen = dest->size();
      h->dest_addr = malloc(dest->size());
      memcpy(h->dest_addr, dest->data(), dest->size());
      ret = fi_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, h, &list);
    } else {
      ret = fi_getinfo(FI_VERSION(1, 17), nullptr, nullptr, 0, h, &list);
      if (ret == 0 && ip_format(list->addr_format)) {
        fi_freeinfo(list);
        list = nullptr;
        ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", nullptr, FI_SOURCE, h, &list);
      }
    }
    fi_freeinfo(h);
    if (ret == -FI_ENODATA) continue;
    if (ret != 0) die("fi_getinfo", ret);
    fi_info* one = fi_dupinfo(list);
    fi_freeinfo(list);
    s.completion = level.name;
    return one;
  }
  die("fi_getinfo: no provider matches", -FI_ENODATA);
}

inline void open_cq(Side& s, fi_info* info) {
  int ret = fi_domain(s.fabric, info, &s.domain, nullptr);
  if (ret) die("fi_domain", ret);
  fi_cq_attr attr{};
  attr.format = FI_CQ_FORMAT_DATA;
  attr.wait_obj = FI_WAIT_NONE;  // busy poll, as the fabric rows run (-cp1)
  ret = fi_cq_open(s.domain, &attr, &s.cq, nullptr);
  if (ret) die("fi_cq_open", ret);
}

inline void open_ep(Side& s, fi_info* info) {
  int ret = fi_endpoint(s.domain, info, &s.ep, nullptr);
  if (ret) die("fi_endpoint", ret);
  if (s.eq != nullptr) {
    ret = fi_ep_bind(s.ep, &s.eq->fid, 0);
    if (ret) die("fi_ep_bind(eq)", ret);
  } else {
    fi_av_attr av_attr{};
    av_attr.type = info->domain_attr->av_type;
    av_attr.count = 4;
    ret = fi_av_open(s.domain, &av_attr, &s.av, nullptr);
    if (ret) die("fi_av_open", ret);
    ret = fi_ep_bind(s.ep, &s.av->fid, 0);
    if (ret) die("fi_ep_bind(av)", ret);
  }
  ret = fi_ep_bind(s.ep, &s.cq->fid, FI_TRANSMIT | FI_RECV);
  if (ret) die("fi_ep_bind(cq)", ret);
  ret = fi_enable(s.ep);
  if (ret) die("fi_enable", ret);
}

inline std::vector<uint8_t> name_of(fid_t fid) {
  std::vector<uint8_t> out(256);
  size_t len = out.size();
  int ret = fi_getname(fid, out.data(), &len);
  if (ret) die("fi_getname", ret);
  out.resize(len);
  return out;
}

inline void wait_event(Side& s, uint32_t wanted, fi_info** connreq) {
  fi_eq_cm_entry entry{};
  uint32_t event = 0;
  int64_t give_up = now_ns() + 10'000'000'000;
  while (true) {
    ssize_t n = fi_eq_read(s.eq, &event, &entry, sizeof entry, 0);
    if (n > 0) break;
    if (n != -FI_EAGAIN) die("fi_eq_read", n);
    if (now_ns() > give_up) die("no connection event", -FI_ETIMEDOUT);
    usleep(100);
  }
  if (event != wanted) die("unexpected connection event", -FI_EOTHER);
  if (connreq != nullptr) *connreq = entry.info;
}

// Opens this side's endpoint and meets the peer: names through the control pair (RDM) or a
// connection (MSG), as fabperf's open_connectionless and open_connected do.
inline void open_side(Side& s) {
  fi_eq_attr eq_attr{};
  eq_attr.size = 16;
  eq_attr.wait_obj = FI_WAIT_NONE;
  if (s.cfg.ep_type != FI_EP_MSG) {
    s.info = choose(s, nullptr, 0);
    int ret = fi_fabric(s.info->fabric_attr, &s.fabric, nullptr);
    if (ret) die("fi_fabric", ret);
    open_cq(s, s.info);
    open_ep(s, s.info);
    put_bytes(s.ctl, name_of(&s.ep->fid));
    std::vector<uint8_t> peer = get_bytes(s.ctl);
    ret = fi_av_insert(s.av, peer.data(), 1, &s.peer, 0, nullptr);
    if (ret != 1) die("fi_av_insert", ret);
    return;
  }
  if (!s.client) {
    s.info = choose(s, nullptr, 0);
    int ret = fi_fabric(s.info->fabric_attr, &s.fabric, nullptr);
    if (ret) die("fi_fabric", ret);
    ret = fi_eq_open(s.fabric, &eq_attr, &s.eq, nullptr);
    if (ret) die("fi_eq_open", ret);
    ret = fi_passive_ep(s.fabric, s.info, &s.pep, nullptr);
    if (ret) die("fi_passive_ep", ret);
    ret = fi_pep_bind(s.pep, &s.eq->fid, 0);
    if (ret) die("fi_pep_bind", ret);
    ret = fi_listen(s.pep);
    if (ret) die("fi_listen", ret);
    put(s.ctl, &s.info->addr_format, sizeof s.info->addr_format);
    put_bytes(s.ctl, name_of(&s.pep->fid));
    fi_info* req = nullptr;
    wait_event(s, FI_CONNREQ, &req);
    open_cq(s, req);
    open_ep(s, req);
    ret = fi_accept(s.ep, nullptr, 0);
    if (ret) die("fi_accept", ret);
    wait_event(s, FI_CONNECTED, nullptr);
    fi_freeinfo(s.info);
    s.info = req;
    return;
  }
  uint32_t format = 0;
  get(s.ctl, &format, sizeof format);
  std::vector<uint8_t> server = get_bytes(s.ctl);
  s.info = choose(s, &server, format);
  int ret = fi_fabric(s.info->fabric_attr, &s.fabric, nullptr);
  if (ret) die("fi_fabric", ret);
  ret = fi_eq_open(s.fabric, &eq_attr, &s.eq, nullptr);
  if (ret) die("fi_eq_open", ret);
  open_cq(s, s.info);
  open_ep(s, s.info);
  ret = fi_connect(s.ep, s.info->dest_addr, nullptr, 0);
  if (ret) die("fi_connect", ret);
  wait_event(s, FI_CONNECTED, nullptr);
}

// Allocates and registers the buffer (tx slots filled, as fabperf fills its pattern) and
// swaps where the rx slots are with the peer.
inline void register_memory(Side& s, const Layout& layout) {
  s.layout = layout;
  s.buf_len = (layout.tx_slots + layout.rx_slots) * layout.stride + layout.atomic_slots * 96;
  size_t mapped = (s.buf_len + 4095) / 4096 * 4096;
  void* p = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) die("mmap", -1);
  s.buf = static_cast<uint8_t*>(p);
  memset(s.buf, s.client ? 0xa5 : 0x5a, s.buf_len);
  uint64_t access = FI_SEND | FI_RECV;
  if (s.caps & (FI_RMA | FI_ATOMIC)) {
    access |= FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE;
  }
  int mode = s.info->domain_attr->mr_mode;
  if (mode & FI_MR_RAW) die("FI_MR_RAW providers are not handled by the floor", -FI_ENOSYS);
  int ret = fi_mr_reg(s.domain, s.buf, s.buf_len, access, 0, s.client ? 0x1001 : 0x2002, 0, &s.mr,
                      nullptr);
  if (ret) die("fi_mr_reg", ret);
  if (mode & FI_MR_ENDPOINT) {
    ret = fi_mr_bind(s.mr, &s.ep->fid, 0);
    if (ret) die("fi_mr_bind", ret);
    ret = fi_mr_enable(s.mr);
    if (ret) die("fi_mr_enable", ret);
  }
  s.desc = fi_mr_desc(s.mr);
  uint64_t rx_off = layout.tx_slots * layout.stride;
  uint64_t mine[3] = {
      (mode & FI_MR_VIRT_ADDR) ? reinterpret_cast<uint64_t>(s.buf) + rx_off : rx_off,
      fi_mr_key(s.mr), layout.rx_slots};
  put(s.ctl, mine, sizeof mine);
  uint64_t theirs[3];
  get(s.ctl, theirs, sizeof theirs);
  s.remote_base = theirs[0];
  s.remote_key = theirs[1];
  s.peer_rx_slots = theirs[2];
}

// The operations in flight, capped at the provider's queue sizes as fabperf caps its window.
inline size_t capped_window(const Side& s, size_t want) {
  size_t w = want;
  if (s.info->tx_attr != nullptr && s.info->tx_attr->size > 0)
    w = std::min(w, s.info->tx_attr->size);
  return std::max<size_t>(1, w);
}

inline void finish_setup(Side& s, size_t contexts) {
  s.ctx.assign(contexts, fi_context2{});
  s.entries.resize(s.cfg.batch);
  size_t cap = s.info->tx_attr != nullptr ? s.info->tx_attr->inject_size : 0;
  s.inject_size = s.cfg.inject < 0 ? cap : std::min<size_t>(cap, static_cast<size_t>(s.cfg.inject));
}

// Reads up to `batch` completions and hands each to on(entry); returns how many.
template <typename On>
inline ssize_t poll(Side& s, On&& on) {
  ssize_t n = fi_cq_read(s.cq, s.entries.data(), s.entries.size());
  if (n == -FI_EAGAIN) return 0;
  if (n < 0) {
    fi_cq_err_entry err{};
    fi_cq_readerr(s.cq, &err, 0);
    if (err.err == FI_ECANCELED) return 0;
    die("completion error", -static_cast<long>(err.err));
  }
  for (ssize_t i = 0; i < n; ++i) on(s.entries[i]);
  return n;
}

// Posts until the provider takes it, polling completions while it says EAGAIN.
template <typename Post, typename On>
inline void post(Side& s, const char* what, Post&& op, On&& on) {
  while (true) {
    ssize_t ret = op();
    if (ret == 0) return;
    if (ret != -FI_EAGAIN) die(what, ret);
    poll(s, on);
  }
}

// Spins for `ns` on the clock (the probes' stand-in for work between calls).
inline void spin_ns(int64_t ns) {
  const int64_t until = now_ns() + ns;
  while (now_ns() < until) {
  }
}

// A passive side (the target of one-sided operations, or a receiver): polls, handing every
// completion to on(), until the client's record arrives on the control pair; returns it.
template <typename On>
inline uint64_t serve_until_word(Side& s, On&& on) {
  for (uint32_t polls = 1;; ++polls) {
    if (s.cfg.target_gap_ns > 0) spin_ns(s.cfg.target_gap_ns);
    poll(s, on);
    if (polls % 1024 == 0 && waiting(s.ctl)) {
      uint64_t word = 0;
      get(s.ctl, &word, sizeof word);
      return word;
    }
  }
}

inline void close_side(Side& s) {
  if (s.mr) fi_close(&s.mr->fid);
  if (s.ep) fi_close(&s.ep->fid);
  if (s.pep) fi_close(&s.pep->fid);
  if (s.av) fi_close(&s.av->fid);
  if (s.cq) fi_close(&s.cq->fid);
  if (s.eq) fi_close(&s.eq->fid);
  if (s.domain) fi_close(&s.domain->fid);
  if (s.fabric) fi_close(&s.fabric->fid);
  if (s.info) fi_freeinfo(s.info);
}

// `n` iterations of a loop the compiler keeps (one cycle or so each).
inline void spin_iterations(uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) asm volatile("" : "+r"(i));
}

struct Result {
  double mean_ns = 0;
  double recv_Bps = 0;
  uint64_t ops = 0;
  uint64_t refused = 0;  // bw: posts the provider refused (-FI_EAGAIN)
};

// What the client reports: a latency (lat) or a bandwidth (bw), with the run's settings.
inline void print(const Side& s, const Result& r, size_t window) {
  printf("{\"provider\": \"%s\", \"endpoint\": \"%s\", \"size\": %zu, ",
         s.info->fabric_attr->prov_name, s.cfg.ep_type == FI_EP_MSG ? "msg" : "rdm", s.cfg.size);
  if (s.cfg.bw) {
    printf("\"recv_Bps\": %.1f, ", r.recv_Bps);
  } else {
    printf("\"mean_ns\": %.1f, ", r.mean_ns);
  }
  printf(
      "\"ops\": %llu, \"window\": %zu, \"inject_size\": %zu, \"completion\": \"%s\", "
      "\"batch\": %zu, \"more\": %d, \"lists\": %d, \"refused\": %llu}\n",
      static_cast<unsigned long long>(r.ops), window, s.inject_size, s.completion.c_str(),
      s.cfg.batch, s.cfg.more ? 1 : 0, s.cfg.lists ? 1 : 0,
      static_cast<unsigned long long>(r.refused));
  fflush(stdout);
}

// The one-sided families' loops (write, read, atomic): post(index, context) posts operation
// `index` with that context.
//
// Latency: one operation at a time, issue to completion (fabperf's rdm_*_lat: scale 1), the
// clock read every 16th; the target only progresses.
template <typename Post>
inline void one_sided_lat(Side& s, Post&& post_op) {
  bool done = false;
  auto on = [&](const fi_cq_data_entry&) { done = true; };
  uint64_t word = 1;
  ff::put(s.ctl, &word, sizeof word);
  ff::get(s.ctl, &word, sizeof word);
  if (!s.client) {
    serve_until_word(s, on);
    return;
  }
  const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
  int64_t start = 0, now = 0, sampled = 0;
  uint64_t iters = 0;
  for (uint64_t i = 0;; ++i) {
    if (i == s.cfg.warmup) start = now_ns();
    done = false;
    const int64_t t0 = s.cfg.sample_clock ? now_ns() : 0;
    post(
        s, "post", [&] { return post_op(i, &s.ctx[0]); }, on);
    while (!done) poll(s, on);
    if (s.cfg.sample_clock && i >= s.cfg.warmup) sampled += now_ns() - t0;
    if (i >= s.cfg.warmup && (i - s.cfg.warmup) % 16 == 15) {
      now = now_ns();
      iters = i - s.cfg.warmup + 1;
      if (now - start >= limit) break;
    }
  }
  put(s.ctl, &word, sizeof word);
  Result r;
  r.ops = iters;
  r.mean_ns =
      static_cast<double>(s.cfg.sample_clock ? sampled : now - start) / static_cast<double>(iters);
  print(s, r, 1);
}

// Bandwidth: `window` operations in flight, refilled after every poll, counted by the
// initiator's completions from the warm-up's last to the run's last (fabperf's rdm_*_bw); the
// target progresses until the initiator's word. With `target_counts` (writes with remote CQ
// data) the target posts `window` receives, counts the remote completions and times them
// from its warm-up's last, and its figure is the row's (rc_rdma_write_bw).
template <typename Post>
inline void one_sided_bw(Side& s, size_t window, bool target_counts, Post&& post_op) {
  uint64_t word = 1;
  if (!s.client) {
    uint64_t received = 0;
    int64_t first = 0, last = 0;
    std::function<void(const fi_cq_data_entry&)> on;
    auto repost = [&](size_t i) {
      post(
          s, "fi_recv",
          [&] { return fi_recv(s.ep, s.rx(i), s.cfg.size, s.desc, s.peer, &s.ctx[i]); }, on);
    };
    on = [&](const fi_cq_data_entry& e) {
      if (!(e.flags & FI_REMOTE_CQ_DATA)) return;
      ++received;
      if (e.op_context != nullptr) {
        repost(static_cast<size_t>(static_cast<fi_context2*>(e.op_context) - s.ctx.data()));
      }
    };
    if (target_counts) {
      size_t n = std::min(window, s.ctx.size());
      if (s.info->rx_attr != nullptr && s.info->rx_attr->size > 0)
        n = std::min(n, s.info->rx_attr->size);
      for (size_t i = 0; i < n; ++i) repost(i);
    }
    put(s.ctl, &word, sizeof word);
    uint64_t sent = 0;
    for (uint32_t polls = 1;; ++polls) {
      uint64_t before = received;
      if (s.cfg.target_gap_ns > 0) spin_ns(s.cfg.target_gap_ns);
      if (poll(s, on) > 0 && target_counts) {
        last = now_ns();
        if (before < s.cfg.warmup && received >= s.cfg.warmup) first = last;
      }
      if (polls % 1024 == 0 && waiting(s.ctl)) {
        get(s.ctl, &sent, sizeof sent);
        break;
      }
    }
    while (target_counts && received < sent) {
      if (poll(s, on) > 0) last = now_ns();
    }
    uint64_t result[2] = {received > s.cfg.warmup ? (received - s.cfg.warmup) * s.cfg.size : 0,
                          static_cast<uint64_t>(last - first)};
    put(s.ctl, result, sizeof result);
    return;
  }
  get(s.ctl, &word, sizeof word);
  std::vector<fi_context2*> free_ctx;
  for (size_t i = 0; i < window; ++i) free_ctx.push_back(&s.ctx[i]);
  uint64_t completed = 0;
  int64_t first = 0, last = 0;
  auto on = [&](const fi_cq_data_entry& e) {
    free_ctx.push_back(static_cast<fi_context2*>(e.op_context));
    ++completed;
  };
  // The run's time counts from the warm-up's last completion, as fabperf's measured phase.
  const int64_t limit = static_cast<int64_t>(s.cfg.seconds * 1e9);
  uint64_t posted = 0, refused = 0;
  [[maybe_unused]] volatile int64_t last_refusal = 0;  // stores the probe spends, not reads
  if (s.cfg.warmup == 0) first = now_ns();
  for (uint32_t pass = 1;; ++pass) {
    while (!free_ctx.empty()) {
      ssize_t ret = post_op(posted, free_ctx.back());
      if (ret == -FI_EAGAIN) {
        for (uint32_t i = 0; i < s.cfg.refusal_clock; ++i) last_refusal = now_ns();
        ++refused;
        break;
      }
      if (ret != 0) die("post", ret);
      free_ctx.pop_back();
      ++posted;
      if (s.cfg.client_work_ns > 0) spin_ns(s.cfg.client_work_ns);
      spin_iterations(s.cfg.client_spin);
    }
    uint64_t before = completed;
    if (poll(s, on) > 0) {
      last = now_ns();
      if (before < s.cfg.warmup && completed >= s.cfg.warmup) first = last;
      if (first != 0 && last - first >= limit) break;
    } else if (pass % 64 == 0 && first != 0 && now_ns() - first >= limit) {
      break;
    }
  }
  while (free_ctx.size() < window) {
    if (poll(s, on) > 0) last = now_ns();
  }
  put(s.ctl, &posted, sizeof posted);
  uint64_t result[2];
  get(s.ctl, result, sizeof result);
  Result r;
  r.ops = posted;
  r.refused = refused;
  if (target_counts) {
    r.recv_Bps = result[1] > 0 ? static_cast<double>(result[0]) * 1e9 / result[1] : 0;
  } else {
    uint64_t measured = completed > s.cfg.warmup ? completed - s.cfg.warmup : 0;
    r.recv_Bps =
        last > first ? static_cast<double>(measured * s.cfg.size) * 1e9 / (last - first) : 0;
  }
  print(s, r, window);
}

// Forks the server, runs both sides (each pinned) and waits for the server: run(side) does a
// side's whole part, set-up included.
template <typename Run>
inline int run_pair(const Config& cfg, uint64_t caps, Run&& run) {
  int pair[2];
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, pair) != 0) die("socketpair", -1);
  fflush(stdout);
  pid_t child = fork();
  if (child < 0) die("fork", -1);
  // Each side its own session, as fabperf's server runs each client's session in a child of
  // its own (setsid): with the kernel's autogroup scheduling a session is one group, and on a
  // loaded host two processes sharing one group get half the CPU one alone gets.
  if (child == 0) {
    setsid();
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // a client killed at its timeout takes its server along
    if (getppid() == 1) _exit(1);
  }
  Side s;
  s.cfg = cfg;
  s.caps = caps;
  s.client = child != 0;
  s.ctl = s.client ? pair[0] : pair[1];
  close(s.client ? pair[1] : pair[0]);
  pin(s.client ? cfg.cpu_client : cfg.cpu_server);
  if (s.client && cfg.idle_thread) {
    std::thread([] {
      for (;;) sleep(3600);
    }).detach();
  }
  run(s);
  close_side(s);
  if (!s.client) _exit(0);
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}

}  // namespace ff
