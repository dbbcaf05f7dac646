// AES-256-GCM through OpenSSL's EVP interface: the one cipher of
// crypto-shredding (docs/RETENTION.md), for subject keys under a master key
// and event data under a subject key. A sealed box is nonce (12 random
// bytes) || ciphertext || tag (16 bytes).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace indelible::shredding {

inline constexpr std::size_t kKeyBytes = 32;
inline constexpr std::size_t kNonceBytes = 12;
inline constexpr std::size_t kTagBytes = 16;
inline constexpr std::size_t kBoxOverhead = kNonceBytes + kTagBytes;

// Appends the box of `plaintext` to `out`. REQUIRES: key.size() == kKeyBytes.
void SealBox(std::string_view key, std::string_view aad, std::string_view plaintext,
             std::string* out);

// The plaintext, or nullopt when the box is short or fails its tag (wrong
// key, wrong aad, or bytes changed).
std::optional<std::string> OpenBox(std::string_view key, std::string_view aad,
                                   std::string_view box);

// SHA-256 of the key, first 8 bytes in hex: names a master key in the
// records it wrapped without giving it away.
std::string KeyFingerprint(std::string_view key);

}  // namespace indelible::shredding
