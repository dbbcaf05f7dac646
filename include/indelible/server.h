// Serving a store over HTTP from your own program: the API of docs/HTTP.md,
// plus routes of your own on the same port (the todo example mounts its REST
// resource beside /streams this way). `indelible serve` is this with no
// extra routes.
//
// Concurrency: Serve() blocks until SIGTERM/SIGINT, then shuts down
// gracefully (finishes appends in flight, closes subscriptions). Handlers of
// extra routes run on a pool of blocking threads, several at once: they may
// call the store (which blocks until a commit is synced) and must be
// thread-safe.
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "indelible/options.h"
#include "indelible/status.h"
#include "indelible/store.h"

namespace indelible {

struct HttpRequest {
  std::string method;  // "GET"
  std::string target;  // as sent: "/todo/42?x=1"
  // The segments the route's "{}" matched, percent-decoded.
  std::vector<std::string> params;
  // Query parameters, percent-decoded; a key may repeat.
  std::multimap<std::string, std::string> query;
  // Header names in lower case.
  std::map<std::string, std::string> headers;
  std::string body;

  // The header's value, or nullptr. `name` in lower case.
  const std::string* Header(std::string_view name) const;
};

struct HttpResponse {
  int status = 200;
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;

  // application/json with `body`.
  static HttpResponse Json(int status, std::string body);
  // The standard error answer: the status of the error's code (404, 409,
  // ...) and {error, message, field?, actualVersion?}.
  static HttpResponse Error(const Status& status);
};

struct HttpRoute {
  std::string method;   // "GET", "POST", "DELETE", ...
  std::string pattern;  // "/todo/{}": literal segments and "{}" for one segment
  std::function<HttpResponse(const HttpRequest&)> handler;
};

struct ServeOptions {
  // HOST:PORT; port 0 picks a free one. Once accepting, the bound address
  // is printed on stdout as "listening on http://HOST:PORT".
  std::string listen = "127.0.0.1:2113";
  // 0: one per core.
  int io_threads = 0;
  // Deletes and extra-route handlers in flight at once (appends of the
  // standard API are batched without a thread each); each is a sleeping
  // thread most of the time, so this can be large.
  int write_threads = 128;
  // A comment line on idle subscriptions, so proxies keep them open.
  std::chrono::milliseconds heartbeat{15000};
  // One JSON line per request on stderr.
  bool log_requests = false;
  // The limits the store was opened with: a request body may be twice
  // max_append_bytes.
  Limits limits;
  // A page of a read stops once its events take this many bytes of JSON.
  std::size_t max_page_bytes = 4 << 20;
  // Connections open at once; 0: three quarters of RLIMIT_NOFILE.
  int max_connections = 0;
  // Origins (scheme://host[:port]) whose pages may send state-changing
  // requests, beside the server's own; "*" allows any (docs/SECURITY.md).
  std::vector<std::string> allowed_origins;
  // Served beside the standard API; the standard routes win on a clash.
  std::vector<HttpRoute> routes;
};

// Serves `store` until SIGTERM/SIGINT. Errors: the listen address is bad or
// cannot be bound.
Status Serve(Store& store, const ServeOptions& options);

}  // namespace indelible
