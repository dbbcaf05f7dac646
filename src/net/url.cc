#include "net/url.h"

#include <fmt/format.h>

#include <charconv>

namespace indelible::net {
namespace {

Status BadUrl(std::string_view field, std::string_view url, std::string_view why) {
  return Status::Invalid(
      std::string(field),
      fmt::format("'{}' is not a server URL: {} (expected http://HOST:PORT or https://HOST:PORT, "
                  "with an optional /PREFIX)",
                  url, why));
}

}  // namespace

Result<Endpoint> MakeEndpoint(bool tls, std::string_view host, std::string_view port,
                              std::string_view field) {
  if (host.empty()) return Status::Invalid(std::string(field), "the URL names no host");
  const std::string_view standard = tls ? "443" : "80";
  if (port.empty()) port = standard;
  unsigned number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (ec != std::errc() || end != port.data() + port.size() || number == 0 || number > 65535)
    return Status::Invalid(std::string(field),
                           fmt::format("port '{}' is not a number from 1 to 65535", port));
  Endpoint e;
  e.tls = tls;
  e.host = std::string(host);
  e.port = std::to_string(number);
  const std::string bracketed =
      host.find(':') != std::string_view::npos ? fmt::format("[{}]", host) : std::string(host);
  e.host_header = e.port == standard ? bracketed : bracketed + ":" + e.port;
  e.url = std::string(tls ? "https://" : "http://") + e.host_header;
  return e;
}

Result<Endpoint> ParseUrl(std::string_view url, std::string_view field) {
  bool tls = false;
  std::string_view rest;
  if (url.starts_with("https://")) {
    tls = true;
    rest = url.substr(8);
  } else if (url.starts_with("http://")) {
    rest = url.substr(7);
  } else {
    return BadUrl(field, url, "it does not start with http:// or https://");
  }
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (url.find_first_of("?#") != std::string_view::npos)
    return BadUrl(field, url, "a query or fragment has no meaning here");
  if (authority.find('@') != std::string_view::npos)
    return BadUrl(field, url, "user names and passwords are not supported");

  std::string_view host = authority;
  std::string_view port;
  if (authority.starts_with('[')) {  // IPv6 literal
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl(field, url, "an IPv6 address lacks its ']'");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return BadUrl(field, url, "unexpected text after the IPv6 address");
      port = after.substr(1);
      if (port.empty()) return BadUrl(field, url, "the port after ':' is missing");
    }
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
    if (port.empty()) return BadUrl(field, url, "the port after ':' is missing");
    if (host.find(':') != std::string_view::npos)
      return BadUrl(field, url, "an IPv6 address goes in brackets: [::1]");
  }
  if (host.empty()) return BadUrl(field, url, "the host is missing");
  auto endpoint = MakeEndpoint(tls, host, port, field);
  if (!endpoint.ok()) return BadUrl(field, url, endpoint.status().message());
  endpoint->url = std::string(url);
  endpoint->base_path = std::string(path);
  return endpoint;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
        (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' || byte == '_' || byte == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[byte >> 4]);
      out.push_back(kHex[byte & 15]);
    }
  }
  return out;
}

}  // namespace indelible::net
