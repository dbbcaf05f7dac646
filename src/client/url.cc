#include "client/url.h"

#include <fmt/format.h>

#include <charconv>

namespace indelible::client {
namespace {

Status BadUrl(std::string_view url, std::string_view why) {
  return Status::Invalid(
      "url", fmt::format("'{}' is not a server URL: {} (expected http://HOST:PORT)", url, why));
}

}  // namespace

Result<Endpoint> ParseUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  if (url.starts_with("https://"))
    return BadUrl(url,
                  "https is not supported; the server speaks plain HTTP (put a TLS proxy "
                  "in front of it for remote access)");
  if (!url.starts_with(kScheme)) return BadUrl(url, "it does not start with http://");
  std::string_view rest = url.substr(kScheme.size());
  const std::size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = slash == std::string_view::npos ? "" : rest.substr(slash);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (path.find_first_of("?#") != std::string_view::npos)
    return BadUrl(url, "a query or fragment has no meaning here");
  if (authority.find('@') != std::string_view::npos)
    return BadUrl(url, "user names and passwords are not supported");

  Endpoint endpoint;
  endpoint.url = std::string(url);
  endpoint.base_path = std::string(path);
  std::string_view host = authority;
  std::string_view port = "80";
  if (authority.starts_with('[')) {  // IPv6 literal
    const std::size_t close = authority.find(']');
    if (close == std::string_view::npos) return BadUrl(url, "an IPv6 address lacks its ']'");
    host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty()) {
      if (after.front() != ':') return BadUrl(url, "unexpected text after the IPv6 address");
      port = after.substr(1);
    }
  } else if (const std::size_t colon = authority.rfind(':'); colon != std::string_view::npos) {
    host = authority.substr(0, colon);
    port = authority.substr(colon + 1);
  }
  if (host.empty()) return BadUrl(url, "the host is missing");
  unsigned number = 0;
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), number);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || number == 0 ||
      number > 65535)
    return BadUrl(url, fmt::format("'{}' is not a port (1 to 65535)", port));
  endpoint.host = std::string(host);
  endpoint.port = std::to_string(number);
  const bool ipv6 = authority.starts_with('[');
  endpoint.host_header = (ipv6 ? "[" + endpoint.host + "]" : endpoint.host) + ":" + endpoint.port;
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

}  // namespace indelible::client
