#include "storage/dynamodb/store_url.h"

#include <fmt/format.h>

#include <boost/url/parse.hpp>
#include <cctype>
#include <charconv>

#include "aws/metadata.h"
#include "aws/shared_config.h"

namespace indelible::dynamodb {
namespace {

Status BadUrl(std::string_view field, std::string message) {
  return Status::Invalid(std::string(field), std::move(message));
}

// Table names allow A-Z a-z 0-9 _ - . and 255 characters; the prefix
// leaves room for the store's own part.
bool ValidPrefix(std::string_view prefix) {
  if (prefix.size() > 200) return false;
  for (char c : prefix)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.')
      return false;
  return true;
}

// AWS's own endpoints name their region: dynamodb.eu-west-1.amazonaws.com
// (and -fips, and .com.cn in China). Empty for any other host.
std::string RegionOfHost(std::string_view host) {
  for (std::string_view suffix : {".amazonaws.com", ".amazonaws.com.cn"}) {
    for (std::string_view prefix : {"dynamodb.", "dynamodb-fips."}) {
      if (host.size() <= prefix.size() + suffix.size() || !host.starts_with(prefix) ||
          !host.ends_with(suffix))
        continue;
      const auto region = host.substr(prefix.size(), host.size() - prefix.size() - suffix.size());
      bool plain = true;
      for (char c : region) plain &= (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
      if (plain) return std::string(region);
    }
  }
  return "";
}

Result<int> Number(std::string_view name, std::string_view value, int min, int max) {
  int number = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), number);
  if (error != std::errc() || end != value.data() + value.size() || number < min || number > max)
    return BadUrl("url", fmt::format("{}={} is not a number from {} to {}", name, value, min, max));
  return number;
}

}  // namespace

Result<StoreUrl> ParseStoreUrl(std::string_view url, const aws::EnvLookup& env) {
  auto parsed = boost::urls::parse_uri(url);
  if (!parsed || parsed->scheme() != "dynamodb")
    return BadUrl("url", fmt::format("'{}' is not a dynamodb://HOST[:PORT][?...] URL", url));
  if ((!parsed->path().empty() && parsed->path() != "/") || parsed->has_fragment() ||
      parsed->has_userinfo())
    return BadUrl("url", fmt::format("'{}': a dynamodb:// URL has no path, fragment or user "
                                     "(credentials come from the environment)",
                                     url));
  StoreUrl out;
  out.text = std::string(url);
  bool tls = true;
  std::string port = parsed->port();
  for (const auto& param : parsed->params()) {
    const std::string& name = param.key;
    const std::string& value = param.value;
    if (name == "region") {
      out.region = value;
    } else if (name == "prefix") {
      if (!ValidPrefix(value))
        return BadUrl("url", fmt::format("prefix '{}' may hold only A-Z a-z 0-9 _ - . (at most "
                                         "200 of them)",
                                         value));
      out.table_prefix = value;
    } else if (name == "tls") {
      if (value != "0" && value != "1")
        return BadUrl("url", fmt::format("tls={} must be 0 or 1", value));
      tls = value == "1";
    } else if (name == "connect_timeout_ms" || name == "request_timeout_ms") {
      auto n = Number(name, value, 1, 3'600'000);
      if (!n.ok()) return n.status();
      (name == "connect_timeout_ms" ? out.connect_timeout : out.request_timeout) =
          std::chrono::milliseconds(*n);
    } else if (name == "max_attempts") {
      auto n = Number(name, value, 1, 100);
      if (!n.ok()) return n.status();
      out.max_attempts = *n;
    } else if (name == "deadline_ms") {
      auto n = Number(name, value, 1, 3'600'000);
      if (!n.ok()) return n.status();
      out.deadline = std::chrono::milliseconds(*n);
    } else if (name == "ca_file") {
      out.ca_file = value;
    } else if (name == "indexer") {
      if (value != "0" && value != "1")
        return BadUrl("url", fmt::format("indexer={} must be 0 or 1", value));
      out.indexer = value == "1";
    } else if (name == "index_poll_ms") {
      auto n = Number(name, value, 1, 60'000);
      if (!n.ok()) return n.status();
      out.index_poll = std::chrono::milliseconds(*n);
    } else if (name == "index_lease_ms") {
      auto n = Number(name, value, 100, 600'000);
      if (!n.ok()) return n.status();
      out.index_lease = std::chrono::milliseconds(*n);
    } else if (name == "commit_threads") {
      auto n = Number(name, value, 1, 256);
      if (!n.ok()) return n.status();
      out.commit_threads = *n;
    } else if (name == "index_batch_ms") {
      auto n = Number(name, value, 0, 10'000);
      if (!n.ok()) return n.status();
      out.index_batch = std::chrono::milliseconds(*n);
    } else if (name == "head_cache") {
      auto n = Number(name, value, 0, 10'000'000);
      if (!n.ok()) return n.status();
      out.head_cache = *n;
    } else if (name == "create_tables") {
      if (value != "0" && value != "1")
        return BadUrl("url", fmt::format("create_tables={} must be 0 or 1", value));
      out.create_tables = value == "1";
    } else if (name == "tip_appends") {
      // At most 64: a move's REMOVE names each held append (4 KB expressions).
      auto n = Number(name, value, 1, 64);
      if (!n.ok()) return n.status();
      out.tip_appends = *n;
    } else if (name == "tip_bytes") {
      auto n = Number(name, value, 1024, 64 * 1024);
      if (!n.ok()) return n.status();
      out.tip_bytes = *n;
    } else {
      return BadUrl("url", fmt::format("unknown parameter '{}' (known: region, prefix, tls, "
                                       "connect_timeout_ms, request_timeout_ms, max_attempts, "
                                       "deadline_ms, ca_file, indexer, index_poll_ms, "
                                       "index_lease_ms, commit_threads, index_batch_ms, "
                                       "head_cache, create_tables, tip_appends, tip_bytes)",
                                       name));
    }
  }
  auto endpoint = net::MakeEndpoint(tls, parsed->host_address(), port, "url");
  if (!endpoint.ok()) return endpoint.status();
  out.endpoint = std::move(*endpoint);
  if (out.region.empty()) out.region = RegionOfHost(out.endpoint.host);
  // Then where the AWS SDKs look: the environment, the profile, and last
  // the instance's metadata (a second at most when there is none).
  if (out.region.empty()) out.region = aws::ConfiguredRegion(env);
  std::string metadata_error;
  if (out.region.empty()) {
    aws::MetadataOptions metadata;
    metadata.env = env;
    if (aws::InstanceMetadataDisabled(env)) {
      metadata_error = "AWS_EC2_METADATA_DISABLED=true";
    } else if (auto region = aws::InstanceMetadataRegion(metadata); region.ok()) {
      out.region = *region;
    } else {
      metadata_error = region.status().message();
    }
  }
  if (out.region.empty())
    return BadUrl("url", fmt::format("'{}' names no region: add ?region=..., set AWS_REGION, or "
                                     "set region in the AWS profile (instance metadata: {})",
                                     url, metadata_error));
  return out;
}

aws::ClientOptions ClientOptionsFromUrl(const StoreUrl& url, aws::Credentials credentials) {
  return ClientOptionsFromUrl(url, aws::StaticCredentials(std::move(credentials)));
}

aws::ClientOptions ClientOptionsFromUrl(const StoreUrl& url,
                                        std::shared_ptr<aws::CredentialsProvider> credentials) {
  aws::ClientOptions o;
  o.endpoint = url.endpoint;
  o.region = url.region;
  o.credentials_provider = std::move(credentials);
  if (url.connect_timeout) o.connect_timeout = *url.connect_timeout;
  if (url.request_timeout) o.request_timeout = *url.request_timeout;
  if (url.max_attempts) o.retry.max_attempts = *url.max_attempts;
  o.retry.deadline = url.deadline;
  o.ca_file = url.ca_file;
  return o;
}

}  // namespace indelible::dynamodb
