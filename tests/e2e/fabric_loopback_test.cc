// Two RDM endpoints in one process: send/receive, write, read and an atomic, data checked.
#include <gtest/gtest.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_rma.h>

#include <cstring>
#include <memory>
#include <vector>

#include "fabric/endpoint.h"
#include "fabric/memory.h"
#include "fabric/pattern.h"
#include "fabric/provider.h"

namespace fabperf {
namespace {

constexpr size_t kSize = 4096;

// One side: endpoint, a registered buffer (first half source, second half target) and the
// peer's address and region.
struct Side {
  std::unique_ptr<FabricEndpoint> ep;
  HostBuffer buffer;
  std::unique_ptr<MemoryRegion> mr;
  std::unique_ptr<RemoteRegion> remote;
  fi_addr_t peer = FI_ADDR_UNSPEC;
  uint8_t* src() { return buffer.data(); }
  uint8_t* dst() { return buffer.data() + kSize; }
};

class FabricLoopbackTest : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    FabricRequest request;
    request.ep_type = FI_EP_RDM;
    request.caps = FI_MSG | FI_RMA | FI_ATOMIC;
    request.provider = GetParam();
    request.want_delivery_complete = true;
    request.node = "127.0.0.1";
    auto choice = select_fabric(request);
    if (!choice.ok()) GTEST_SKIP() << "no " << GetParam() << ": " << choice.status().message();
    for (Side* side : {&a_, &b_}) {
      auto ep = FabricEndpoint::open(choice->info.get(), EndpointOptions{});
      ASSERT_TRUE(ep.ok()) << ep.status().message();
      side->ep = std::move(*ep);
      auto buffer = HostBuffer::allocate(2 * kSize + 64, "");
      ASSERT_TRUE(buffer.ok());
      side->buffer = std::move(*buffer);
      auto mr = MemoryRegion::register_buffer(
          side->ep->domain(), side->ep->ep(), side->ep->info(), side->buffer.data(),
          side->buffer.size(),
          FI_SEND | FI_RECV | FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE);
      ASSERT_TRUE(mr.ok()) << mr.status().message();
      side->mr = std::move(*mr);
    }
    Connect(a_, b_);
    Connect(b_, a_);
  }

  // `from` learns `to`'s name and target region, the way the control exchange carries them.
  void Connect(Side& from, Side& to) {
    auto name = to.ep->name();
    ASSERT_TRUE(name.ok());
    auto addr = from.ep->insert_peer(*name);
    ASSERT_TRUE(addr.ok()) << addr.status().message();
    from.peer = *addr;
    auto descriptor = decode_region(encode_region(to.mr->describe(kSize, kSize + 64)), "r");
    ASSERT_TRUE(descriptor.ok());
    auto remote = RemoteRegion::resolve(from.ep->domain(), *descriptor);
    ASSERT_TRUE(remote.ok()) << remote.status().message();
    from.remote = std::move(*remote);
  }

  // Polls both CQs (progress is manual on some providers), keeping what each side got.
  void Progress() {
    for (Side* side : {&a_, &b_}) {
      fi_cq_data_entry entry{};
      ssize_t n = side->ep->poll(&entry, 1);
      ASSERT_GE(n, 0) << side->ep->completion_error(n).message();
      if (n == 1) (side == &a_ ? got_a_ : got_b_).push_back(entry);
    }
  }

  // Waits until `side` has a completion and returns the oldest.
  fi_cq_data_entry WaitOne(Side& side) {
    std::vector<fi_cq_data_entry>& got = &side == &a_ ? got_a_ : got_b_;
    Deadline deadline = Deadline::after(5);
    while (got.empty() && !deadline.expired()) Progress();
    EXPECT_FALSE(got.empty()) << "no completion within 5 s";
    if (got.empty()) return {};
    fi_cq_data_entry entry = got.front();
    got.erase(got.begin());
    return entry;
  }

  // Posts, retrying while the provider says FI_EAGAIN (connection set-up in progress).
  template <typename Post>
  ssize_t PostRetry(Post&& post) {
    Deadline deadline = Deadline::after(5);
    ssize_t ret;
    while ((ret = post()) == -FI_EAGAIN && !deadline.expired()) Progress();
    return ret;
  }

  std::vector<fi_cq_data_entry> got_a_, got_b_;
  Side a_, b_;
  fi_context2 ctx_[4];
};

TEST_P(FabricLoopbackTest, SendWriteReadAtomic) {
  // send/recv: a's source pattern lands in b's target.
  fill_pattern(a_.src(), kSize, kClientSeed);
  poison_pattern(b_.dst(), kSize, kClientSeed);
  ASSERT_EQ(PostRetry([&] {
              return fi_recv(b_.ep->ep(), b_.dst(), kSize, b_.mr->desc(), b_.peer, &ctx_[0]);
            }),
            0);
  ASSERT_EQ(PostRetry([&] {
              return fi_send(a_.ep->ep(), a_.src(), kSize, a_.mr->desc(), a_.peer, &ctx_[1]);
            }),
            0);
  WaitOne(a_);
  fi_cq_data_entry recv = WaitOne(b_);
  EXPECT_EQ(recv.len, kSize);
  EXPECT_TRUE(check_pattern(b_.dst(), kSize, kClientSeed));

  // write: a writes another pattern into b's target.
  fill_pattern(a_.src(), kSize, kServerSeed);
  ASSERT_EQ(PostRetry([&] {
              return fi_write(a_.ep->ep(), a_.src(), kSize, a_.mr->desc(), a_.peer,
                              a_.remote->addr(0), a_.remote->key(), &ctx_[2]);
            }),
            0);
  WaitOne(a_);
  Deadline landed = Deadline::after(2);
  while (!check_pattern(b_.dst(), kSize, kServerSeed) && !landed.expired()) Progress();
  EXPECT_TRUE(check_pattern(b_.dst(), kSize, kServerSeed));

  // read: b reads a's target back into its source half.
  fill_pattern(a_.dst(), kSize, 0x11);
  poison_pattern(b_.src(), kSize, 0x11);
  ASSERT_EQ(PostRetry([&] {
              return fi_read(b_.ep->ep(), b_.src(), kSize, b_.mr->desc(), b_.peer,
                             b_.remote->addr(0), b_.remote->key(), &ctx_[3]);
            }),
            0);
  WaitOne(b_);
  EXPECT_TRUE(check_pattern(b_.src(), kSize, 0x11));

  // fetch-add: a adds 5 to b's word (at the end of its target) and gets the old value.
  if (std::string(GetParam()) == "udp;ofi_rxd" && fi_version() <= FI_VERSION(1, 17)) {
    GTEST_SKIP() << "fetching atomics crash libfabric 1.17's ofi_rxd (fabperf refuses them)";
  }
  uint64_t* word = reinterpret_cast<uint64_t*>(b_.dst() + kSize);
  *word = 37;
  uint64_t* operand = reinterpret_cast<uint64_t*>(a_.src());
  uint64_t* result = operand + 1;
  *operand = 5;
  *result = 0;
  ASSERT_EQ(PostRetry([&] {
              return fi_fetch_atomic(a_.ep->ep(), operand, 1, a_.mr->desc(), result, a_.mr->desc(),
                                     a_.peer, a_.remote->addr(kSize), a_.remote->key(), FI_UINT64,
                                     FI_SUM, &ctx_[0]);
            }),
            0);
  WaitOne(a_);
  EXPECT_EQ(*result, 37u);
  EXPECT_EQ(*word, 42u);
}

INSTANTIATE_TEST_SUITE_P(Providers, FabricLoopbackTest,
                         ::testing::Values("tcp;ofi_rxm", "shm", "sockets", "udp;ofi_rxd"),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           std::string name = info.param;
                           for (char& c : name) {
                             if (!isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace fabperf
