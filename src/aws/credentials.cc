#include "aws/credentials.h"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <vector>

#include "aws/errors.h"
#include "aws/metadata.h"
#include "aws/refreshing_credentials.h"
#include "aws/shared_config.h"
#include "aws/sts.h"

namespace indelible::aws {
namespace {

using Loader = RefreshingCredentials::Loader;

class StaticProvider final : public CredentialsProvider {
 public:
  explicit StaticProvider(Credentials credentials)
      : credentials_(std::make_shared<const Credentials>(std::move(credentials))) {}
  Result<std::shared_ptr<const Credentials>> Current() const override { return credentials_; }
  std::string source() const override { return credentials_->source; }

 private:
  const std::shared_ptr<const Credentials> credentials_;
};

std::string Join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out;
}

// `status` with the sources looked at before it named, so that one message
// says what the whole chain saw.
Status WithSkipped(const Status& status, const std::vector<std::string>& skipped) {
  if (skipped.empty()) return status;
  return Annotate(status, fmt::format(" (before it: {})", Join(skipped)));
}

Result<std::string> ReadToken(const std::string& path, const char* what) {
  std::ifstream in(path);
  if (!in) return Status::Unauthorized(fmt::format("{} {} cannot be read", what, path));
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
    token.pop_back();
  if (token.empty()) return Status::Unauthorized(fmt::format("{} {} is empty", what, path));
  return token;
}

// AssumeRoleWithWebIdentity with the token file read afresh each time: EKS
// rotates it (hourly) under the process.
Loader WebIdentityLoader(std::string token_file, std::string role_arn, std::string session,
                         StsEndpoint endpoint, const char* what) {
  return [=]() -> Result<Credentials> {
    auto token = ReadToken(token_file, what);
    if (!token.ok()) return token.status();
    AssumeRoleRequest request;
    request.role_arn = role_arn;
    request.session_name = session;
    request.web_identity_token = std::move(*token);
    return AssumeRole(endpoint, request);
  };
}

// credential_process: a command whose standard output is a JSON document
// with Version 1 (the AWS CLI's "sourcing credentials with an external
// process"). Run through /bin/sh, as the CLI does on Unix.
Loader ProcessLoader(std::string command, std::string where) {
  return [=]() -> Result<Credentials> {
    FILE* pipe = ::popen(command.c_str(), "r");
    if (pipe == nullptr)
      return Status::Unauthorized(
          fmt::format("credential_process of {} cannot be started: {}", where, command));
    std::string output;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) output.append(buf, n);
    const int status = ::pclose(pipe);
    const std::string source = fmt::format("credential_process of {}", where);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
      return Status::Unauthorized(fmt::format("{} ({}) failed with status {}", source, command,
                                              WIFEXITED(status) ? WEXITSTATUS(status) : -1));
    if (output.find("\"Version\"") == std::string::npos)
      return Status::Unauthorized(fmt::format("{} printed no \"Version\": 1 document", source));
    return ParseCredentialsDocument(output, source);
  };
}

Loader Fixed(Credentials credentials) {
  return [credentials = std::move(credentials)]() -> Result<Credentials> { return credentials; };
}

MetadataOptions Metadata(const ChainOptions& options) {
  MetadataOptions metadata;
  metadata.env = options.env;
  metadata.timeout = options.metadata_timeout;
  metadata.attempts = options.metadata_attempts;
  if (auto seconds = options.env("AWS_METADATA_SERVICE_TIMEOUT"))
    metadata.timeout = std::chrono::milliseconds(
        static_cast<long long>(std::max(0.1, std::atof(seconds->c_str())) * 1000));
  if (auto attempts = options.env("AWS_METADATA_SERVICE_NUM_ATTEMPTS"))
    metadata.attempts = std::max(1, std::atoi(attempts->c_str()));
  return metadata;
}

// What a profile's keys say about credentials: a loader, nullopt when the
// profile holds none (it only sets a region, say), or why it cannot work.
Result<std::optional<Loader>> ProfileLoader(const SharedConfig& config, const Profile& profile,
                                            const ChainOptions& options,
                                            std::set<std::string> visited) {
  visited.insert(profile.name);
  std::string region = profile.Get("region");
  if (region.empty()) region = ConfiguredRegion(options.env);
  if (region.empty()) region = options.region;
  if (profile.Has("role_arn")) {
    const std::string role = profile.Get("role_arn");
    if (profile.Has("mfa_serial"))
      return Status::Unauthorized(fmt::format(
          "{} assumes {} with mfa_serial, which needs a code typed in: not possible for a "
          "server. Use a role without MFA, or credential_process",
          profile.where, role));
    const StsEndpoint sts = ChooseStsEndpoint(options.env, region);
    if (profile.Has("web_identity_token_file"))
      return std::optional<Loader>(WebIdentityLoader(profile.Get("web_identity_token_file"), role,
                                                     profile.Get("role_session_name"), sts,
                                                     "web_identity_token_file"));
    Loader caller;
    if (profile.Has("source_profile")) {
      const std::string name = profile.Get("source_profile");
      if (name == profile.name) {
        if (!profile.Has("aws_access_key_id") || !profile.Has("aws_secret_access_key"))
          return Status::Unauthorized(
              fmt::format("{} is its own source_profile but has no aws_access_key_id and "
                          "aws_secret_access_key",
                          profile.where));
        caller = Fixed({profile.Get("aws_access_key_id"), profile.Get("aws_secret_access_key"),
                        profile.Get("aws_session_token"), profile.where});
      } else {
        if (visited.count(name) != 0)
          return Status::Invalid(
              "credentials",
              fmt::format("{}: source_profile {} leads back to itself", profile.where, name));
        const auto source = config.Find(name);
        if (!source)
          return Status::Unauthorized(fmt::format("{}: source_profile {} does not exist in {}",
                                                  profile.where, name, config.Files()));
        auto loader = ProfileLoader(config, *source, options, visited);
        if (!loader.ok()) return loader.status();
        if (!*loader)
          return Status::Unauthorized(fmt::format("{}: source_profile {} has no credentials",
                                                  profile.where, source->where));
        caller = std::move(**loader);
      }
    } else if (profile.Has("credential_source")) {
      const std::string source = profile.Get("credential_source");
      if (source == "Environment") {
        const auto id = options.env("AWS_ACCESS_KEY_ID");
        const auto secret = options.env("AWS_SECRET_ACCESS_KEY");
        if (!id || !secret)
          return Status::Unauthorized(
              fmt::format("{}: credential_source Environment, but AWS_ACCESS_KEY_ID and "
                          "AWS_SECRET_ACCESS_KEY are not both set",
                          profile.where));
        caller =
            Fixed({*id, *secret, options.env("AWS_SESSION_TOKEN").value_or(""), "environment"});
      } else if (source == "Ec2InstanceMetadata") {
        caller = [metadata = Metadata(options)] { return InstanceMetadataCredentials(metadata); };
      } else if (source == "EcsContainer") {
        caller = [metadata = Metadata(options)] { return ContainerCredentials(metadata); };
      } else {
        return Status::Invalid(
            "credentials",
            fmt::format("{}: credential_source {} is none of Environment, Ec2InstanceMetadata, "
                        "EcsContainer",
                        profile.where, source));
      }
    } else {
      return Status::Unauthorized(
          fmt::format("{} has role_arn but neither source_profile, credential_source nor "
                      "web_identity_token_file to assume it with",
                      profile.where));
    }
    AssumeRoleRequest request;
    request.role_arn = role;
    request.session_name = profile.Get("role_session_name");
    request.external_id = profile.Get("external_id");
    if (profile.Has("duration_seconds"))
      request.duration_seconds = std::atoi(profile.Get("duration_seconds").c_str());
    return std::optional<Loader>(
        [caller = std::move(caller), request, sts]() -> Result<Credentials> {
          auto source = caller();
          if (!source.ok()) return source.status();
          AssumeRoleRequest signed_request = request;
          signed_request.caller = std::move(*source);
          return AssumeRole(sts, signed_request);
        });
  }
  if (profile.Has("aws_access_key_id") || profile.Has("aws_secret_access_key")) {
    for (const char* key : {"aws_access_key_id", "aws_secret_access_key"})
      if (!profile.Has(key))
        return Status::Unauthorized(fmt::format("{} has no {}", profile.where, key));
    return std::optional<Loader>(
        Fixed({profile.Get("aws_access_key_id"), profile.Get("aws_secret_access_key"),
               profile.Get("aws_session_token"), profile.where}));
  }
  if (profile.Has("credential_process"))
    return std::optional<Loader>(ProcessLoader(profile.Get("credential_process"), profile.where));
  if (profile.Has("sso_session") || profile.Has("sso_start_url"))
    return Status::Unauthorized(fmt::format(
        "{} is an IAM Identity Center (SSO) profile, which indelible does not read. Run "
        "`aws sso login`, then give the profile credential_process = aws configure "
        "export-credentials --profile {} --format process",
        profile.where, profile.name));
  return std::optional<Loader>();
}

// Runs the source's loader once and wraps it: refreshing when what it gave
// expires.
Result<std::shared_ptr<CredentialsProvider>> Start(
    Loader loader, const std::vector<std::string>& skipped,
    std::optional<Result<Credentials>> fetched = {}) {
  // `fetched`: the source's first answer when the caller already has it
  // (instance metadata is asked once to learn whether it is there at all).
  Result<Credentials> first = fetched ? std::move(*fetched) : loader();
  if (!first.ok()) return WithSkipped(first.status(), skipped);
  if (!first->expiration) return StaticCredentials(std::move(*first));
  return std::shared_ptr<CredentialsProvider>(
      std::make_shared<RefreshingCredentials>(std::move(loader), std::move(*first)));
}

}  // namespace

std::optional<std::string> ProcessEnv(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  return std::string(value);
}

std::shared_ptr<CredentialsProvider> StaticCredentials(Credentials credentials) {
  return std::make_shared<StaticProvider>(std::move(credentials));
}

Result<std::shared_ptr<CredentialsProvider>> DefaultCredentialsChain(const ChainOptions& options) {
  const EnvLookup& env = options.env;
  std::vector<std::string> skipped;

  // 1. The environment. Half a pair is a mistake to report, not a reason to
  // go on to a file that may hold someone else's keys.
  const auto key_id = env("AWS_ACCESS_KEY_ID");
  const auto secret = env("AWS_SECRET_ACCESS_KEY");
  if (key_id && !secret)
    return Status::Unauthorized("AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not");
  if (secret && !key_id)
    return Status::Unauthorized("AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not");
  if (key_id)
    return StaticCredentials(
        {*key_id, *secret, env("AWS_SESSION_TOKEN").value_or(""), "environment"});
  skipped.push_back("environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set");

  // 2. The shared config and credentials files.
  auto config = SharedConfig::Load(env);
  if (!config.ok()) return WithSkipped(config.status(), skipped);
  const auto profile = config->Find(config->selected());
  if (!profile) {
    if (config->selected_explicitly())
      return WithSkipped(Status::Unauthorized(fmt::format("AWS_PROFILE={}: no such profile in {}",
                                                          config->selected(), config->Files())),
                         skipped);
    skipped.push_back(
        config->any_file()
            ? fmt::format("shared files: {} have no [default] profile", config->Files())
            : fmt::format("shared files: {} do not exist", config->Files()));
  } else {
    auto loader = ProfileLoader(*config, *profile, options, {});
    if (!loader.ok()) return WithSkipped(loader.status(), skipped);
    if (*loader) return Start(std::move(**loader), skipped);
    skipped.push_back(fmt::format("profile {}: no credentials in it", profile->where));
  }

  // 3. Web identity from the environment (EKS IRSA).
  if (auto token_file = env("AWS_WEB_IDENTITY_TOKEN_FILE")) {
    const auto role = env("AWS_ROLE_ARN");
    if (!role)
      return WithSkipped(Status::Unauthorized("AWS_WEB_IDENTITY_TOKEN_FILE is set but "
                                              "AWS_ROLE_ARN is not"),
                         skipped);
    std::string region = ConfiguredRegion(env);
    if (region.empty()) region = options.region;
    return Start(WebIdentityLoader(*token_file, *role, env("AWS_ROLE_SESSION_NAME").value_or(""),
                                   ChooseStsEndpoint(env, region), "AWS_WEB_IDENTITY_TOKEN_FILE"),
                 skipped);
  }
  skipped.push_back("web identity: AWS_WEB_IDENTITY_TOKEN_FILE is not set");

  // 4. The container's endpoint (ECS, Fargate, EKS Pod Identity).
  if (ContainerCredentialsConfigured(env))
    return Start([metadata = Metadata(options)] { return ContainerCredentials(metadata); },
                 skipped);
  skipped.push_back("container: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and _FULL_URI are not set");

  // 5. Instance metadata, configured only if it answers.
  if (InstanceMetadataDisabled(env)) {
    skipped.push_back("instance metadata: AWS_EC2_METADATA_DISABLED=true");
  } else {
    const MetadataOptions metadata = Metadata(options);
    auto first = InstanceMetadataCredentials(metadata);
    if (first.ok() || first.status().code() != ErrorCode::kUnavailable)
      return Start([metadata] { return InstanceMetadataCredentials(metadata); }, skipped,
                   std::move(first));
    skipped.push_back(fmt::format("instance metadata: {}", first.status().message()));
  }
  return Status::Unauthorized(fmt::format("no AWS credentials found: {}", Join(skipped)));
}

Result<Credentials> LoadCredentials(const EnvLookup& env) {
  ChainOptions options;
  options.env = env;
  auto provider = DefaultCredentialsChain(options);
  if (!provider.ok()) return provider.status();
  auto current = (*provider)->Current();
  if (!current.ok()) return current.status();
  return **current;
}

}  // namespace indelible::aws
