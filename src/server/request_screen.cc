#include "server/request_screen.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/ip/address.hpp>
#include <boost/beast/core/string.hpp>
#include <cctype>

namespace indelible::server {
namespace {

namespace beast = boost::beast;

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// "host:port", "[v6]:port", "host": the host part, without brackets.
std::string_view HostPart(std::string_view authority) {
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    return close == std::string_view::npos ? authority : authority.substr(1, close - 1);
  }
  const auto colon = authority.rfind(':');
  return colon == std::string_view::npos ? authority : authority.substr(0, colon);
}

bool IsStateChanging(http::verb method) {
  return method != http::verb::get && method != http::verb::head && method != http::verb::options;
}

// The authority of an Origin ("http://host:port" -> "host:port"); empty for
// "null" and anything that is not scheme://authority.
std::string_view OriginAuthority(std::string_view origin) {
  const auto sep = origin.find("://");
  if (sep == std::string_view::npos) return {};
  return origin.substr(sep + 3);
}

bool OriginAllowed(std::string_view origin, const ScreenPolicy& policy) {
  return std::any_of(policy.allowed_origins.begin(), policy.allowed_origins.end(),
                     [&](const std::string& allowed) {
                       return allowed == "*" || beast::iequals(allowed, origin);
                     });
}

bool IsJson(std::string_view content_type) {
  content_type = content_type.substr(0, content_type.find(';'));
  while (!content_type.empty() && content_type.back() == ' ') content_type.remove_suffix(1);
  while (!content_type.empty() && content_type.front() == ' ') content_type.remove_prefix(1);
  return beast::iequals(content_type, "application/json");
}

}  // namespace

bool IsLoopbackHost(std::string_view host) {
  const std::string name = Lower(HostPart(host));
  if (name == "localhost" || name == "localhost." || name.ends_with(".localhost") ||
      name.ends_with(".localhost."))
    return true;
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(name, ec);
  return !ec && address.is_loopback();
}

std::optional<Refusal> ScreenRequest(const Request& request, const ScreenPolicy& policy) {
  const auto host = request.find(http::field::host);
  if (policy.loopback && host != request.end() && !IsLoopbackHost(host->value()))
    return Refusal{http::status::forbidden,
                   Status::Unauthorized(fmt::format(
                       "Host '{}' is not this server's: it listens on loopback only, so a "
                       "request must name localhost or a loopback address (a web page's own "
                       "name pointed at 127.0.0.1 is refused)",
                       std::string_view(host->value()).substr(0, 200)))};

  const auto origin = request.find(http::field::origin);
  if (origin != request.end() && (IsStateChanging(request.method()) || IsPreflight(request))) {
    const std::string_view value = origin->value();
    const bool same = host != request.end() && !OriginAuthority(value).empty() &&
                      beast::iequals(OriginAuthority(value), host->value());
    if (!same && !OriginAllowed(value, policy))
      return Refusal{
          http::status::forbidden,
          Status::Unauthorized(fmt::format(
              "requests from Origin '{}' may not change anything here; start the server with "
              "--allow-origin {} to allow that site's pages",
              value.substr(0, 200), value.substr(0, 200)))};
  }

  if (!request.body().empty()) {
    const auto type = request.find(http::field::content_type);
    if (type == request.end() || !IsJson(type->value()))
      return Refusal{
          http::status::unsupported_media_type,
          Status::Invalid("Content-Type",
                          type == request.end()
                              ? std::string("a request with a body must say "
                                            "Content-Type: application/json")
                              : fmt::format("'{}' is not accepted: send "
                                            "Content-Type: application/json",
                                            std::string_view(type->value()).substr(0, 200)))};
  }
  return std::nullopt;
}

bool IsPreflight(const Request& request) {
  return request.method() == http::verb::options &&
         request.find(http::field::access_control_request_method) != request.end();
}

void AddCorsHeaders(const Request& request, const ScreenPolicy& policy, Response& response) {
  const auto origin = request.find(http::field::origin);
  if (origin == request.end() || !OriginAllowed(origin->value(), policy)) return;
  response.set(http::field::access_control_allow_origin, origin->value());
  response.set(http::field::vary, "Origin");
  response.set(http::field::access_control_expose_headers,
               "ETag, Location, Idempotent-Replay, Retry-After, X-Request-Id");
  if (!IsPreflight(request)) return;
  response.set(http::field::access_control_allow_methods, "GET, POST, PUT, DELETE");
  response.set(http::field::access_control_allow_headers,
               "Content-Type, If-Match, If-None-Match, Last-Event-ID, Authorization");
  response.set(http::field::access_control_max_age, "600");
}

}  // namespace indelible::server
