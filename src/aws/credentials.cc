#include "aws/credentials.h"

#include <fmt/format.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <map>

namespace indelible::aws {
namespace {

std::string Trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

// One profile's keys from an INI file in the AWS CLI's dialect: [section]
// lines, key = value lines, comments starting with # or ;. Keys are
// case-insensitive there; ours are matched in lower case.
Result<std::optional<std::map<std::string, std::string>>> ReadProfile(const std::string& path,
                                                                      const std::string& profile) {
  std::ifstream in(path);
  if (!in) return std::optional<std::map<std::string, std::string>>();
  std::optional<std::map<std::string, std::string>> found;
  bool inside = false;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    line = Trim(line);
    if (line.empty() || line[0] == '#' || line[0] == ';') continue;
    if (line[0] == '[') {
      if (line.back() != ']')
        return Status::Invalid(
            "credentials", fmt::format("{}:{}: a section header must end with ']'", path, number));
      inside = Trim(line.substr(1, line.size() - 2)) == profile;
      if (inside && !found) found.emplace();
      continue;
    }
    const auto equals = line.find('=');
    if (equals == std::string::npos)
      return Status::Invalid("credentials",
                             fmt::format("{}:{}: expected `key = value`", path, number));
    if (!inside) continue;
    std::string key = Trim(line.substr(0, equals));
    for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    (*found)[key] = Trim(line.substr(equals + 1));
  }
  return found;
}

}  // namespace

std::optional<std::string> ProcessEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

Result<Credentials> LoadCredentials(const EnvLookup& env) {
  const auto key_id = env("AWS_ACCESS_KEY_ID");
  const auto secret = env("AWS_SECRET_ACCESS_KEY");
  // Half a pair in the environment is a mistake to report, not a reason to
  // fall through to a file that may hold someone else's keys.
  if (key_id && !secret)
    return Status::Unauthorized("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
  if (secret && !key_id)
    return Status::Unauthorized("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  if (key_id)
    return Credentials{*key_id, *secret, env("AWS_SESSION_TOKEN").value_or(""), "environment"};

  std::string path;
  if (auto file = env("AWS_SHARED_CREDENTIALS_FILE")) {
    path = *file;
  } else if (auto home = env("HOME")) {
    path = *home + "/.aws/credentials";
  } else {
    return Status::Unauthorized(
        "no AWS credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set, and neither "
        "AWS_SHARED_CREDENTIALS_FILE nor HOME names a shared credentials file");
  }
  const std::string profile = env("AWS_PROFILE").value_or("default");
  auto keys = ReadProfile(path, profile);
  if (!keys.ok()) return keys.status();
  if (!*keys)
    return Status::Unauthorized(fmt::format(
        "no AWS credentials: AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY are not set, and {} {}", path,
        std::ifstream(path) ? fmt::format("has no [{}] profile (AWS_PROFILE)", profile)
                            : std::string("cannot be read")));
  const auto get = [&](const char* name) {
    const auto it = (*keys)->find(name);
    return it == (*keys)->end() ? std::string() : it->second;
  };
  Credentials credentials{get("aws_access_key_id"), get("aws_secret_access_key"),
                          get("aws_session_token"), fmt::format("{} [{}]", path, profile)};
  for (const auto& [name, value] :
       {std::pair{"aws_access_key_id", &credentials.access_key_id},
        std::pair{"aws_secret_access_key", &credentials.secret_access_key}}) {
    if (value->empty())
      return Status::Unauthorized(fmt::format("profile [{}] of {} has no {}", profile, path, name));
  }
  return credentials;
}

}  // namespace indelible::aws
