#include "store/records.h"

#include <fmt/format.h>

#include <algorithm>

namespace indelible::store {

Status ValidateRecordName(std::string_view name) {
  if (name.empty() || name.size() > kMaxRecordNameBytes)
    return Status::Invalid("record", fmt::format("a record name has 1 to {} bytes, not {}",
                                                 kMaxRecordNameBytes, name.size()));
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return Status::Invalid("record", "a record name may not contain control characters");
  return Status::Ok();
}

Status ValidateRecord(std::string_view name, std::string_view value) {
  if (Status s = ValidateRecordName(name); !s.ok()) return s;
  if (value.size() > kMaxRecordValueBytes)
    return Status::TooLarge("record", fmt::format("record '{}' is {} bytes; the limit is {}", name,
                                                  value.size(), kMaxRecordValueBytes));
  return Status::Ok();
}

}  // namespace indelible::store
