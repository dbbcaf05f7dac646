// What Client's methods share: the options and the HTTP(S) client (net/:
// the endpoint, TLS, the pool of idle keep-alive connections), and one call
// that sends a request and reads its answer.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "indelible/client.h"
#include "indelible/schemas.h"
#include "net/http_client.h"

namespace indelible {

struct Client::Impl {
  Impl(std::shared_ptr<net::HttpClient> h, ClientOptions o) : http(std::move(h)), options(o) {}

  // A request to `target` (path and query, without the URL's base path),
  // with Host, User-Agent and keep-alive set.
  net::Request MakeRequest(net::http::verb method, const std::string& target) const;

  // Sends the request on a pooled connection (or a new one) and reads the
  // answer within options.timeout + extra. `retry_safe`: the request may be
  // sent again when a reused connection turns out to be closed by the
  // server before it read anything; nothing else is resent. Errors:
  // unavailable (transport), unauthorized (https: the server's certificate
  // is refused); HTTP error statuses are answers, not errors, here.
  Result<net::Response> Call(const net::Request& request, bool retry_safe,
                             std::chrono::milliseconds extra = std::chrono::milliseconds(0));

  // Shared with the subscriptions, which may outlive the Client.
  const std::shared_ptr<net::HttpClient> http;
  const ClientOptions options;
  // Client::schemas(), made with the Impl.
  std::unique_ptr<Schemas> schemas;
};

namespace client {

// What Impl::MakeRequest and Impl::Call do, for the parts of the client
// that hold the HTTP client without the Impl.
net::Request MakeRequest(net::HttpClient& http, net::http::verb method, const std::string& target);
Result<net::Response> Call(net::HttpClient& http, const net::Request& request, bool retry_safe,
                           std::chrono::milliseconds extra = std::chrono::milliseconds(0));

// Client::schemas() (remote_schemas.cc): the registry over `http`.
std::unique_ptr<Schemas> MakeRemoteSchemas(std::shared_ptr<net::HttpClient> http);

// The subscriptions' implementation (subscription.cc): `target` is the path
// and query of the first request.
std::unique_ptr<RemoteSubscription> MakeSseSubscription(std::shared_ptr<net::HttpClient> http,
                                                        std::string target,
                                                        SubscribeOptions options);

}  // namespace client
}  // namespace indelible
