#include "aws/http_fetch.h"

#include <fmt/format.h>

#include "net/http_client.h"

namespace indelible::aws {

std::pair<std::string, std::string> SplitOrigin(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto path_start =
      url.find_first_of("/?", scheme_end == std::string::npos ? 0 : scheme_end + 3);
  if (path_start == std::string::npos) return {url, "/"};
  std::string target = url.substr(path_start);
  if (target[0] == '?') target.insert(0, "/");
  return {url.substr(0, path_start), target};
}

Result<FetchAnswer> Fetch(const FetchRequest& request) {
  const auto [origin, target] = SplitOrigin(request.url);
  auto endpoint = net::ParseUrl(origin, "url");
  if (!endpoint.ok()) return endpoint.status();
  net::HttpClientOptions options;
  options.endpoint = *endpoint;
  options.connect_timeout = request.timeout;
  options.request_timeout = request.timeout;
  options.max_idle_connections = 0;
  options.body_limit = 1 << 20;
  auto client = net::HttpClient::Create(std::move(options));
  if (!client.ok()) return client.status();
  net::Request http = (*client)->MakeRequest(net::http::string_to_verb(request.method), target);
  http.keep_alive(false);
  for (const auto& [name, value] : request.headers) http.set(name, value);
  if (!request.body.empty() || request.method == "POST" || request.method == "PUT") {
    http.body() = request.body;
    http.prepare_payload();
  }
  net::RetryPolicy policy;
  policy.max_attempts = std::max(1, request.attempts);
  policy.retry_transport = true;
  policy.base = std::chrono::milliseconds(50);
  policy.cap = std::chrono::milliseconds(500);
  net::Exchange exchange = (*client)->Send(http, policy);
  if (!exchange.ok())
    return Status::Unavailable(
        fmt::format("{} {}: {}", request.method, request.url, exchange.status.message()));
  return FetchAnswer{static_cast<int>(exchange.response.result_int()),
                     std::move(exchange.response.body())};
}

}  // namespace indelible::aws
