// Pre-shared-key authentication: HMAC-SHA256 challenge-response in both directions.
//
// The server sends a random challenge in WELCOME; the client answers with
// HMAC(key, "client" | server_nonce | client_nonce) and the server proves itself with
// HMAC(key, "server" | ...). Only nonces and MACs cross the wire, never the key.
#pragma once

#include <string>

#include "core/status.h"

namespace fabperf {

inline constexpr size_t kMinKeyBytes = 16;
inline constexpr size_t kMaxKeyBytes = 4096;
inline constexpr size_t kNonceBytes = 32;
inline constexpr const char* kAuthMethod = "hmac-sha256";

// Reads a key file: a regular file, not readable by group or others, 16 to 4096 bytes once
// trailing whitespace is dropped. Messages name the option and the file.
Result<std::string> load_key_file(const std::string& path);

// A fresh random nonce from OpenSSL's CSPRNG, as lowercase hex.
Result<std::string> random_nonce();

// True for a nonce as random_nonce() makes them (the peer's nonces are checked with it).
bool valid_nonce(const std::string& text);

// The MACs each side sends, as lowercase hex.
std::string client_proof(const std::string& key, const std::string& server_nonce,
                         const std::string& client_nonce);
std::string server_proof(const std::string& key, const std::string& server_nonce,
                         const std::string& client_nonce);

// Constant-time comparison of two proofs.
bool proofs_equal(const std::string& a, const std::string& b);

}  // namespace fabperf
