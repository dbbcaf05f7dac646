#include "shredding/aead.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include "core/random_bytes.h"
#include "core/text.h"

namespace indelible::shredding {

namespace {

struct CtxFree {
  void operator()(EVP_CIPHER_CTX* ctx) const { EVP_CIPHER_CTX_free(ctx); }
};
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, CtxFree>;

const EVP_CIPHER* Cipher();

// Contexts keyed already, per thread, a few per direction: setting a key
// (AES key schedule, GHASH table) through OpenSSL 3's provider costs more
// than sealing a small event, and a reader meets the same subjects' keys
// again and again. Slot by the key's first byte (keys are random); a miss
// keys the slot anew (the old context is cleansed by OpenSSL as it is
// reset). A hit only sets the nonce.
class KeyedContexts {
 public:
  explicit KeyedContexts(bool encrypt) : encrypt_(encrypt) {}
  // nullptr if OpenSSL fails.
  EVP_CIPHER_CTX* For(std::string_view key) {
    Slot& slot = slots_[static_cast<unsigned char>(key[0]) % slots_.size()];
    if (slot.ctx == nullptr) slot.ctx.reset(EVP_CIPHER_CTX_new());
    if (slot.ctx == nullptr) return nullptr;
    if (slot.key.size() != key.size() ||
        CRYPTO_memcmp(slot.key.data(), key.data(), key.size()) != 0) {
      slot.key.clear();
      const int ok =
          encrypt_
              ? EVP_EncryptInit_ex(slot.ctx.get(), Cipher(), nullptr,
                                   reinterpret_cast<const unsigned char*>(key.data()), nullptr)
              : EVP_DecryptInit_ex(slot.ctx.get(), Cipher(), nullptr,
                                   reinterpret_cast<const unsigned char*>(key.data()), nullptr);
      if (ok != 1) return nullptr;
      slot.key.assign(key);
    }
    return slot.ctx.get();
  }

 private:
  struct Slot {
    std::string key;
    Ctx ctx;
  };
  const bool encrypt_;
  std::array<Slot, 64> slots_;
};

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
  thread_local KeyedContexts contexts(/*encrypt=*/true);
  EVP_CIPHER_CTX* ctx = contexts.For(key);
  int length = 0;
  // Failures here mean a broken OpenSSL (the sizes are fixed): abort
  // rather than store an event that might not be encrypted.
  if (ctx == nullptr || EVP_EncryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) != 1 ||
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
  thread_local KeyedContexts contexts(/*encrypt=*/false);
  EVP_CIPHER_CTX* ctx = contexts.For(key);
  int length = 0;
  auto* out = reinterpret_cast<unsigned char*>(plaintext.data());
  if (ctx == nullptr || EVP_DecryptInit_ex(ctx, nullptr, nullptr, nullptr, nonce) != 1 ||
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
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

}  // namespace indelible::shredding
