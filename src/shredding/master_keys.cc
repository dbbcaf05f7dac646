#include "shredding/master_keys.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/event_json.h"
#include "shredding/aead.h"

namespace indelible::shredding {

namespace {

std::optional<std::string> FromHex(std::string_view hex) {
  if (hex.size() != 2 * kKeyBytes) return std::nullopt;
  std::string out;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    unsigned value = 0;
    for (char c : hex.substr(i, 2)) {
      value <<= 4;
      if (c >= '0' && c <= '9')
        value |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        value |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        value |= static_cast<unsigned>(c - 'A' + 10);
      else
        return std::nullopt;
    }
    out.push_back(static_cast<char>(value));
  }
  return out;
}

}  // namespace

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
      auto key = FromHex(word);
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
