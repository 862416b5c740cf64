// Unit tests: --allow address blocks, key files and the HMAC challenge-response.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "security/access.h"
#include "security/auth.h"

namespace fabperf {
namespace {

SockAddr v4(const char* text) {
  SockAddr a;
  auto* in = reinterpret_cast<sockaddr_in*>(&a.storage);
  in->sin_family = AF_INET;
  inet_pton(AF_INET, text, &in->sin_addr);
  a.len = sizeof *in;
  return a;
}

SockAddr v6(const char* text) {
  SockAddr a;
  auto* in = reinterpret_cast<sockaddr_in6*>(&a.storage);
  in->sin6_family = AF_INET6;
  inet_pton(AF_INET6, text, &in->sin6_addr);
  a.len = sizeof *in;
  return a;
}

TEST(SecurityAllow, EmptyListAllowsEveryone) {
  auto list = AllowList::parse("");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->allows(v4("192.0.2.1")));
  EXPECT_TRUE(list->allows(v6("2001:db8::1")));
}

TEST(SecurityAllow, Ipv4Blocks) {
  auto list = AllowList::parse("10.0.0.0/8, 192.168.1.7");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_TRUE(list->allows(v4("10.200.3.4")));
  EXPECT_TRUE(list->allows(v4("192.168.1.7")));
  EXPECT_FALSE(list->allows(v4("192.168.1.8")));
  EXPECT_FALSE(list->allows(v4("11.0.0.1")));
  EXPECT_FALSE(list->allows(v6("::1")));
}

TEST(SecurityAllow, V4MappedPeersMatchIpv4Blocks) {
  // A dual-stack listener sees IPv4 clients as ::ffff:a.b.c.d.
  auto list = AllowList::parse("127.0.0.0/8");
  ASSERT_TRUE(list.ok());
  EXPECT_TRUE(list->allows(v6("::ffff:127.0.0.1")));
  EXPECT_FALSE(list->allows(v6("::ffff:10.0.0.1")));
  // ... and a v4-mapped block is an IPv4 block.
  auto mapped = AllowList::parse("::ffff:10.1.0.0/112");
  ASSERT_TRUE(mapped.ok()) << mapped.status().message();
  EXPECT_TRUE(mapped->allows(v4("10.1.2.3")));
  EXPECT_TRUE(mapped->allows(v6("::ffff:10.1.9.9")));
  EXPECT_FALSE(mapped->allows(v4("10.2.0.1")));
}

TEST(SecurityAllow, Ipv6Blocks) {
  auto list = AllowList::parse("fd00::/8,::1");
  ASSERT_TRUE(list.ok()) << list.status().message();
  EXPECT_TRUE(list->allows(v6("fd12:3456::1")));
  EXPECT_TRUE(list->allows(v6("::1")));
  EXPECT_FALSE(list->allows(v6("fe80::1")));
  EXPECT_FALSE(list->allows(v4("127.0.0.1")));
  auto odd = AllowList::parse("2001:db8:abcd:12::/63");
  ASSERT_TRUE(odd.ok()) << odd.status().message();
  EXPECT_TRUE(odd->allows(v6("2001:db8:abcd:13::5")));
  EXPECT_FALSE(odd->allows(v6("2001:db8:abcd:14::5")));
  auto all = AllowList::parse("::/0");
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->allows(v6("2001:db8::1")));
  EXPECT_FALSE(all->allows(v4("1.2.3.4")));  // ::/0 is IPv6 only; add 0.0.0.0/0 for both
}

TEST(SecurityAllow, BadBlocksNameTheProblem) {
  struct Case {
    const char* text;
    const char* message;
  };
  for (const Case& c : {Case{"10.0.0.0/33", "at most 32"}, Case{"10.0.0.0/x", "prefix"},
                        Case{"fd00::/129", "prefix"}, Case{"host.example", "not an IPv4 or IPv6"},
                        Case{"10.1.2.3/8", "host bits"}, Case{"10.0.0.0/8,,", "--allow"},
                        Case{"1.2.3.4/", "prefix"}, Case{"/8", "not an IPv4"}}) {
    auto list = AllowList::parse(c.text);
    ASSERT_FALSE(list.ok()) << c.text;
    EXPECT_EQ(list.status().code(), Code::kUsage);
    EXPECT_NE(list.status().message().find(c.message), std::string::npos)
        << c.text << ": " << list.status().message();
  }
}

class KeyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fabperf_key_XXXXXX";
    int fd = mkstemp(tmpl);
    ASSERT_GE(fd, 0);
    close(fd);
    path_ = tmpl;
  }
  void TearDown() override { unlink(path_.c_str()); }
  void write(const std::string& text, mode_t mode) {
    std::ofstream(path_) << text;
    chmod(path_.c_str(), mode);
  }
  std::string path_;
};

TEST_F(KeyFile, ReadsAPrivateKeyAndDropsTheNewline) {
  write("0123456789abcdef0123\n", 0600);
  auto key = load_key_file(path_);
  ASSERT_TRUE(key.ok()) << key.status().message();
  EXPECT_EQ(*key, "0123456789abcdef0123");
}

TEST_F(KeyFile, RefusesWeakOrExposedKeys) {
  write("short\n", 0600);
  EXPECT_NE(load_key_file(path_).status().message().find("too short"), std::string::npos);
  write("0123456789abcdef0123\n", 0644);
  auto exposed = load_key_file(path_);
  EXPECT_EQ(exposed.status().code(), Code::kUsage);
  EXPECT_NE(exposed.status().message().find("chmod 600"), std::string::npos);
  write(std::string(5000, 'k'), 0600);
  EXPECT_NE(load_key_file(path_).status().message().find("larger than"), std::string::npos);
  EXPECT_NE(load_key_file("/nonexistent/key").status().message().find("/nonexistent/key"),
            std::string::npos);
  EXPECT_NE(load_key_file("/tmp").status().message().find("not a regular file"), std::string::npos);
}

TEST(SecurityAuth, ProofsDependOnKeyRoleAndBothNonces) {
  auto a = random_nonce(), b = random_nonce();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(valid_nonce(*a));
  EXPECT_NE(*a, *b);
  std::string key = "correct horse battery staple";
  std::string proof = client_proof(key, *a, *b);
  EXPECT_EQ(proof.size(), 64u);  // SHA-256, hex
  EXPECT_TRUE(proofs_equal(proof, client_proof(key, *a, *b)));
  EXPECT_FALSE(proofs_equal(proof, client_proof(key + "!", *a, *b)));
  EXPECT_FALSE(proofs_equal(proof, client_proof(key, *b, *a)));
  EXPECT_FALSE(proofs_equal(proof, server_proof(key, *a, *b)));  // no reflection
  EXPECT_FALSE(proofs_equal(proof, proof.substr(0, 63)));
  EXPECT_EQ(proof.find(key), std::string::npos);
  EXPECT_FALSE(valid_nonce("xyz"));
  EXPECT_FALSE(valid_nonce(std::string(64, 'G')));
}

TEST(SecurityAuth, KnownAnswer) {
  // The transcript is documented in docs/security.md: another implementation must agree.
  // Python: hmac.new(b"Jefe", b"fabperf-auth-v1 client\nab\ncd", hashlib.sha256).hexdigest()
  EXPECT_EQ(client_proof("Jefe", "ab", "cd"),
            "7f65b689f6f318addd29c1857e1cfb2a43224a4e383875a4031153ba43e532e0");
}

}  // namespace
}  // namespace fabperf
