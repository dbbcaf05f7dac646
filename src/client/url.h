// The server's address, from the URL a user gives, and percent-encoding for
// the parts of a request target.
#pragma once

#include <string>
#include <string_view>

#include "indelible/result.h"

namespace indelible::client {

struct Endpoint {
  std::string url;          // as given, for messages
  std::string host;         // without brackets for IPv6
  std::string port;         // decimal
  std::string host_header;  // "HOST:PORT", brackets kept
  std::string base_path;    // "" or "/prefix", never ending in '/'
};

// "http://HOST[:PORT][/PREFIX]"; the port defaults to 80. Errors: invalid,
// field "url", saying what is wrong (https, user info, query, bad port).
Result<Endpoint> ParseUrl(std::string_view url);

// Every byte but the unreserved ones (A-Z a-z 0-9 - . _ ~) as %XX, so the
// text is one path segment or one query value whatever it holds: the stream
// "BANK_ACCOUNT/123" becomes "BANK_ACCOUNT%2F123".
std::string PercentEncode(std::string_view text);

}  // namespace indelible::client
