#include "shredding/master_keys.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/event_json.h"
#include "core/text.h"
#include "shredding/aead.h"

namespace indelible::shredding {

Result<std::vector<std::string>> ParseMasterKeys(std::string_view text, std::string_view source) {
  std::vector<std::string> keys;
  std::size_t entry = 0;
  std::istringstream lines{std::string(text)};
  for (std::string line; std::getline(lines, line);) {
    if (line.starts_with('#')) continue;
    for (char& c : line)
      if (c == ',') c = ' ';
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      ++entry;
      auto key = word.size() == 2 * kKeyBytes ? HexDecode(word) : std::nullopt;
      if (!key) key = Base64Decode(word);
      if (!key || key->size() != kKeyBytes)
        return Status::Invalid(
            "master key",
            fmt::format("entry {} of {} is not a 32-byte key as 64 hex digits or base64 (make "
                        "one with `openssl rand -hex 32`)",
                        entry, source));
      keys.push_back(std::move(*key));
    }
  }
  return keys;
}

Result<std::vector<std::string>> LoadMasterKeys(const std::string& file) {
  if (!file.empty()) {
    std::ifstream in(file);
    if (!in)
      return Status::Invalid("master key file",
                             fmt::format("cannot read master key file '{}'", file));
    std::stringstream text;
    text << in.rdbuf();
    auto keys = ParseMasterKeys(text.str(), fmt::format("master key file '{}'", file));
    if (keys.ok() && keys->empty())
      return Status::Invalid("master key file",
                             fmt::format("master key file '{}' holds no key", file));
    return keys;
  }
  if (const char* env = std::getenv("INDELIBLE_MASTER_KEY"); env != nullptr && *env != '\0')
    return ParseMasterKeys(env, "INDELIBLE_MASTER_KEY");
  return std::vector<std::string>();
}

}  // namespace indelible::shredding
