// serve: the store as an HTTP server (docs/HTTP.md).
#include <fmt/format.h>
#include <indelible/serve_flags.h>

#include <cstdio>

#include "cli/cli.h"
#include "server/server.h"
#include "storage/embedded/embedded_store.h"

namespace indelible::cli {

void AddServeVerb(CLI::App& app, Cli& cli) {
  struct Flags {
    std::string store;
    std::string durability = "sync";
    ServeOptions server;
    int heartbeat_ms = 15000;
    int sse_write_timeout_ms = 30000;
    int max_scan_ms = 1000;
    int idle_timeout_ms = 120000;
    int header_timeout_ms = 10000;
  };
  auto flags = std::make_shared<Flags>();
  CLI::App* serve = app.add_subcommand(
      "serve", "serve the store over HTTP (docs/HTTP.md) until SIGTERM or Ctrl-C");
  serve->add_option("--listen", flags->server.listen, "HOST:PORT to listen on (port 0: any free)")
      ->capture_default_str();
  serve->add_option("--store", flags->store,
                    "store URL: file:PATH or memory: (default: file: of --data)");
  serve
      ->add_option("--durability", flags->durability,
                   "sync: acknowledge after fdatasync (default); interval: sync every 100 ms, "
                   "may lose the last 100 ms on power loss")
      ->check(CLI::IsMember({"sync", "interval"}));
  serve->add_option("--io-threads", flags->server.io_threads, "I/O threads (0: one per core)")
      ->check(CLI::Range(0, 256));
  serve
      ->add_option("--write-threads", flags->server.write_threads,
                   "deletes and custom-route handlers in flight at once (blocking threads)")
      ->check(CLI::Range(1, 4096))
      ->capture_default_str();
  serve->add_option("--heartbeat-ms", flags->heartbeat_ms, "heartbeat of idle subscriptions")
      ->check(CLI::Range(10, 3600000))
      ->capture_default_str();
  serve
      ->add_option("--idle-timeout-ms", flags->idle_timeout_ms,
                   "an idle keep-alive connection is closed after this long")
      ->check(CLI::Range(100, 86400000))
      ->capture_default_str();
  serve
      ->add_option("--header-timeout-ms", flags->header_timeout_ms,
                   "a request's headers must arrive within this long of its first byte")
      ->check(CLI::Range(100, 3600000))
      ->capture_default_str();
  serve
      ->add_option("--sse-write-timeout-ms", flags->sse_write_timeout_ms,
                   "a subscriber that takes no write for this long is disconnected")
      ->check(CLI::Range(10, 3600000))
      ->capture_default_str();
  serve
      ->add_option("--max-scan-events", flags->server.max_scan_events,
                   "a filtered /all read looks at most at this many events per request")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 40))
      ->capture_default_str();
  serve
      ->add_option("--max-scan-ms", flags->max_scan_ms,
                   "a filtered /all read scans for at most this long per request")
      ->check(CLI::Range(1, 3600000))
      ->capture_default_str();
  serve->add_flag("--log-requests", flags->server.log_requests,
                  "one JSON line per request on stderr");
  serve->add_option("--max-event-bytes", flags->server.limits.max_event_bytes)
      ->capture_default_str();
  serve->add_option("--max-append-bytes", flags->server.limits.max_append_bytes)
      ->capture_default_str();
  serve->add_option("--max-append-events", flags->server.limits.max_append_events)
      ->capture_default_str();
  serve
      ->add_option("--max-page-bytes", flags->server.max_page_bytes,
                   "a read page (/streams, /all, pulls) stops at this many bytes of JSON")
      ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 30))
      ->capture_default_str();
  serve
      ->add_option("--max-connections", flags->server.max_connections,
                   "connections open at once; more are closed at once (0: 3/4 of the "
                   "descriptor limit)")
      ->check(CLI::Range(0, 1 << 24))
      ->capture_default_str();
  serve->add_option("--allow-origin", flags->server.allowed_origins,
                    "an Origin (scheme://host[:port]) whose web pages may write; repeat for "
                    "more, * for any (default: none besides the server's own)");
  serve
      ->add_option("--max-consumer-groups", flags->server.max_consumer_groups,
                   "consumer groups that may exist at once")
      ->check(CLI::Range(std::size_t{1}, std::size_t{1} << 24))
      ->capture_default_str();
  // --tls-cert, --tls-key, --tls-client-ca, --auth, ... (docs/SECURITY.md).
  AddServeSecurityFlags(*serve, flags->server);
  serve->callback([&cli, flags] {
    cli.run = [&cli, flags]() -> int {
      auto configured = cli.store_options();
      if (!configured.ok()) return cli.Fail(configured.status());
      StoreOptions options = std::move(*configured);
      options.durability =
          flags->durability == "interval" ? Durability::kInterval : Durability::kSync;
      options.limits = flags->server.limits;
      const std::string url = !flags->store.empty()                     ? flags->store
                              : cli.data.find(':') != std::string::npos ? cli.data
                                                                        : "file:" + cli.data;
      // Opening a format 1 folder upgrades it (docs/FORMAT.md); say so, since
      // the server does not listen until it is done.
      if (auto folder = storage::EmbeddedFolderOfUrl(url)) {
        auto format1 = storage::EmbeddedFolderIsFormat1(*folder);
        if (format1.ok() && *format1)
          std::fprintf(stderr,
                       "indelible: upgrading data folder '%s' from format 1 to 3 before serving "
                       "(`indelible upgrade` shows progress)\n",
                       folder->c_str());
      }
      auto store = Store::Open(url, options);
      if (!store.ok()) return cli.Fail(store.status());
      flags->server.heartbeat = std::chrono::milliseconds(flags->heartbeat_ms);
      flags->server.sse_write_timeout = std::chrono::milliseconds(flags->sse_write_timeout_ms);
      flags->server.max_scan_time = std::chrono::milliseconds(flags->max_scan_ms);
      flags->server.idle_timeout = std::chrono::milliseconds(flags->idle_timeout_ms);
      flags->server.header_timeout = std::chrono::milliseconds(flags->header_timeout_ms);
      Status s = server::RunServer(**store, flags->server);
      if (!s.ok()) return cli.Fail(s);
      return 0;
    };
  });
}

}  // namespace indelible::cli
