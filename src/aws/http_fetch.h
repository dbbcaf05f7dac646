// One small HTTP(S) exchange with a URL, for the credential endpoints (STS,
// instance metadata, the container endpoint): a fresh net::HttpClient per
// call, since they are called once an hour or so, never on a request's path.
//
// Pure function of its arguments: safe from any thread.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "indelible/result.h"

namespace indelible::aws {

struct FetchRequest {
  std::string method = "GET";
  std::string url;  // "http://169.254.169.254/latest/api/token"
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;
  std::chrono::milliseconds timeout{1000};  // connecting, and then the whole answer
  int attempts = 1;                         // transport failures are tried again
};

struct FetchAnswer {
  int status = 0;
  std::string body;
};

// The answer, whatever its HTTP status. Errors: invalid for a URL that is not
// http(s)://HOST[:PORT][/PATH[?QUERY]]; unavailable when no answer came (with
// the URL and the transport's reason).
Result<FetchAnswer> Fetch(const FetchRequest& request);

// "scheme://authority" and "/path?query" of a URL ("/" when it has no path).
std::pair<std::string, std::string> SplitOrigin(const std::string& url);

}  // namespace indelible::aws
