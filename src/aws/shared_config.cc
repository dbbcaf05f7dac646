#include "aws/shared_config.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>

namespace indelible::aws {
namespace {

using Sections = std::map<std::string, std::map<std::string, std::string>>;

std::string Trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// Every section of an INI file in the AWS CLI's dialect: [section] lines,
// `key = value` lines, comments starting with # or ;. Indented lines under
// a key without a value are its nested block (`s3 =`); they are kept out,
// since no key this reader uses is nested. `config_file`: sections are `[profile NAME]`,
// `[default]` is NAME default, and others (`[sso-session x]`, `[services
// x]`) are skipped.
Result<Sections> ReadSections(const std::string& path, bool config_file, bool* exists) {
  Sections sections;
  std::ifstream in(path);
  *exists = static_cast<bool>(in);
  if (!in) return sections;
  std::map<std::string, std::string>* current = nullptr;
  bool nested = false;  // the last key had no value: indented lines are its block
  std::string raw;
  for (int number = 1; std::getline(in, raw); ++number) {
    const bool indented = !raw.empty() && (raw[0] == ' ' || raw[0] == '\t');
    const std::string line = Trim(raw);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']')
        return Status::Invalid(
            "credentials", fmt::format("{}:{}: a section header must end with ']'", path, number));
      std::string name = Trim(line.substr(1, line.size() - 2));
      current = nullptr;
      nested = false;
      if (config_file) {
        if (name.starts_with("profile ") || name.starts_with("profile\t"))
          name = Trim(name.substr(8));
        else if (name != "default")
          continue;  // sso-session, services: not profiles
      }
      current = &sections[name];
      continue;
    }
    if (indented && nested) continue;
    const auto equals = line.find('=');
    if (equals == std::string::npos)
      return Status::Invalid("credentials",
                             fmt::format("{}:{}: expected `key = value`", path, number));
    const std::string value = Trim(line.substr(equals + 1));
    nested = value.empty();
    if (current == nullptr) continue;
    (*current)[Lower(Trim(line.substr(0, equals)))] = value;
  }
  return sections;
}

}  // namespace

std::string Profile::Get(const std::string& key) const {
  const auto it = keys.find(key);
  return it == keys.end() ? std::string() : it->second;
}

Result<SharedConfig> SharedConfig::Load(const EnvLookup& env) {
  SharedConfig config;
  const auto home = env("HOME");
  config.config_path_ = env("AWS_CONFIG_FILE").value_or(home ? *home + "/.aws/config" : "");
  config.credentials_path_ =
      env("AWS_SHARED_CREDENTIALS_FILE").value_or(home ? *home + "/.aws/credentials" : "");
  if (auto profile = env("AWS_PROFILE")) {
    config.selected_ = *profile;
    config.explicit_ = true;
  }
  if (!config.config_path_.empty()) {
    auto sections = ReadSections(config.config_path_, true, &config.config_exists_);
    if (!sections.ok()) return sections.status();
    config.config_ = std::move(*sections);
  }
  if (!config.credentials_path_.empty()) {
    auto sections = ReadSections(config.credentials_path_, false, &config.credentials_exists_);
    if (!sections.ok()) return sections.status();
    config.credentials_ = std::move(*sections);
  }
  return config;
}

std::optional<Profile> SharedConfig::Find(const std::string& name) const {
  const auto in_config = config_.find(name);
  const auto in_credentials = credentials_.find(name);
  if (in_config == config_.end() && in_credentials == credentials_.end()) return std::nullopt;
  Profile profile;
  profile.name = name;
  std::string where;
  if (in_config != config_.end()) {
    profile.keys = in_config->second;
    where = fmt::format("{} [{}]", config_path_, name == "default" ? name : "profile " + name);
  }
  if (in_credentials != credentials_.end()) {
    for (const auto& [key, value] : in_credentials->second) profile.keys[key] = value;
    where += (where.empty() ? "" : " and ") + fmt::format("{} [{}]", credentials_path_, name);
  }
  profile.where = std::move(where);
  return profile;
}

std::string SharedConfig::Files() const {
  if (config_path_.empty() && credentials_path_.empty())
    return "no shared config or credentials file (neither AWS_CONFIG_FILE, "
           "AWS_SHARED_CREDENTIALS_FILE nor HOME is set)";
  return fmt::format("{} and {}", config_path_.empty() ? "(no config file)" : config_path_,
                     credentials_path_.empty() ? "(no credentials file)" : credentials_path_);
}

std::string ConfiguredRegion(const EnvLookup& env) {
  if (auto region = env("AWS_REGION")) return *region;
  if (auto region = env("AWS_DEFAULT_REGION")) return *region;
  auto config = SharedConfig::Load(env);
  if (!config.ok()) return "";
  auto profile = config->Find(config->selected());
  return profile ? profile->Get("region") : "";
}

}  // namespace indelible::aws
