#include "shredding/aead.h"

#include <openssl/evp.h>

#include <cstdint>
#include <memory>

#include "core/random_bytes.h"

namespace indelible::shredding {

namespace {

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

// One context per thread, reset by each Init: EVP_CIPHER_CTX_new costs an
// allocation per event otherwise.
EVP_CIPHER_CTX* ThreadContext() {
  thread_local Ctx ctx(EVP_CIPHER_CTX_new());
  return ctx.get();
}

// Fetched once: EVP_aes_256_gcm() makes OpenSSL 3 look the implementation
// up again at every Init (a third of a sealed read's cost, measured by
// `indelible bench encryption`).
const EVP_CIPHER* Cipher() {
  static EVP_CIPHER* const cipher = [] {
    EVP_CIPHER* fetched = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
    if (fetched == nullptr) std::abort();  // no AES-GCM: nothing may be sealed
    return fetched;
  }();
  return cipher;
}

const unsigned char* Bytes(std::string_view text) {
  return reinterpret_cast<const unsigned char*>(text.data());
}

}  // namespace

void SealBox(std::string_view key, std::string_view aad, std::string_view plaintext,
             std::string* out) {
  const std::size_t start = out->size();
  out->resize(start + kNonceBytes + plaintext.size() + kTagBytes);
  auto* nonce = reinterpret_cast<unsigned char*>(out->data() + start);
  RandomBytes(nonce, kNonceBytes);
  unsigned char* body = nonce + kNonceBytes;
  EVP_CIPHER_CTX* ctx = ThreadContext();
  int length = 0;
  // Failures here mean a broken OpenSSL (the sizes are fixed): abort
  // rather than store an event that might not be encrypted.
  if (EVP_EncryptInit_ex(ctx, Cipher(), nullptr, Bytes(key), nonce) != 1 ||
      EVP_EncryptUpdate(ctx, nullptr, &length, Bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_EncryptUpdate(ctx, body, &length, Bytes(plaintext), static_cast<int>(plaintext.size())) !=
          1 ||
      EVP_EncryptFinal_ex(ctx, body + length, &length) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_GET_TAG, static_cast<int>(kTagBytes),
                          body + plaintext.size()) != 1)
    std::abort();
}

std::optional<std::string> OpenBox(std::string_view key, std::string_view aad,
                                   std::string_view box) {
  if (key.size() != kKeyBytes || box.size() < kBoxOverhead) return std::nullopt;
  const std::size_t size = box.size() - kBoxOverhead;
  std::string plaintext(size, '\0');
  const unsigned char* nonce = Bytes(box);
  const unsigned char* body = nonce + kNonceBytes;
  // The tag is an input the ctrl call does not change; OpenSSL's signature
  // wants a non-const pointer.
  std::string tag(box.substr(kNonceBytes + size));
  EVP_CIPHER_CTX* ctx = ThreadContext();
  int length = 0;
  auto* out = reinterpret_cast<unsigned char*>(plaintext.data());
  if (EVP_DecryptInit_ex(ctx, Cipher(), nullptr, Bytes(key), nonce) != 1 ||
      EVP_DecryptUpdate(ctx, nullptr, &length, Bytes(aad), static_cast<int>(aad.size())) != 1 ||
      EVP_DecryptUpdate(ctx, out, &length, body, static_cast<int>(size)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_TAG, static_cast<int>(kTagBytes), tag.data()) !=
          1 ||
      EVP_DecryptFinal_ex(ctx, out + length, &length) != 1)
    return std::nullopt;
  return plaintext;
}

std::string KeyFingerprint(std::string_view key) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  EVP_Digest(key.data(), key.size(), digest, &size, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (int i = 0; i < 8; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

}  // namespace indelible::shredding
