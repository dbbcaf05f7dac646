// Credentials served over HTTP by the machine or container a process runs
// in, as the AWS SDKs fetch them:
//
// Instance metadata (EC2 instance profiles), IMDSv2 only:
//   PUT  /latest/api/token  (X-aws-ec2-metadata-token-ttl-seconds: 21600)
//   GET  /latest/meta-data/iam/security-credentials/        -> role name
//   GET  /latest/meta-data/iam/security-credentials/ROLE    -> credentials
//   GET  /latest/meta-data/placement/region                 -> region
// each GET with X-aws-ec2-metadata-token. Endpoint: http://169.254.169.254,
// or http://[fd00:ec2::254] with AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE=IPv6,
// or AWS_EC2_METADATA_SERVICE_ENDPOINT. IMDSv1 (a GET without a token) is
// never tried: a hop limit or a disabled IMDSv2 is reported, not worked around.
//
// Container credentials (ECS, Fargate, EKS Pod Identity): a GET of
// http://169.254.170.2 + AWS_CONTAINER_CREDENTIALS_RELATIVE_URI, or of
// AWS_CONTAINER_CREDENTIALS_FULL_URI (https, or http to a loopback address
// or the ECS/EKS link-local ones only, as the SDKs allow), with the
// Authorization header from AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE (read at
// every fetch: EKS rotates it) or AWS_CONTAINER_AUTHORIZATION_TOKEN.
//
// Pure functions of their arguments (and of the files and endpoints they
// read): safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "aws/credentials.h"
#include "indelible/result.h"

namespace indelible::aws {

// "2026-11-28T17:40:00Z", with or without fractional seconds, "Z" or
// "+HH:MM": the Expiration of AWS's credential documents. nullopt when it
// is not such a time.
std::optional<std::chrono::system_clock::time_point> ParseTimestamp(std::string_view text);

// A JSON credentials document (instance metadata, the container endpoint,
// credential_process): AccessKeyId, SecretAccessKey, Token or SessionToken,
// Expiration. Errors: unauthorized naming `source` and what is missing.
Result<Credentials> ParseCredentialsDocument(std::string_view json, const std::string& source);

struct MetadataOptions {
  EnvLookup env = ProcessEnv;
  std::chrono::milliseconds timeout{1000};
  int attempts = 1;
};

// Whether AWS_EC2_METADATA_DISABLED=true turns instance metadata off.
bool InstanceMetadataDisabled(const EnvLookup& env);
// The instance metadata endpoint the environment selects.
std::string InstanceMetadataEndpoint(const EnvLookup& env);
// The instance role's credentials. Errors: unavailable when the endpoint
// does not answer (no instance metadata here), unauthorized when it answers
// but has no role or refuses the token.
Result<Credentials> InstanceMetadataCredentials(const MetadataOptions& options);
// The instance's region. Errors: as above.
Result<std::string> InstanceMetadataRegion(const MetadataOptions& options);

// Whether AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI is set.
bool ContainerCredentialsConfigured(const EnvLookup& env);
// The container's credentials. Errors: invalid for a FULL_URI the SDKs
// would refuse (plain http to a host that is not loopback or the ECS/EKS
// address); unavailable when the endpoint does not answer; unauthorized
// when it refuses.
Result<Credentials> ContainerCredentials(const MetadataOptions& options);

}  // namespace indelible::aws
