// Master keys as an operator writes them (docs/RETENTION.md): 32-byte keys
// as 64 hex digits or base64, one per line (a file) or separated by commas
// or white space (INDELIBLE_MASTER_KEY); the first wraps new subject keys,
// the others are older keys still unwrapping. Lines starting with '#' are
// comments.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "indelible/result.h"

namespace indelible::shredding {

// The raw keys; invalid naming `source` and the entry that is not a key.
Result<std::vector<std::string>> ParseMasterKeys(std::string_view text, std::string_view source);

// The keys in the file, else in $INDELIBLE_MASTER_KEY, else none.
Result<std::vector<std::string>> LoadMasterKeys(const std::string& file);

}  // namespace indelible::shredding
