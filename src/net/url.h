// Where an HTTP(S) server is, from the URL a user gives, and percent-encoding
// for the parts of a request target.
//
// Values, parsed by pure functions: safe from any thread.
#pragma once

#include <string>
#include <string_view>

#include "indelible/result.h"

namespace indelible::net {

struct Endpoint {
  bool tls = false;         // https://
  std::string url;          // for messages: as given to ParseUrl, or built by MakeEndpoint
  std::string host;         // a name or an address; IPv6 without brackets
  std::string port;         // decimal; 80 or 443 when the URL gives none
  std::string host_header;  // "host", or "host:port" when the port is not the scheme's own;
                            // IPv6 in brackets
  std::string base_path;    // "" or "/prefix", never ending in '/'
};

// "http://HOST[:PORT][/PREFIX]" or "https://...": a path prefix (a reverse
// proxy's "/events") goes before every request target. Errors: invalid,
// with `field` ("url" by default), saying what is wrong (another scheme,
// user info, a query or fragment, a bad port).
Result<Endpoint> ParseUrl(std::string_view url, std::string_view field = "url");

// An endpoint from its parts (a port "" is the scheme's own), for callers
// whose URLs are their own (dynamodb://). Errors: invalid, with `field`.
Result<Endpoint> MakeEndpoint(bool tls, std::string_view host, std::string_view port,
                              std::string_view field);

// Every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX, so the
// text is one path segment or one query value whatever it holds: the stream
// "BANK_ACCOUNT/123" becomes "BANK_ACCOUNT%2F123".
std::string PercentEncode(std::string_view text);

}  // namespace indelible::net
