// GET /health and GET /metrics.
#include <fmt/format.h>

#include "server/routes.h"

namespace indelible::server {

void AddOpsRoutes(Router& router, ServerContext& context) {
  // Live and ready while serving; 503 "stopping" once shutdown began, so a
  // load balancer drains this instance.
  router.Add(http::verb::get, "/health", [&context](std::shared_ptr<Exchange> exchange) {
    const bool stopping = context.stopping.load();
    exchange->RespondJson(
        stopping ? http::status::service_unavailable : http::status::ok,
        fmt::format(R"({{"status":"{}","lastPosition":{}}})", stopping ? "stopping" : "ok",
                    context.store.LastPosition().value()));
  });
  router.Add(http::verb::get, "/metrics", [&context](std::shared_ptr<Exchange> exchange) {
    Response response(http::status::ok, exchange->request().version());
    response.set(http::field::content_type, "text/plain; version=0.0.4");
    response.body() = context.metrics.Render(context.store);
    exchange->Respond(std::move(response));
  });
}

}  // namespace indelible::server
