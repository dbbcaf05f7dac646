#include "aws/metadata.h"

#include <fmt/format.h>

#include <boost/json/parse.hpp>
#include <ctime>
#include <fstream>
#include <sstream>

#include "aws/http_fetch.h"
#include "net/url.h"

namespace indelible::aws {
namespace {

using std::chrono::system_clock;

// 21600 s (6 h), the largest TTL IMDSv2 grants: the SDKs ask for it too.
constexpr const char* kTokenTtl = "21600";

std::string TrimSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

int Digits(std::string_view text, std::size_t at, std::size_t count) {
  if (at + count > text.size()) return -1;
  int value = 0;
  for (std::size_t i = at; i < at + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return -1;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

// The first line of an answer body, trimmed (role names end with a newline
// on some hosts).
std::string FirstLine(const std::string& body) {
  std::string line = body.substr(0, body.find('\n'));
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

class Imds {
 public:
  explicit Imds(const MetadataOptions& options)
      : options_(options), endpoint_(InstanceMetadataEndpoint(options.env)) {}

  Result<std::string> Get(const std::string& path) {
    if (token_.empty()) {
      FetchRequest put;
      put.method = "PUT";
      put.url = endpoint_ + "/latest/api/token";
      put.headers = {{"X-aws-ec2-metadata-token-ttl-seconds", kTokenTtl}};
      put.timeout = options_.timeout;
      put.attempts = options_.attempts;
      auto answer = Fetch(put);
      if (!answer.ok())
        return Status::Unavailable(fmt::format("no instance metadata (IMDSv2) at {}: {}", endpoint_,
                                               answer.status().message()));
      if (answer->status != 200)
        return Status::Unauthorized(
            fmt::format("instance metadata at {} refused an IMDSv2 token (HTTP {}); IMDSv1 is "
                        "not used. On EC2, check the instance's metadata options (HttpTokens, "
                        "HttpPutResponseHopLimit >= 2 in a container)",
                        endpoint_, answer->status));
      token_ = answer->body;
    }
    FetchRequest get;
    get.url = endpoint_ + path;
    get.headers = {{"X-aws-ec2-metadata-token", token_}};
    get.timeout = options_.timeout;
    get.attempts = options_.attempts;
    auto answer = Fetch(get);
    if (!answer.ok()) return answer.status();
    if (answer->status != 200)
      return Status::Unauthorized(fmt::format("instance metadata GET {} answered HTTP {}{}",
                                              get.url, answer->status,
                                              answer->status == 404 ? " (no such entry)" : ""));
    return std::move(answer->body);
  }

  const std::string& endpoint() const { return endpoint_; }

 private:
  const MetadataOptions& options_;
  const std::string endpoint_;
  std::string token_;
};

bool AllowedPlainHttpHost(const std::string& host) {
  // The SDKs' rule: a plain-http full URI must stay on the machine or go to
  // the ECS (169.254.170.2) or EKS Pod Identity (169.254.170.23,
  // fd00:ec2::23) agents.
  return host == "localhost" || host.starts_with("127.") || host == "::1" ||
         host == "169.254.170.2" || host == "169.254.170.23" || host == "fd00:ec2::23";
}

}  // namespace

std::optional<system_clock::time_point> ParseTimestamp(std::string_view text) {
  // YYYY-MM-DDTHH:MM:SS[.fff][Z|+HH:MM|-HH:MM]
  if (text.size() < 20 || text[4] != '-' || text[7] != '-' ||
      (text[10] != 'T' && text[10] != 't' && text[10] != ' ') || text[13] != ':' || text[16] != ':')
    return std::nullopt;
  std::tm tm{};
  tm.tm_year = Digits(text, 0, 4) - 1900;
  tm.tm_mon = Digits(text, 5, 2) - 1;
  tm.tm_mday = Digits(text, 8, 2);
  tm.tm_hour = Digits(text, 11, 2);
  tm.tm_min = Digits(text, 14, 2);
  tm.tm_sec = Digits(text, 17, 2);
  if (tm.tm_year < 0 || tm.tm_mon < 0 || tm.tm_mday < 1 || tm.tm_hour < 0 || tm.tm_min < 0 ||
      tm.tm_sec < 0)
    return std::nullopt;
  std::size_t at = 19;
  if (at < text.size() && text[at] == '.') {
    ++at;
    while (at < text.size() && text[at] >= '0' && text[at] <= '9') ++at;
  }
  int offset_minutes = 0;
  if (at < text.size() && (text[at] == 'Z' || text[at] == 'z')) {
    ++at;
  } else if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
    const int hours = Digits(text, at + 1, 2), minutes = Digits(text, at + 4, 2);
    if (hours < 0 || minutes < 0 || text.size() < at + 6 || text[at + 3] != ':')
      return std::nullopt;
    offset_minutes = (text[at] == '+' ? 1 : -1) * (hours * 60 + minutes);
    at += 6;
  } else {
    return std::nullopt;
  }
  if (at != text.size()) return std::nullopt;
  const std::time_t utc = timegm(&tm);
  if (utc == static_cast<std::time_t>(-1)) return std::nullopt;
  return system_clock::from_time_t(utc) - std::chrono::minutes(offset_minutes);
}

Result<Credentials> ParseCredentialsDocument(std::string_view json, const std::string& source) {
  boost::system::error_code ec;
  const boost::json::value doc = boost::json::parse(json, ec);
  if (ec || !doc.is_object())
    return Status::Unauthorized(
        fmt::format("{} answered something that is not a JSON object: {:.200}", source, json));
  const auto& object = doc.get_object();
  const auto get = [&](const char* name) -> std::string {
    const auto* value = object.if_contains(name);
    return value != nullptr && value->is_string() ? std::string(value->get_string()) : "";
  };
  if (const std::string code = get("Code"); !code.empty() && code != "Success")
    return Status::Unauthorized(
        fmt::format("{} answered Code {}: {}", source, code, get("Message")));
  Credentials credentials;
  credentials.access_key_id = get("AccessKeyId");
  credentials.secret_access_key = get("SecretAccessKey");
  credentials.session_token = get("Token");
  if (credentials.session_token.empty()) credentials.session_token = get("SessionToken");
  credentials.source = source;
  if (credentials.access_key_id.empty() || credentials.secret_access_key.empty())
    return Status::Unauthorized(
        fmt::format("{} answered no AccessKeyId or SecretAccessKey", source));
  if (const std::string expiration = get("Expiration"); !expiration.empty()) {
    credentials.expiration = ParseTimestamp(expiration);
    if (!credentials.expiration)
      return Status::Unauthorized(fmt::format(
          "{} answered an Expiration that is not an ISO 8601 time: {}", source, expiration));
  }
  return credentials;
}

bool InstanceMetadataDisabled(const EnvLookup& env) {
  const auto disabled = env("AWS_EC2_METADATA_DISABLED");
  return disabled && (*disabled == "true" || *disabled == "TRUE");
}

std::string InstanceMetadataEndpoint(const EnvLookup& env) {
  if (auto endpoint = env("AWS_EC2_METADATA_SERVICE_ENDPOINT")) return TrimSlashes(*endpoint);
  if (auto mode = env("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE"); mode && *mode == "IPv6")
    return "http://[fd00:ec2::254]";
  return "http://169.254.169.254";
}

Result<Credentials> InstanceMetadataCredentials(const MetadataOptions& options) {
  Imds imds(options);
  const std::string base = "/latest/meta-data/iam/security-credentials/";
  auto roles = imds.Get(base);
  if (!roles.ok()) {
    if (roles.status().code() == ErrorCode::kUnauthorized &&
        roles.status().message().find("HTTP 404") != std::string::npos)
      return Status::Unauthorized(fmt::format(
          "instance metadata at {} has no IAM role (attach an instance profile)", imds.endpoint()));
    return roles.status();
  }
  const std::string role = FirstLine(*roles);
  if (role.empty())
    return Status::Unauthorized(fmt::format(
        "instance metadata at {} has no IAM role (attach an instance profile)", imds.endpoint()));
  auto document = imds.Get(base + role);
  if (!document.ok()) return document.status();
  return ParseCredentialsDocument(
      *document, fmt::format("instance metadata {} (role {})", imds.endpoint(), role));
}

Result<std::string> InstanceMetadataRegion(const MetadataOptions& options) {
  Imds imds(options);
  auto region = imds.Get("/latest/meta-data/placement/region");
  if (!region.ok()) return region.status();
  return FirstLine(*region);
}

bool ContainerCredentialsConfigured(const EnvLookup& env) {
  return env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI").has_value() ||
         env("AWS_CONTAINER_CREDENTIALS_FULL_URI").has_value();
}

Result<Credentials> ContainerCredentials(const MetadataOptions& options) {
  const EnvLookup& env = options.env;
  std::string url;
  if (auto relative = env("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")) {
    url = "http://169.254.170.2" + (relative->starts_with("/") ? "" : std::string("/")) + *relative;
  } else if (auto full = env("AWS_CONTAINER_CREDENTIALS_FULL_URI")) {
    url = *full;
    const auto [origin, target] = SplitOrigin(url);
    auto endpoint = net::ParseUrl(origin, "AWS_CONTAINER_CREDENTIALS_FULL_URI");
    if (!endpoint.ok()) return endpoint.status();
    if (!endpoint->tls && !AllowedPlainHttpHost(endpoint->host))
      return Status::Invalid(
          "AWS_CONTAINER_CREDENTIALS_FULL_URI",
          fmt::format("{} is plain http to {}, which is neither a loopback address nor the "
                      "ECS/EKS credential agent's (169.254.170.2, 169.254.170.23): use https",
                      url, endpoint->host));
  } else {
    return Status::Unauthorized(
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and AWS_CONTAINER_CREDENTIALS_FULL_URI are not "
        "set");
  }
  FetchRequest get;
  get.url = url;
  get.timeout = std::max(options.timeout, std::chrono::milliseconds(2000));
  get.attempts = std::max(options.attempts, 3);
  if (auto file = env("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")) {
    std::ifstream in(*file);
    if (!in)
      return Status::Unauthorized(
          fmt::format("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE {} cannot be read", *file));
    std::stringstream token;
    token << in.rdbuf();
    std::string value = token.str();
    while (!value.empty() && (value.back() == '\n' || value.back() == '\r')) value.pop_back();
    get.headers.emplace_back("Authorization", value);
  } else if (auto token = env("AWS_CONTAINER_AUTHORIZATION_TOKEN")) {
    get.headers.emplace_back("Authorization", *token);
  }
  auto answer = Fetch(get);
  if (!answer.ok()) return answer.status();
  const std::string source = fmt::format("the container credentials endpoint {}", url);
  if (answer->status != 200)
    return Status::Unauthorized(
        fmt::format("{} answered HTTP {}: {:.200}", source, answer->status, answer->body));
  return ParseCredentialsDocument(answer->body, source);
}

}  // namespace indelible::aws
