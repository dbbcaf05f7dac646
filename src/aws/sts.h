// AWS STS, the two calls that turn one identity into a role's temporary
// credentials (Query protocol: a form-encoded POST, an XML answer):
//   AssumeRole                   signed with the caller's credentials
//                                (a profile's role_arn + source_profile);
//   AssumeRoleWithWebIdentity    unsigned, carrying an OIDC token (EKS IRSA,
//                                a profile's web_identity_token_file).
//
// Endpoint, as the SDKs choose it: AWS_ENDPOINT_URL_STS, else
// AWS_ENDPOINT_URL, else the regional https://sts.REGION.amazonaws.com
// (the SDKs' default since 2022), else, with no region at all, the global
// https://sts.amazonaws.com signed for us-east-1.
//
// Pure functions of their arguments and the endpoint's answers: safe from
// any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "aws/credentials.h"
#include "indelible/result.h"

namespace indelible::aws {

struct StsEndpoint {
  std::string url;     // "https://sts.eu-west-1.amazonaws.com"
  std::string region;  // what requests are signed for
};
StsEndpoint ChooseStsEndpoint(const EnvLookup& env, const std::string& region);

struct AssumeRoleRequest {
  std::string role_arn;
  std::string session_name;  // empty: "indelible-" and the time in ms
  std::string external_id;   // optional
  std::optional<int> duration_seconds;
  // AssumeRoleWithWebIdentity when set (the token's text); AssumeRole,
  // signed with `caller`, otherwise.
  std::optional<std::string> web_identity_token;
  Credentials caller;
};

// The role's credentials (with their Expiration). Errors: unauthorized with
// STS's error code and message (AccessDenied, InvalidIdentityToken,
// ExpiredToken...); unavailable when STS does not answer or answers 5xx.
Result<Credentials> AssumeRole(const StsEndpoint& endpoint, const AssumeRoleRequest& request,
                               std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace indelible::aws
