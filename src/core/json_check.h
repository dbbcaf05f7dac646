// Cheap JSON validation: parses without building a document.
#pragma once

#include <string>
#include <string_view>

namespace indelible {

enum class JsonShape { kAnyValue, kObject };

// Empty string when `text` is one valid JSON value (of the given shape),
// otherwise a short reason with the byte offset of the problem.
std::string CheckJson(std::string_view text, JsonShape shape = JsonShape::kAnyValue);

}  // namespace indelible
