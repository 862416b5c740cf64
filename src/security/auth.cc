// HMAC-SHA256 challenge-response over OpenSSL's libcrypto, and key-file loading.
#include "security/auth.h"

#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>

#include "net/socket.h"

namespace fabperf {

namespace {

std::string to_hex(const unsigned char* data, size_t len) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (size_t i = 0; i < len; ++i) {
    out.push_back(digits[data[i] >> 4]);
    out.push_back(digits[data[i] & 15]);
  }
  return out;
}

std::string hmac_hex(const std::string& key, const std::string& message) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int mac_len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), mac, &mac_len);
  return to_hex(mac, mac_len);
}

// Domain separation: a client's proof can never be replayed as a server's, or vice versa.
std::string transcript(const char* role, const std::string& server_nonce,
                       const std::string& client_nonce) {
  return std::string("fabperf-auth-v1 ") + role + "\n" + server_nonce + "\n" + client_nonce;
}

}  // namespace

Result<std::string> load_key_file(const std::string& path) {
  std::string who = "--auth_key_file " + path;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return Status::usage(errno_text(who.c_str()));
  Fd owner(fd);
  struct stat st {};
  if (fstat(fd, &st) != 0) return Status::usage(errno_text(who.c_str()));
  if (!S_ISREG(st.st_mode)) return Status::usage(who + ": not a regular file");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return Status::usage(who + ": readable by group or others (mode " + mode +
                         "); a key must be private: chmod 600 " + path);
  }
  if (st.st_size > static_cast<off_t>(kMaxKeyBytes + 64)) {
    return Status::usage(who + ": larger than " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  std::string key(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < key.size()) {
    ssize_t n = read(fd, key.data() + got, key.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::usage(errno_text(who.c_str()));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  key.resize(got);
  // Editors add a newline; "echo secret > file" too. The key is what comes before it.
  while (!key.empty() &&
         (key.back() == '\n' || key.back() == '\r' || key.back() == ' ' || key.back() == '\t')) {
    key.pop_back();
  }
  if (key.size() < kMinKeyBytes) {
    return Status::usage(who + ": key of " + std::to_string(key.size()) +
                         " bytes is too short (at least " + std::to_string(kMinKeyBytes) +
                         "; make one with: head -c 32 /dev/urandom | base64 > FILE)");
  }
  if (key.size() > kMaxKeyBytes) {
    return Status::usage(who + ": larger than " + std::to_string(kMaxKeyBytes) + " bytes");
  }
  return key;
}

Result<std::string> random_nonce() {
  unsigned char bytes[kNonceBytes];
  if (RAND_bytes(bytes, sizeof bytes) != 1) {
    return Status::failed("cannot draw a random challenge (OpenSSL RAND_bytes failed)");
  }
  return to_hex(bytes, sizeof bytes);
}

bool valid_nonce(const std::string& text) {
  if (text.size() != kNonceBytes * 2) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

std::string client_proof(const std::string& key, const std::string& server_nonce,
                         const std::string& client_nonce) {
  return hmac_hex(key, transcript("client", server_nonce, client_nonce));
}

std::string server_proof(const std::string& key, const std::string& server_nonce,
                         const std::string& client_nonce) {
  return hmac_hex(key, transcript("server", server_nonce, client_nonce));
}

bool proofs_equal(const std::string& a, const std::string& b) {
  return a.size() == b.size() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace fabperf
