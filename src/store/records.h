// Validation shared by every backend's records (Store::SaveRecord): the
// store's named values, not to be confused with a consumer's checkpoint,
// which is one of the things kept in them (docs/GLOSSARY.md).
#pragma once

#include <indelible/status.h>

#include <cstddef>
#include <string_view>

namespace indelible::store {

inline constexpr std::size_t kMaxRecordNameBytes = 256;
inline constexpr std::size_t kMaxRecordValueBytes = 64 * 1024;

// invalid naming the problem, or ok.
Status ValidateRecordName(std::string_view name);
Status ValidateRecord(std::string_view name, std::string_view value);

}  // namespace indelible::store
