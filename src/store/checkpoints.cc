#include "store/checkpoints.h"

#include <fmt/format.h>

#include <algorithm>

namespace indelible::storage {

Status ValidateCheckpointName(std::string_view name) {
  if (name.empty() || name.size() > kMaxCheckpointNameBytes)
    return Status::Invalid("checkpoint", fmt::format("a checkpoint name has 1 to {} bytes, not {}",
                                                     kMaxCheckpointNameBytes, name.size()));
  if (std::any_of(name.begin(), name.end(),
                  [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
    return Status::Invalid("checkpoint", "a checkpoint name may not contain control characters");
  return Status::Ok();
}

Status ValidateCheckpoint(std::string_view name, std::string_view value) {
  if (Status s = ValidateCheckpointName(name); !s.ok()) return s;
  if (value.size() > kMaxCheckpointValueBytes)
    return Status::TooLarge("checkpoint",
                            fmt::format("checkpoint '{}' is {} bytes; the limit is {}", name,
                                        value.size(), kMaxCheckpointValueBytes));
  return Status::Ok();
}

}  // namespace indelible::storage
