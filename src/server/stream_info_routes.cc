// GET /streams (the listing) and GET /streams/{stream}/state (the state
// record): docs/HTTP.md, "Stream listing" and "State records".
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "api/commits.h"
#include "api/limits.h"
#include "api/wire.h"
#include "core/text.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

// last=true or false (or none); anything else is refused, so a typo does
// not quietly leave the column empty.
Result<bool> LastParam(const Exchange& exchange) {
  auto last = exchange.Query("last");
  if (!last || *last == "false") return false;
  if (*last == "true") return true;
  return Status::Invalid(
      "last", fmt::format("'{}' is not last's: true to add each stream's newest event, false or "
                          "none to leave it out",
                          Printable(last->substr(0, 64))));
}

// A page of names: at most kMaxListedStreams (1000) entries of at most ~350 bytes of JSON each,
// and with `last` the newest event's envelope (an id, a type of at most 256 bytes, three
// numbers: under 1 KB escaped), so a listing stays under 1.5 MB, within the default page byte
// budget (4 MiB), without counting.
void List(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  ListStreamsOptions options;
  auto limit =
      IntegerParam(*exchange, "limit", api::kDefaultListedStreams, 1, api::kMaxListedStreams);
  if (!limit.ok()) return exchange->RespondError(limit.status());
  auto last = LastParam(*exchange);
  if (!last.ok()) return exchange->RespondError(last.status());
  options.limit = static_cast<std::size_t>(*limit);
  options.prefix = exchange->Query("prefix").value_or("");
  options.category = exchange->Query("category").value_or("");
  options.after = exchange->Query("after").value_or("");
  boost::asio::post(
      context.reads, [&context, exchange, options = std::move(options), with_last = *last] {
        RunGuarded(*exchange, [&] {
          auto list = context.store.ListStreams(options);
          if (!list.ok()) return exchange->RespondError(list.status());
          // A caller who may read only some streams sees only those; `next`
          // still says where the page ended, so paging goes on past the rest.
          const auto& principal = exchange->principal();
          if (principal != nullptr && !principal->grants.admin())
            std::erase_if(list->streams, [&](const StreamInfo& info) {
              return !principal->grants.Allows(auth::Right::kRead, info.stream);
            });
          // After the filter, so only streams the caller may read are read:
          // one backward read of one event each, through the ordinary read
          // path, so every backend (a remote store too) answers alike.
          if (with_last) {
            for (StreamInfo& info : list->streams) {
              auto newest = ReadLastEvent(context.store, info.stream);
              if (!newest.ok()) return exchange->RespondError(newest.status());
              info.last = std::move(*newest);
            }
          }
          exchange->RespondJson(http::status::ok, api::StreamListToJson(*list, with_last));
        });
      });
}

void State(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  auto respond = [&context, exchange] {
    RunGuarded(*exchange, [&] {
      const std::string& stream = exchange->params()[0];
      auto state = context.store.ReadState(stream);
      if (!state.ok()) return exchange->RespondError(state.status());
      if (!state->has_value())
        return exchange->RespondError(Status::NotFound(
            fmt::format("stream '{}' has no state record (none was written, or the stream was "
                        "deleted since)",
                        Printable(stream))));
      Response response(http::status::ok, exchange->request().version());
      response.set(http::field::content_type, "application/json");
      response.set(http::field::etag, api::ETagFor((*state)->version));
      response.body() = api::StateRecordToJson(stream, **state);
      exchange->Respond(std::move(response));
    });
  };
  // As /head: a local point read costs less than the hop to the read pool.
  if (context.store.traits().local_reads) return respond();
  boost::asio::post(context.reads, respond);
}

}  // namespace

void AddStreamInfoRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/streams", Access::Somewhere(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { List(context, e); });
  router.Add(http::verb::get, "/streams/{}/state", Access::OnStream(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { State(context, e); });
}

}  // namespace indelible::server
