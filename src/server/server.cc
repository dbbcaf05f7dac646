#include "server/server.h"

#include <fmt/format.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <functional>
#include <mutex>
#include <thread>

#include "core/mutex.h"
#include "server/connection_limit.h"
#include "server/context.h"
#include "server/http_session.h"
#include "server/routes.h"
#include "server/security.h"
#include "server/sse_session.h"
#include "server/tls_context.h"

namespace indelible::server {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

namespace {

Result<tcp::endpoint> ParseListen(const std::string& listen) {
  const auto colon = listen.rfind(':');
  const auto bad = [&] {
    return Status::Invalid("listen",
                           fmt::format("'{}' is not HOST:PORT (like 127.0.0.1:2113)", listen));
  };
  if (colon == std::string::npos) return bad();
  std::string host = listen.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  int port = 0;
  try {
    std::size_t used = 0;
    port = std::stoi(listen.substr(colon + 1), &used);
    if (used != listen.size() - colon - 1 || port < 0 || port > 65535) return bad();
  } catch (const std::exception&) {
    return bad();
  }
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host == "localhost" ? "127.0.0.1" : host, ec);
  if (ec)
    return Status::Invalid("listen",
                           fmt::format("'{}' is not an IP address: {}", host, ec.message()));
  return tcp::endpoint(address, static_cast<unsigned short>(port));
}

// Accepts connections up to max_connections (connection_limit.h says what
// happens at the cap); runs on its own strand. With `tls` (null: plain
// HTTP), every connection speaks TLS with the context current when it was
// accepted.
class Listener : public std::enable_shared_from_this<Listener> {
 public:
  Listener(ServerContext& context, tcp::acceptor acceptor, std::size_t max_connections,
           const TlsContexts* tls)
      : context_(context),
        acceptor_(std::move(acceptor)),
        retry_(acceptor_.get_executor()),
        max_connections_(max_connections),
        tls_(tls) {}

  void Accept() {
    acceptor_.async_accept(
        asio::make_strand(context_.ioc),
        [self = shared_from_this()](boost::system::error_code ec, tcp::socket socket) {
          if (ec == asio::error::operation_aborted || self->stopped_) return;
          if (ec) return self->BackOff(ec);
          self->backoff_ = std::chrono::milliseconds(0);
          boost::system::error_code ignored;
          socket.set_option(tcp::no_delay(true), ignored);
          const auto open = static_cast<std::size_t>(
              std::max<std::int64_t>(0, self->context_.metrics.open_connections.load()));
          if (open >= self->max_connections_ && !EvictIdleConnection(self->context_)) {
            self->context_.metrics.shed_connections.fetch_add(1, std::memory_order_relaxed);
            // Under TLS a plaintext 503 would be noise to the client: close.
            if (self->tls_ != nullptr) {
              socket.close(ignored);
            } else {
              ShedConnection(std::move(socket));
            }
          } else {
            ServerStream stream = self->tls_ != nullptr
                                      ? ServerStream(std::move(socket), self->tls_->Current())
                                      : ServerStream(std::move(socket));
            std::make_shared<HttpSession>(std::move(stream), self->context_)->Start();
          }
          self->Accept();
        });
  }

  void Stop() {
    asio::post(acceptor_.get_executor(), [self = shared_from_this()] {
      self->stopped_ = true;
      boost::system::error_code ec;
      self->acceptor_.close(ec);
      self->retry_.cancel();
    });
  }

 private:
  // Out of descriptors (EMFILE, ENFILE) or buffers: the next accept would
  // fail at once, so wait, doubling up to a second, and log once per burst.
  void BackOff(const boost::system::error_code& ec) {
    // strerror, not ec.message(): the accept errors are errno values, and
    // UBSan's vptr check trips over Boost's error categories here.
    if (backoff_.count() == 0)
      std::fprintf(stderr, "indelible: accepting a connection failed (%s); retrying\n",
                   std::strerror(ec.value()));
    backoff_ =
        std::clamp(backoff_ * 2, std::chrono::milliseconds(10), std::chrono::milliseconds(1000));
    retry_.expires_after(backoff_);
    retry_.async_wait([self = shared_from_this()](boost::system::error_code wait_ec) {
      if (!wait_ec && !self->stopped_) self->Accept();
    });
  }

  ServerContext& context_;
  tcp::acceptor acceptor_;
  asio::steady_timer retry_;
  std::size_t max_connections_;
  const TlsContexts* tls_;
  std::chrono::milliseconds backoff_{0};
  bool stopped_ = false;
};

// Runs the I/O loop until it stops. A handler that throws (a bug: request
// handlers are guarded, see RunGuarded) is logged and the loop goes on
// instead of ending the process.
void RunIo(asio::io_context& ioc) {
  for (;;) {
    try {
      ioc.run();
      return;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "indelible: an I/O handler failed: %s; serving on\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "indelible: an I/O handler failed; serving on\n");
    }
  }
}

// Shutdown, in order: stop accepting and report "stopping" on /health;
// close idle connections and subscriptions; let appends in flight finish
// and their answers go out; then stop the I/O threads.
void Shutdown(ServerContext& context, Listener& listener) {
  context.stopping = true;
  listener.Stop();
  std::vector<std::shared_ptr<HttpSession>> sessions;
  std::vector<std::shared_ptr<SseSession>> sse_sessions;
  {
    MutexLock lock(&context.live_mu);
    for (auto& [_, weak] : context.sessions)
      if (auto s = weak.lock()) sessions.push_back(std::move(s));
    for (auto& [_, weak] : context.sse_sessions)
      if (auto s = weak.lock()) sse_sessions.push_back(std::move(s));
  }
  for (auto& s : sessions) s->Stop();
  for (auto& s : sse_sessions) s->Stop();
}

}  // namespace

Status RunServer(Store& store, const ServeOptions& options) {
  auto endpoint = ParseListen(options.listen);
  if (!endpoint.ok()) return endpoint.status();
  // The standard routes read and append through a SchemaStore, so every
  // read path (streams, $all, SSE, consumer groups, /events) upcasts and
  // every append is checked (docs/SCHEMAS.md). A program that serves a
  // SchemaStore of its own keeps it, and its C++ upcasters. The wrapper
  // outlives the context (declared first).
  std::unique_ptr<SchemaStore> wrapped;
  auto* schema_store = dynamic_cast<SchemaStore*>(&store);
  if (schema_store == nullptr) {
    auto made = SchemaStore::Wrap(store);
    if (!made.ok()) return made.status();
    wrapped = std::move(*made);
    schema_store = wrapped.get();
  }
  const int threads = options.io_threads > 0
                          ? options.io_threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  const std::size_t max_connections = options.max_connections > 0
                                          ? static_cast<std::size_t>(options.max_connections)
                                          : DefaultMaxConnections(RaiseDescriptorLimit());
  asio::io_context ioc(threads);
  ServerContext context(*schema_store, options, ioc);
  context.screen.loopback = endpoint->address().is_loopback();
  context.screen.allowed_origins = options.allowed_origins;
  if (Status s = SetUpSecurity(context, *endpoint); !s.ok()) return s;
  AddStandardRoutes(context.router, context);
  if (Status s = AddCustomRoutes(context.router, context); !s.ok()) return s;

  // TLS (tls_context.h): the files load before the port opens, or nothing
  // listens; SIGHUP (below) loads them again.
  std::unique_ptr<TlsContexts> tls;
  if (options.tls.enabled()) {
    auto first = MakeServerTlsContext(options.tls);
    if (!first.ok()) return first.status();
    tls = std::make_unique<TlsContexts>(options.tls, std::move(*first));
  }

  tcp::acceptor acceptor(ioc);
  boost::system::error_code ec;
  acceptor.open(endpoint->protocol(), ec);
  if (!ec) acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) acceptor.bind(*endpoint, ec);
  if (!ec) acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec)
    return Status::Unavailable(
        fmt::format("cannot listen on {}: {}; is another server there? "
                    "pick another with --listen",
                    options.listen, ec.message()));
  const tcp::endpoint bound = acceptor.local_endpoint();
  auto listener =
      std::make_shared<Listener>(context, std::move(acceptor), max_connections, tls.get());
  listener->Accept();

  // SIGHUP: the TLS files again, for connections accepted after it. Only
  // under TLS: without it SIGHUP ends the process as it always did.
  asio::signal_set reload(asio::make_strand(ioc));
  std::function<void()> await_reload = [&] {
    reload.async_wait([&](boost::system::error_code wait_ec, int) {
      if (wait_ec) return;
      tls->Reload();
      await_reload();
    });
  };
  if (tls) {
    reload.add(SIGHUP);
    await_reload();
  }

  // After a signal, a watchdog gives connections kShutdownGrace to finish
  // (a long poll may wait up to a minute otherwise), then stops the I/O.
  constexpr auto kShutdownGrace = std::chrono::seconds(10);
  std::mutex done_mu;
  std::condition_variable done_cv;
  bool done = false;
  std::thread watchdog;
  asio::signal_set signals(ioc, SIGINT, SIGTERM);
  signals.async_wait([&](boost::system::error_code wait_ec, int) {
    if (wait_ec) return;
    std::fprintf(stderr, "indelible: shutting down: finishing appends in flight\n");
    Shutdown(context, *listener);
    // The I/O threads return once no work is left.
    asio::post(reload.get_executor(), [&] { reload.cancel(); });
    watchdog = std::thread([&] {
      std::unique_lock lock(done_mu);
      if (!done_cv.wait_for(lock, kShutdownGrace, [&] { return done; })) ioc.stop();
    });
  });

  // Scripts and tests wait for this line (with the port, when it was 0).
  std::printf("listening on %s://%s:%u\n", tls ? "https" : "http",
              bound.address().to_string().c_str(), static_cast<unsigned>(bound.port()));
  std::fflush(stdout);
  if (options.on_listening) options.on_listening(bound.port());

  std::vector<std::thread> pool;
  for (int i = 1; i < threads; ++i) pool.emplace_back([&ioc] { RunIo(ioc); });
  // The I/O threads return once shutdown closed every connection and no
  // answer is left to write: appends in flight hold their connection open
  // until they are answered.
  RunIo(ioc);
  for (auto& t : pool) t.join();
  {
    std::lock_guard lock(done_mu);
    done = true;
  }
  done_cv.notify_all();
  if (watchdog.joinable()) watchdog.join();
  context.blocking.join();
  context.reads.join();
  context.watcher.Stop();
  return Status::Ok();
}

}  // namespace indelible::server
