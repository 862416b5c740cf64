// Provider selection errors and huge-page checks.
#include "fabric/provider.h"

#include <gtest/gtest.h>

#include "fabric/memory.h"

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
