// Provider selection errors, huge-page checks and the session buffer's layout.
#include <gtest/gtest.h>

#include "fabric/memory.h"
#include "fabric/provider.h"
#include "fabric/session.h"

namespace fabperf {
namespace {

TEST(FabricProvider, BogusProviderNamesItAndListsTheOthers) {
  FabricRequest request;
  request.ep_type = FI_EP_RDM;
  request.provider = "bogus";
  auto choice = select_fabric(request);
  ASSERT_FALSE(choice.ok());
  EXPECT_EQ(choice.status().code(), Code::kUnsupported);
  const std::string& msg = choice.status().message();
  EXPECT_NE(msg.find("\"bogus\""), std::string::npos) << msg;
  EXPECT_NE(msg.find("providers:"), std::string::npos) << msg;
}

TEST(FabricProvider, MissingCapabilityNamesProviderCapabilityAndAlternatives) {
  if (providers_with(FI_EP_MSG, FI_MSG).empty()) GTEST_SKIP() << "no FI_EP_MSG provider here";
  std::vector<std::string> with_atomics = providers_with(FI_EP_MSG, FI_ATOMIC);
  std::vector<std::string> msg = providers_with(FI_EP_MSG, FI_MSG);
  std::string lacking;
  for (const std::string& p : msg) {
    if (std::find(with_atomics.begin(), with_atomics.end(), p) == with_atomics.end()) lacking = p;
  }
  if (lacking.empty()) GTEST_SKIP() << "every FI_EP_MSG provider here has FI_ATOMIC";
  FabricRequest request;
  request.ep_type = FI_EP_MSG;
  request.caps = FI_ATOMIC;
  request.provider = lacking;
  auto choice = select_fabric(request);
  ASSERT_FALSE(choice.ok());
  const std::string& text = choice.status().message();
  EXPECT_NE(text.find(lacking), std::string::npos) << text;
  EXPECT_NE(text.find("lacks FI_ATOMIC"), std::string::npos) << text;
  for (const std::string& p : with_atomics) EXPECT_NE(text.find(p), std::string::npos) << text;
}

TEST(FabricProvider, EndpointTypeTheProviderLacks) {
  FabricRequest request;
  request.ep_type = FI_EP_MSG;
  request.provider = "shm";
  auto choice = select_fabric(request);
  if (choice.ok()) GTEST_SKIP() << "shm offers FI_EP_MSG here";
  EXPECT_NE(choice.status().message().find("FI_EP_MSG"), std::string::npos);
}

TEST(FabricProvider, UnknownDomainListsTheDomains) {
  if (providers_with(FI_EP_RDM, FI_MSG).empty()) GTEST_SKIP() << "no FI_EP_RDM provider here";
  FabricRequest request;
  request.ep_type = FI_EP_RDM;
  request.domain = "no_such_domain0";
  auto choice = select_fabric(request);
  ASSERT_FALSE(choice.ok());
  EXPECT_NE(choice.status().message().find("no_such_domain0"), std::string::npos)
      << choice.status().message();
}

TEST(FabricProvider, BestChoiceIsDescribed) {
  if (providers_with(FI_EP_RDM, FI_MSG | FI_RMA).empty()) GTEST_SKIP() << "no RDM provider";
  FabricRequest request;
  request.ep_type = FI_EP_RDM;
  request.caps = FI_MSG | FI_RMA;
  request.want_delivery_complete = true;
  request.node = "127.0.0.1";
  auto choice = select_fabric(request);
  ASSERT_TRUE(choice.ok()) << choice.status().message();
  nlohmann::json info = choice->describe();
  EXPECT_FALSE(info["provider"].get<std::string>().empty());
  EXPECT_EQ(info["endpoint"], "FI_EP_RDM");
  EXPECT_TRUE(info["completion"] == "FI_DELIVERY_COMPLETE" ||
              info["completion"] == "FI_TRANSMIT_COMPLETE" ||
              info["completion"] == "provider default");
}

TEST(FabricMemory, TooFewHugePagesIsAClearError) {
  auto pages = free_huge_pages(size_t{2} << 20);
  if (!pages.ok()) GTEST_SKIP() << pages.status().message();
  size_t want = size_t{1} << 40;  // 1 TiB: more 2M pages than any machine has free
  auto buffer = HostBuffer::allocate(want, "2M");
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().message(), "not enough free 2M huge pages: need 524288, have " +
                                           std::to_string(*pages) +
                                           " (reserve more as root: sysctl vm.nr_hugepages=N, "
                                           "or echo N > /sys/kernel/mm/hugepages/"
                                           "hugepages-2048kB/nr_hugepages)");
}

// A plain run's slots stay within 1 MiB, shared by the operations in flight beyond it (the
// peers use one buffer; 128 slots of 1 MiB ran the copies from memory); under --verify each
// operation keeps a slot of its own up to 1 GiB, so an unwritten target keeps its poison.
TEST(FabricMemory, SlotsAreSharedBeyondOneMebibyteUnlessVerifying) {
  struct Case {
    uint64_t msg_size;
    size_t window;
    bool verify;
    size_t slots;  // each side's, tx and rx alike
  };
  for (const Case& c :
       {Case{64, 128, false, 128}, Case{4096, 128, false, 128}, Case{65536, 128, false, 8},
        Case{1 << 20, 128, false, 1}, Case{4 << 20, 16, false, 1}, Case{1 << 20, 128, true, 128},
        Case{1 << 20, 1024, true, 512}}) {
    SessionNeeds needs;
    needs.tx_slots = needs.rx_slots = needs.tx_window = c.window;
    BufferLayout layout = BufferLayout::of(needs, c.msg_size, c.verify);
    EXPECT_EQ(layout.tx_slots, c.slots)
        << c.msg_size << " x " << c.window << " verify " << c.verify;
    EXPECT_EQ(layout.rx_slots, c.slots)
        << c.msg_size << " x " << c.window << " verify " << c.verify;
    EXPECT_EQ(layout.stride, (c.msg_size + 63) / 64 * 64);
    EXPECT_GE(layout.total(), 2 * c.slots * layout.stride);
  }
}

TEST(FabricMemory, HugePageSpellings) {
  EXPECT_EQ(*huge_page_size("2M"), size_t{2} << 20);
  EXPECT_EQ(*huge_page_size("1G"), size_t{1} << 30);
  auto bad = huge_page_size("4K");
  EXPECT_EQ(bad.status().message(), "Invalid hugepage type: 4K. Must be 2M or 1G");
  auto plain = HostBuffer::allocate(10000, "");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(plain->describe(), "System");
  EXPECT_EQ(reinterpret_cast<uintptr_t>(plain->data()) % 4096, 0u);
}

}  // namespace
}  // namespace fabperf
