// The HTTP server: the store as a network service (docs/HTTP.md).
//
// Concurrency: RunServer() blocks the calling thread until the server stops
// (SIGTERM/SIGINT or a fatal error). Inside, `io_threads` threads run every
// socket asynchronously (Boost.Asio), so idle keep-alive connections and
// subscribers cost memory, not threads. Appends wait for their group
// commit's sync off the I/O threads: an AppendBatcher hands everything
// queued to the store as one CommitEach, so concurrent appends from many
// connections share syncs. Deletes and custom routes block on a pool of
// `write_threads` threads.
#pragma once

#include <indelible/options.h>
#include <indelible/server.h>
#include <indelible/status.h>
#include <indelible/store.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace indelible::server {

struct ServerOptions {
  // HOST:PORT to listen on; port 0 picks a free one. The bound address is
  // printed on stdout as "listening on http://HOST:PORT" once accepting.
  std::string listen = "127.0.0.1:2113";
  // 0: one per core.
  int io_threads = 0;
  // Deletes and custom-route handlers in flight at once; more wait in a
  // queue. Each is a sleeping thread most of the time, so this can be large.
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
  // The store's limits; a request body may be twice max_append_bytes.
  Limits limits;
  // A page of a read (/streams, /all, a consumer pull) stops once its events
  // take this many bytes of JSON, and says where to continue; one event is
  // always returned, so a page is at most this plus one event (400 KiB).
  std::size_t max_page_bytes = 4 << 20;
  // Connections open at once; more are accepted and closed at once (the
  // client sees a reset, not a hang). 0: three quarters of RLIMIT_NOFILE.
  int max_connections = 0;
  // Origins (scheme://host[:port]) whose pages may send state-changing
  // requests; same-origin requests are always allowed. "*" allows any.
  std::vector<std::string> allowed_origins;
  // A filtered $all read stops after scanning this many events or for this
  // long (whichever first) and answers what it found with `next` past the
  // scanned part.
  std::size_t max_scan_events = 100000;
  std::chrono::milliseconds max_scan_time{1000};
  // A Server-Sent Events subscriber that does not take a write within this
  // long is disconnected (it can resume with Last-Event-ID).
  std::chrono::milliseconds sse_write_timeout{30000};
  // Consumer groups a client may create; more: 409 too many.
  std::size_t max_consumer_groups = 1000;
  // Served beside the standard API (include/indelible/server.h).
  std::vector<HttpRoute> routes;
};

// Serves `store` until SIGTERM/SIGINT, then stops accepting, lets in-flight
// requests finish, closes subscriptions and returns. Errors: the listen
// address is bad or cannot be bound.
Status RunServer(Store& store, const ServerOptions& options);

}  // namespace indelible::server
