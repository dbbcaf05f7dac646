// GET /health and GET /metrics.
#include <fmt/format.h>

#include "api/wire.h"
#include "server/routes.h"

namespace indelible::server {

// docs/openapi.json, embedded at build time (CMakeLists.txt).
extern const std::string_view kOpenApiDocument;

namespace {

// Per consumer group open in this server: lag, in flight, redeliveries,
// blocked. One HELP/TYPE per metric, one sample per group.
std::string ConsumerMetrics(ConsumerRegistry& consumers) {
  std::vector<ConsumerGroupInfo> infos;
  consumers.ForEach([&](ConsumerGroup& group) { infos.push_back(group.info(false)); });
  struct Metric {
    const char* name;
    const char* type;
    const char* help;
    double (*value)(const ConsumerGroupInfo&);
  };
  static constexpr Metric kMetrics[] = {
      {"indelible_consumer_lag_events", "gauge", "Events after the group's checkpoint.",
       [](const ConsumerGroupInfo& i) { return static_cast<double>(i.lag_events); }},
      {"indelible_consumer_lag_seconds", "gauge",
       "Age of the oldest unacknowledged event the group holds.",
       [](const ConsumerGroupInfo& i) { return i.lag_seconds; }},
      {"indelible_consumer_in_flight", "gauge", "Events delivered and not yet acknowledged.",
       [](const ConsumerGroupInfo& i) { return static_cast<double>(i.in_flight); }},
      {"indelible_consumer_redeliveries_total", "counter",
       "Deliveries after the first, since the server opened the group.",
       [](const ConsumerGroupInfo& i) { return static_cast<double>(i.redeliveries); }},
      {"indelible_consumer_blocked", "gauge", "1 while the group is blocked at an event.",
       [](const ConsumerGroupInfo& i) { return i.blocked_at ? 1.0 : 0.0; }},
      {"indelible_consumer_parked_events", "gauge",
       "Events in $parked-<group> not yet replayed (policy park).",
       [](const ConsumerGroupInfo& i) { return static_cast<double>(i.parked_events); }},
  };
  std::string out;
  if (infos.empty()) return out;
  for (const Metric& m : kMetrics) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} {2}\n", m.name, m.help, m.type);
    for (const auto& info : infos)
      out += fmt::format("{}{{group=\"{}\"}} {}\n", m.name, info.name, m.value(info));
  }
  return out;
}

}  // namespace

void AddOpsRoutes(Router& router, ServerContext& context) {
  // Live and ready while serving; 503 "failed" with the reason once the
  // store stopped writing (a failed write or sync: only a restart recovers), 503
  // "stopping" once shutdown began, so a load balancer drains this instance.
  // The $all indexer's health (`index`, DynamoDB) is reported, never failed
  // on: the index is shared by every server of the store, so a stopped or
  // lagging one would make every instance unready at once, while appends
  // and stream reads, which do not need it, still work
  // (docs/DYNAMODB.md, "Watching the index").
  router.Add(http::verb::get, "/health", Access::Open(),
             [&context](std::shared_ptr<Exchange> exchange) {
               const Status writable = context.store.WriteHealth();
               const bool stopping = context.stopping.load();
               ServerHealth health;
               health.last_position = context.store.LastPosition();
               health.status = !writable.ok() ? "failed" : stopping ? "stopping" : "ok";
               if (!writable.ok()) health.reason = writable.message();
               exchange->RespondJson(
                   health.status == "ok" ? http::status::ok : http::status::service_unavailable,
                   api::HealthToJson(health, context.store.IndexerHealth()));
             });
  // /metrics tells which streams are busy and who calls: the metrics right,
  // unless the operator opened it (--metrics-open) for a scraper without
  // credentials.
  const Access metrics = context.options.auth.metrics_open
                             ? Access::Open()
                             : Access::Everywhere(auth::Right::kMetrics);
  router.Add(http::verb::get, "/metrics", metrics, [&context](std::shared_ptr<Exchange> exchange) {
    Response response(http::status::ok, exchange->request().version());
    response.set(http::field::content_type, "text/plain; version=0.0.4");
    response.body() = context.metrics.Render(context.store) + ConsumerMetrics(context.consumers) +
                      fmt::format(
                          "# HELP indelible_commit_waiters Long polls and caught-up subscribers "
                          "waiting for the next commit.\n# TYPE indelible_commit_waiters gauge\n"
                          "indelible_commit_waiters {}\n",
                          context.watcher.waiting());
    exchange->Respond(std::move(response));
  });
  // The API's description: open like /health, since it says nothing about
  // the data and a client generator may need it before it has credentials.
  router.Add(http::verb::get, "/openapi.json", Access::Open(),
             [](std::shared_ptr<Exchange> exchange) {
               exchange->RespondJson(http::status::ok, std::string(kOpenApiDocument));
             });
}

}  // namespace indelible::server
