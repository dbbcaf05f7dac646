// AWS credentials for signing requests (DynamoDB's, and any service's),
// found the way the AWS SDKs' default chain finds them, in this order:
//   1. the environment: AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and, for
//      temporary credentials, AWS_SESSION_TOKEN;
//   2. the shared config and credentials files (AWS_CONFIG_FILE, default
//      ~/.aws/config; AWS_SHARED_CREDENTIALS_FILE, default
//      ~/.aws/credentials), profile AWS_PROFILE (default `default`): keys,
//      `role_arn` with `source_profile` or `credential_source` (STS
//      AssumeRole), `role_arn` with `web_identity_token_file`,
//      `credential_process` (shared_config.h, credential_sources.h);
//   3. web identity: AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN (EKS IRSA;
//      STS AssumeRoleWithWebIdentity at the regional endpoint);
//   4. container credentials: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or
//      _FULL_URI, with AWS_CONTAINER_AUTHORIZATION_TOKEN(_FILE) (ECS,
//      Fargate, EKS Pod Identity);
//   5. instance metadata, IMDSv2 only (EC2 instance profiles), unless
//      AWS_EC2_METADATA_DISABLED=true.
// Endpoints are overridden as the SDKs allow: AWS_ENDPOINT_URL_STS (or
// AWS_ENDPOINT_URL), AWS_EC2_METADATA_SERVICE_ENDPOINT, the container URI.
//
// The first source that is configured decides: a source that is set up but
// fails (STS refuses the token, the container endpoint does not answer) is
// an error, not a reason to fall through to the next one, which could hold
// someone else's (the node's, the instance's) broader rights. The error
// names every source looked at and why each gave nothing. Instance metadata
// counts as configured only when it answers.
//
// Temporary credentials (those with an expiration) are refreshed from the
// same source ahead of expiry on a thread of the provider's own
// (refreshing_credentials.h): callers never wait for a refresh, and never
// get credentials past their expiration.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
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
  // Where they came from, for messages: "environment",
  // "/root/.aws/credentials [default]", "web identity (arn:...)".
  std::string source;
  // When temporary credentials stop working; nullopt for long-term keys.
  std::optional<std::chrono::system_clock::time_point> expiration{};
};

// Looks up an environment variable; nullopt when unset (an empty value is
// treated as unset, as the AWS CLI does).
using EnvLookup = std::function<std::optional<std::string>(const char* name)>;

// The process environment (std::getenv).
std::optional<std::string> ProcessEnv(const char* name);

// What signs requests: the credentials to use now.
//
// Concurrency: thread-safe; Current() never does I/O and never blocks on a
// refresh, so it may be called on any thread, I/O threads included.
class CredentialsProvider {
 public:
  virtual ~CredentialsProvider() = default;
  // Credentials that are not expired and will not expire within a short
  // guard (refreshing_credentials.h). Errors: unavailable when the source's
  // temporary credentials expired and every refresh since failed (the
  // message has the last refresh's error); nothing may be signed then.
  virtual Result<std::shared_ptr<const Credentials>> Current() const = 0;
  // "environment", "web identity (arn:aws:iam::...)": for messages.
  virtual std::string source() const = 0;
};

// Credentials that never change (long-term keys, tests).
std::shared_ptr<CredentialsProvider> StaticCredentials(Credentials credentials);

struct ChainOptions {
  EnvLookup env = ProcessEnv;
  // The region for STS's regional endpoint when the profile or environment
  // names none (the store URL's).
  std::string region;
  // Instance metadata: how long to wait for its answers (each request) and
  // how many attempts, as AWS_METADATA_SERVICE_TIMEOUT and
  // AWS_METADATA_SERVICE_NUM_ATTEMPTS set them in the SDKs (1 s, 1): a
  // machine without it fails over in about a second.
  std::chrono::milliseconds metadata_timeout{1000};
  int metadata_attempts = 1;
};

// The chain above, resolved now (the first source's credentials fetched
// before this returns). Errors: unauthorized naming every source and why it
// gave nothing; the failing source's own error (unauthorized, invalid for a
// file that cannot be parsed, unavailable when an endpoint does not answer)
// with the sources before it named.
Result<std::shared_ptr<CredentialsProvider>> DefaultCredentialsChain(
    const ChainOptions& options = {});

// The chain's credentials as of now: a snapshot for short-lived callers
// (tests, one-off tools).
Result<Credentials> LoadCredentials(const EnvLookup& env = ProcessEnv);

}  // namespace indelible::aws
