// The registry's names: which event types and version labels it takes.
#pragma once

#include <string_view>

#include "indelible/status.h"

namespace indelible::schemas {

// A type as events carry it (1 to 256 bytes of UTF-8 without control
// characters), and not a reserved '$' type: the store's own events have no
// schemas.
Status ValidateTypeName(std::string_view type, std::string_view field = "type");
// A label as events carry it in `schema`: 1 to 256 bytes of UTF-8 without
// control characters.
Status ValidateVersionLabel(std::string_view version, std::string_view field = "version");

}  // namespace indelible::schemas
