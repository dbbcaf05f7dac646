// AWS Signature Version 4 for requests signed in the Authorization header
// (not presigned URLs), as AWS specifies it: canonical request, string to
// sign, signing key derived from the secret, date, region and service.
// Hashes and MACs are OpenSSL's SHA-256 and HMAC-SHA-256.
//
// Pure functions of their arguments: safe from any thread.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/credentials.h"

namespace indelible::aws {

using Header = std::pair<std::string, std::string>;

struct SigningRequest {
  std::string method;  // "POST"
  // The path as sent on the wire (percent-encoded where it needs to be); it
  // is encoded once more for the canonical form, as every service but S3
  // wants. Not normalised: DynamoDB's is always "/".
  std::string path = "/";
  std::string query;  // as sent, without '?'; may be empty
  // Every header to sign, `host` included; names in any case. x-amz-date
  // (and x-amz-security-token for temporary credentials) must be among them:
  // SigningHeaders() makes them.
  std::vector<Header> headers;
  std::string_view body;
};

struct Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "content-type;host;x-amz-date"
  std::string signature;       // lowercase hex
  std::string authorization;   // the Authorization header's value
};

// "20150830T123600Z": the x-amz-date of a request made at `time` (UTC).
std::string AmzDate(std::chrono::system_clock::time_point time);

// The headers a signed request must carry besides its own: x-amz-date, and
// x-amz-security-token when the credentials are temporary.
std::vector<Header> SigningHeaders(const Credentials& credentials, std::string_view amz_date);

// Signs `request` for `service` in `region`. `amz_date` is the value of the
// request's x-amz-date header; its first 8 characters date the scope.
Signature Sign(const SigningRequest& request, const Credentials& credentials,
               std::string_view region, std::string_view service, std::string_view amz_date);

// Lowercase hex of SHA-256(data), and HMAC-SHA-256(key, data) as raw bytes.
std::string Sha256Hex(std::string_view data);
std::string HmacSha256(std::string_view key, std::string_view data);

// RFC 3986 percent-encoding as SigV4 wants it: all but A-Z a-z 0-9 - _ . ~
// (and '/' when `keep_slash`), in uppercase hex.
std::string UriEncode(std::string_view text, bool keep_slash);

}  // namespace indelible::aws
