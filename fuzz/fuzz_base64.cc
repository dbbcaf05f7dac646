// Base64 (src/core/event_json.h), the binary data of events in JSON.
// Invariants: every byte string survives encode -> decode, and what
// decodes is no longer than the text allows and survives the trip again
// (the text itself may differ: unused low bits of the last character are
// not checked, so "QR==" reads as "QQ==").
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/event_json.h"
#include "fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  const std::string encoded = indelible::Base64Encode(text);
  FUZZ_CHECK(encoded.size() == (size + 2) / 3 * 4, "encoded size");
  auto decoded = indelible::Base64Decode(encoded);
  FUZZ_CHECK(decoded && *decoded == text, "encode -> decode changed the bytes");

  auto parsed = indelible::Base64Decode(text);
  if (parsed) {
    FUZZ_CHECK(parsed->size() <= size / 4 * 3 + 3, "decoded more bytes than the text holds");
    FUZZ_CHECK(size % 4 == 0, "accepted base64 without its padding");
    FUZZ_CHECK(indelible::Base64Decode(indelible::Base64Encode(*parsed)) == parsed,
               "decode -> encode -> decode changed the bytes");
  }
  return 0;
}
