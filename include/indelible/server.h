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
#include <cstddef>
#include <cstdint>
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
  // Who sent it, when authentication is on (docs/SECURITY.md): "key:NAME",
  // "jwt:SUBJECT" or "cert:SUBJECT"; empty when authentication is off.
  std::string principal;

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
  // When authentication is on, the right a caller needs on the streams the
  // route touches (docs/SECURITY.md): "read", "write", "delete", ...; empty:
  // "read" for GET and HEAD, "write" for the rest.
  std::string right = {};
  // The streams the route touches start with this ("todo-"); empty: any
  // stream, so only a caller with the right on every stream may call it.
  std::string stream_prefix = {};
};

// TLS on the listening socket (docs/SECURITY.md, "TLS"). TLS 1.2 and 1.3
// only; SIGHUP reloads the files for new connections, open ones go on.
struct ServeTls {
  std::string cert_file;  // PEM certificate chain; empty: plain HTTP
  std::string key_file;   // PEM private key
  // PEM CA certificates: clients are asked for a certificate verified
  // against these, and its subject becomes the principal "cert:SUBJECT"
  // (mutual TLS). Empty: no client certificates.
  std::string client_ca_file;
  // With client_ca_file: refuse a handshake without a client certificate.
  bool require_client_cert = false;

  bool enabled() const { return !cert_file.empty(); }
};

// Who may call the server (docs/SECURITY.md). Off by default on loopback.
struct ServeAuth {
  bool enabled = false;
  // JSON: user-defined roles and their rules, and certificate subjects
  // mapped to roles. Empty: the built-in roles only.
  std::string roles_file;
  // Bearer JWTs: RS256/ES256 verified with the keys of this JWKS file
  // (reloaded when it changes); `iss` must be jwt_issuer, `aud` hold one of
  // jwt_audiences, and the claim jwt_roles_claim (a dot path) holds roles.
  std::string jwks_file;
  std::string jwt_issuer;
  std::vector<std::string> jwt_audiences;
  std::string jwt_roles_claim = "roles";
  // The first admin key: read from this file (0600) if it exists, else made
  // and written there with 0600; never logged.
  std::string bootstrap_key_file;
  // The environment variable holding an admin key to register at start;
  // read once and removed from the environment.
  std::string bootstrap_key_env = "INDELIBLE_BOOTSTRAP_KEY";
  // How long a server trusts what it read of an API key: a key revoked on
  // another server of the same DynamoDB table is refused here within this.
  std::chrono::milliseconds key_cache{1000};
  // /metrics without the metrics right.
  bool metrics_open = false;
};

// Every setting of the server; `indelible serve` has a flag for each
// (docs/HTTP.md, docs/SECURITY.md).
struct ServeOptions {
  // HOST:PORT; port 0 picks a free one. Once accepting, the bound address
  // is printed on stdout as "listening on http://HOST:PORT" (https:// with
  // tls).
  std::string listen = "127.0.0.1:2113";
  // 0: one per core.
  int io_threads = 0;
  // Deletes and extra-route handlers in flight at once (appends of the
  // standard API are batched without a thread each); more wait in a queue.
  // Each is a sleeping thread most of the time, so this can be large.
  int write_threads = 128;
  // A comment line on idle subscriptions, so proxies keep them open.
  std::chrono::milliseconds heartbeat{15000};
  // An idle keep-alive connection is closed after this long; when the
  // server is at max_connections, the longest-idle one is closed to make
  // room for a new one.
  std::chrono::milliseconds idle_timeout{120000};
  // Once a request's first byte arrived, its headers must be complete
  // within this long, and each body within body_timeout: a client sending a
  // byte a second (slowloris) holds a connection no longer than that.
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{60000};
  // One JSON line per request on stderr.
  bool log_requests = false;
  // Request headers above this size: 431.
  std::size_t max_header_bytes = 64 * 1024;
  // The limits the store was opened with: a request body may be twice
  // max_append_bytes.
  Limits limits;
  // A page of a read (/streams, /all, a consumer pull) stops once its events
  // take this many bytes of JSON, and says where to continue; one event is
  // always returned, so a page is at most this plus one event (400 KiB).
  std::size_t max_page_bytes = 4 << 20;
  // Connections open at once; at the cap the longest-idle one is closed to
  // make room, else a new one gets 503. 0: three quarters of RLIMIT_NOFILE.
  int max_connections = 0;
  // Origins (scheme://host[:port]) whose pages may send state-changing
  // requests, beside the server's own; "*" allows any (docs/SECURITY.md).
  std::vector<std::string> allowed_origins;
  // A filtered read of $all (a page, or one read of a subscriber) stops
  // after scanning this many events or for this long (whichever first) and
  // goes on from past the scanned part.
  std::size_t max_scan_events = 100000;
  std::chrono::milliseconds max_scan_time{1000};
  // A Server-Sent Events subscriber that does not take a write within this
  // long is disconnected (it can resume with Last-Event-ID).
  std::chrono::milliseconds sse_write_timeout{30000};
  // Consumer groups clients may create; more: 409 too_large.
  std::size_t max_consumer_groups = 1000;
  // Served beside the standard API; the standard routes win on a clash.
  std::vector<HttpRoute> routes;
  ServeTls tls;
  ServeAuth auth;
  // Listen beyond loopback without TLS or authentication (logged loudly).
  bool insecure = false;
  // Called once, on the serving thread, when the server accepts, with the
  // port it bound: how a program that listens on port 0 learns which.
  std::function<void(std::uint16_t port)> on_listening;
};

// Serves `store` until SIGTERM/SIGINT. Errors: the listen address is bad or
// cannot be bound.
Status Serve(Store& store, const ServeOptions& options);

}  // namespace indelible
