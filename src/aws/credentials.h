// AWS credentials for signing requests (DynamoDB's, and any service's),
// from the standard sources the AWS SDKs and CLI read, in their order:
//   1. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for
//      temporary credentials, AWS_SESSION_TOKEN;
//   2. the shared credentials file: AWS_SHARED_CREDENTIALS_FILE, or
//      ~/.aws/credentials, section [AWS_PROFILE] (default `default`),
//      keys aws_access_key_id, aws_secret_access_key, aws_session_token.
// Not (yet) read: ~/.aws/config, SSO, web identity, container and instance
// metadata endpoints.
//
// Credentials are values; the loader is a pure function of the lookup it is
// given, so it is safe to call from any thread (the process environment
// itself must not be changed meanwhile).
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "indelible/result.h"

namespace indelible::aws {

struct Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  // Empty for long-term keys; set for temporary (STS) credentials, which
  // are then sent as x-amz-security-token.
  std::string session_token;
  // Where they came from, for messages: "environment", "/root/.aws/credentials [default]".
  std::string source;
};

// Looks up an environment variable; nullopt when unset (an empty value is
// treated as unset, as the AWS CLI does).
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// The process environment (std::getenv).
std::optional<std::string> ProcessEnv(const char* name);

// The first source above that has credentials. Errors: unauthorized, naming
// every source tried and what was missing in it; invalid when the shared
// file cannot be parsed (with its line).
Result<Credentials> LoadCredentials(const EnvLookup& env = ProcessEnv);

}  // namespace indelible::aws
