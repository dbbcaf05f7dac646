// What Client's methods share: the endpoint, the options and the pool of
// idle keep-alive connections, and one call that sends a request and reads
// its answer on a pooled connection.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/connection.h"
#include "client/url.h"
#include "core/mutex.h"
#include "indelible/client.h"

namespace indelible {

struct Client::Impl {
  Impl(client::Endpoint e, ClientOptions o) : endpoint(std::move(e)), options(o) {}

  // A request to `target` (path and query, without the URL's base path),
  // with Host, User-Agent and keep-alive set.
  client::Request MakeRequest(client::http::verb method, const std::string& target) const;

  // Sends the request on a pooled connection (or a new one) and reads the
  // answer within options.timeout + extra. `retry_safe`: the request may be
  // sent again when a reused connection turns out to be closed by the
  // server before it read anything. Errors: unavailable (transport); HTTP
  // error statuses are answers, not errors, here.
  Result<client::Response> Call(const client::Request& request, bool retry_safe,
                                std::chrono::milliseconds extra = std::chrono::milliseconds(0));

  // A connection from the pool, or a new one (`*reused` says which).
  Result<std::unique_ptr<client::Connection>> Acquire(bool* reused);
  void Release(std::unique_ptr<client::Connection> connection);

  const client::Endpoint endpoint;
  const ClientOptions options;

 private:
  Mutex mu_;
  std::vector<std::unique_ptr<client::Connection>> idle_ GUARDED_BY(mu_);
};

namespace client {

// The subscriptions' implementation (subscription.cc): `target` is the path
// and query of the first request.
std::unique_ptr<RemoteSubscription> MakeSseSubscription(Endpoint endpoint,
                                                        ClientOptions client_options,
                                                        std::string target,
                                                        SubscribeOptions options);

}  // namespace client
}  // namespace indelible
