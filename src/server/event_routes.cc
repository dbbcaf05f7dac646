// GET /events/{id}: one event by its id, in whatever stream holds it
// (docs/HTTP.md, "Routes"): what a causationId or correlationId names.
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "core/event_json.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

void Find(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  auto id = EventId::Parse(exchange->params()[0]);
  if (!id.ok())
    return exchange->RespondError(Status::Invalid(
        "id",
        fmt::format("'{}' is not an event id (a UUID)", exchange->params()[0].substr(0, 100))));
  auto respond = [&context, exchange, id = *id] {
    RunGuarded(*exchange, [&] {
      auto found = context.store.FindEvent(id);
      if (!found.ok()) return exchange->RespondError(found.status());
      // An event of a stream the caller may not read is not found, as one
      // that does not exist: a 403 would say that it exists, and where.
      const auto& principal = exchange->principal();
      if (!found->has_value() ||
          (principal != nullptr && !principal->grants.Allows(auth::Right::kRead, (*found)->stream)))
        return exchange->RespondError(
            Status::NotFound(fmt::format("no event has the id {}", id.ToString())));
      exchange->RespondJson(http::status::ok, EventToJson((*found)->view()));
    });
  };
  // As /head: a local point read costs less than the hop to the read pool.
  if (context.store.traits().local_reads) return respond();
  boost::asio::post(context.reads, respond);
}

}  // namespace

void AddEventRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/events/{}", Access::Somewhere(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { Find(context, e); });
}

}  // namespace indelible::server
