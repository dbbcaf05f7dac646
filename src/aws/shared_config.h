// The AWS shared config and credentials files, read as the AWS CLI and SDKs
// read them: INI text in which `config` names its sections `[profile NAME]`
// (and `[default]`) and `credentials` names them `[NAME]`; a profile's keys
// are the two files' sections merged, the credentials file winning.
//
//   AWS_CONFIG_FILE              default ~/.aws/config
//   AWS_SHARED_CREDENTIALS_FILE  default ~/.aws/credentials
//   AWS_PROFILE                  the profile to use, default `default`
//
// Missing files are empty (the SDKs' rule); a file that exists but cannot be
// parsed is an error naming its line. Values; safe from any thread once
// loaded.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "aws/credentials.h"
#include "indelible/result.h"

namespace indelible::aws {

struct Profile {
  std::string name;
  // Keys in lower case, values trimmed.
  std::map<std::string, std::string> keys;
  // "/root/.aws/config [profile app]": for messages.
  std::string where;

  // The key's value; empty when the profile has no such key.
  std::string Get(const std::string& key) const;
  bool Has(const std::string& key) const { return !Get(key).empty(); }
};

class SharedConfig {
 public:
  // Errors: invalid (field "credentials"), naming the file and line.
  static Result<SharedConfig> Load(const EnvLookup& env);

  // The profile AWS_PROFILE names (or `default`), and whether AWS_PROFILE
  // named it (then its absence is an error, not a skip).
  const std::string& selected() const { return selected_; }
  bool selected_explicitly() const { return explicit_; }

  // The merged profile; nullopt when neither file has a section for it.
  std::optional<Profile> Find(const std::string& name) const;

  // What was read, for messages: "/root/.aws/config and /root/.aws/credentials".
  std::string Files() const;
  // Whether either file exists.
  bool any_file() const { return config_exists_ || credentials_exists_; }

 private:
  std::string config_path_, credentials_path_;
  bool config_exists_ = false, credentials_exists_ = false;
  std::string selected_ = "default";
  bool explicit_ = false;
  std::map<std::string, std::map<std::string, std::string>> config_, credentials_;
};

// The region the SDKs would use before asking instance metadata:
// AWS_REGION, else AWS_DEFAULT_REGION, else the selected profile's `region`;
// empty when none names one (or a file cannot be read).
std::string ConfiguredRegion(const EnvLookup& env);

}  // namespace indelible::aws
