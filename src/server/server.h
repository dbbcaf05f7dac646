// The HTTP server: the store as a network service (docs/HTTP.md).
//
// Concurrency: RunServer() blocks the calling thread until the server stops
// (SIGTERM/SIGINT or a fatal error). Inside, `io_threads` threads run every
// socket asynchronously (Boost.Asio), so idle keep-alive connections and
// subscribers cost memory, not threads. Appends wait for their group
// commit's sync off the I/O threads: the I/O thread that parsed one hands it
// to Store::CommitAsync and goes on, the store's sync stage answers, and
// concurrent appends from many connections share syncs. Deletes and custom
// routes block on a pool of `write_threads` threads.
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

// Serves `store` until SIGTERM/SIGINT, then stops accepting, lets in-flight
// requests finish, closes subscriptions and returns. Errors: the listen
// address is bad or cannot be bound.
Status RunServer(Store& store, const ServeOptions& options);

}  // namespace indelible::server
