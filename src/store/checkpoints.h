// Validation shared by every backend's checkpoint records (Store::SaveCheckpoint).
#pragma once

#include <indelible/status.h>

#include <cstddef>
#include <string_view>

namespace indelible::storage {

inline constexpr std::size_t kMaxCheckpointNameBytes = 256;
inline constexpr std::size_t kMaxCheckpointValueBytes = 64 * 1024;

// invalid naming the problem, or ok.
Status ValidateCheckpointName(std::string_view name);
Status ValidateCheckpoint(std::string_view name, std::string_view value);

}  // namespace indelible::storage
