// What every route and connection shares: the store, the options, the
// pools and the registry used for shutdown.
#pragma once

#include <indelible/schemas.h>
#include <indelible/store.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/thread_pool.hpp>
#include <memory>
#include <unordered_map>

#include "auth/authenticator.h"
#include "core/mutex.h"
#include "server/commit_watcher.h"
#include "server/consumer_registry.h"
#include "server/http.h"
#include "server/metrics.h"
#include "server/request_screen.h"
#include "server/server.h"

namespace indelible::server {

class HttpSession;
class SseSession;

struct ServerContext {
  ServerContext(SchemaStore& s, const ServeOptions& o, boost::asio::io_context& io)
      : store(s),
        schema_store(s),
        options(o),
        ioc(io),
        blocking(static_cast<std::size_t>(o.write_threads)),
        reads(kReadThreads),
        watcher(s),
        consumers(s) {}

  // A SchemaStore (RunServer wraps the store it is given when it is not
  // one): every read through it upcasts, every append is checked
  // (docs/SCHEMAS.md).
  Store& store;
  // The same store: its registry (/schemas), and the store under it, for
  // the raw subscriptions (?raw=1) that the library's Subscription cannot
  // ask for.
  SchemaStore& schema_store;
  Schemas& schemas() { return schema_store.schemas(); }
  const ServeOptions& options;
  boost::asio::io_context& ioc;
  // Deletes and custom routes block on the store (a group commit's sync):
  // they run here. Appends and commits go to Store::CommitAsync from the
  // I/O thread that parsed them.
  boost::asio::thread_pool blocking;
  // Store reads (stream pages, $all pages, subscription catch-up) run here,
  // never on an I/O thread, so a slow disk or a DynamoDB query stalls no
  // socket. Each read is bounded (a page, a scan budget), so a few threads
  // serve many clients. Two reads of a store with local reads
  // (StoreTraits::local_reads) stay on the I/O thread, where the hop would
  // cost more than the read: /head, and the new events a commit wakes a
  // live subscriber for.
  static constexpr std::size_t kReadThreads = 8;
  boost::asio::thread_pool reads;
  CommitWatcher watcher;
  ConsumerRegistry consumers;
  Metrics metrics;
  Router router;
  // Set once before the first connection (RunServer).
  ScreenPolicy screen;
  // Keys and roles (security.cc); credentials are asked for only when
  // require_auth (docs/SECURITY.md, "Secure defaults").
  std::unique_ptr<auth::Authenticator> auth;
  bool require_auth = false;
  // Failed authentications per client address, for the audit trail's
  // "auth.failures" entries (server.cc, NoteAuthFailure).
  struct Failures {
    std::chrono::steady_clock::time_point window_start;
    std::uint64_t count = 0;
  };
  Mutex failures_mu;
  std::unordered_map<std::string, Failures> failures GUARDED_BY(failures_mu);
  std::atomic<bool> stopping{false};

  // Live connections and subscriptions, so shutdown can reach them. Weak:
  // they own themselves.
  Mutex live_mu;
  std::unordered_map<HttpSession*, std::weak_ptr<HttpSession>> sessions GUARDED_BY(live_mu);
  std::unordered_map<SseSession*, std::weak_ptr<SseSession>> sse_sessions GUARDED_BY(live_mu);
};

}  // namespace indelible::server
