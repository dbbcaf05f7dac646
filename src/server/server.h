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
  // An idle keep-alive connection is closed after this long.
  std::chrono::seconds idle_timeout{120};
  // One JSON line per request on stderr.
  bool log_requests = false;
  // Request headers above this size: 431.
  std::size_t max_header_bytes = 64 * 1024;
  // The store's limits; a request body may be twice max_append_bytes.
  Limits limits;
  // Served beside the standard API (include/indelible/server.h).
  std::vector<HttpRoute> routes;
};

// Serves `store` until SIGTERM/SIGINT, then stops accepting, lets in-flight
// requests finish, closes subscriptions and returns. Errors: the listen
// address is bad or cannot be bound.
Status RunServer(Store& store, const ServerOptions& options);

}  // namespace indelible::server
