#include "shredding/sealed_event.h"

#include <cstdint>

#include "shredding/aead.h"

namespace indelible::shredding {

namespace {

constexpr std::uint8_t kFormat = 1;

std::string_view Binding(const EventId& id) {
  return {reinterpret_cast<const char*>(id.bytes().data()), id.bytes().size()};
}

std::string AdditionalData(std::string_view header, std::string_view binding) {
  std::string aad(header);
  aad.append(binding);
  return aad;
}

void PutLE(std::string* out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((value >> (8 * i)) & 0xff));
}

std::uint64_t GetLE(std::string_view in, int bytes) {
  std::uint64_t value = 0;
  for (int i = 0; i < bytes; ++i)
    value |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(in[i])) << (8 * i);
  return value;
}

}  // namespace

std::optional<SealedHeader> ParseSealed(std::string_view data) {
  if (data.size() < 2 || static_cast<std::uint8_t>(data[0]) != kFormat) return std::nullopt;
  const std::size_t n = static_cast<std::uint8_t>(data[1]);
  const std::size_t header = 2 + n + kKeyIdBytes;
  if (n == 0 || data.size() < header + kBoxOverhead) return std::nullopt;
  return SealedHeader{data.substr(2, n), data.substr(2 + n, kKeyIdBytes), data.substr(0, header),
                      data.substr(header)};
}

std::string SealEvent(std::string_view key, std::string_view key_id, std::string_view subject,
                      const EventId& id, const Plain& plain) {
  return SealBound(key, key_id, subject, Binding(id), plain);
}

std::optional<Plain> OpenEvent(std::string_view key, const SealedHeader& sealed,
                               const EventId& id) {
  return OpenBound(key, sealed, Binding(id));
}

std::string SealBound(std::string_view key, std::string_view key_id, std::string_view subject,
                      std::string_view binding, const Plain& plain) {
  std::string out;
  out.reserve(2 + subject.size() + kKeyIdBytes + kBoxOverhead + 6 + plain.content_type.size() +
              plain.fields.size() + plain.data.size());
  out.push_back(static_cast<char>(kFormat));
  out.push_back(static_cast<char>(subject.size()));
  out.append(subject);
  out.append(key_id);
  std::string inner;
  inner.reserve(6 + plain.content_type.size() + plain.fields.size() + plain.data.size());
  PutLE(&inner, plain.content_type.size(), 2);
  inner.append(plain.content_type);
  PutLE(&inner, plain.fields.size(), 4);
  inner.append(plain.fields);
  inner.append(plain.data);
  const std::string aad = AdditionalData(out, binding);
  SealBox(key, aad, inner, &out);
  return out;
}

std::optional<Plain> OpenBound(std::string_view key, const SealedHeader& sealed,
                               std::string_view binding) {
  auto inner = OpenBox(key, AdditionalData(sealed.header, binding), sealed.box);
  if (!inner) return std::nullopt;
  std::string_view rest(*inner);
  if (rest.size() < 2) return std::nullopt;
  const std::size_t m = GetLE(rest, 2);
  if (rest.size() < 2 + m + 4) return std::nullopt;
  Plain plain;
  plain.content_type = std::string(rest.substr(2, m));
  rest.remove_prefix(2 + m);
  const std::size_t f = GetLE(rest, 4);
  if (rest.size() < 4 + f) return std::nullopt;
  plain.fields = std::string(rest.substr(4, f));
  plain.data = std::string(rest.substr(4 + f));
  return plain;
}

}  // namespace indelible::shredding
