// POST /commits: several streams, each with its own expectation, events and
// optional state record, all or nothing (docs/HTTP.md, "Commits"). The
// primitive the entity layer writes with, so Entity<State> works over a
// remote store (OpenRemoteStore) as it does embedded.
#include <algorithm>
#include <chrono>

#include "api/commits.h"
#include "server/routes.h"
#include "store/store_access.h"

namespace indelible::server {
namespace {

// The store names the fields of a one-append commit as those of a single
// append ("stream"); in a commit's body they are "appends[0].stream".
Status InCommitBody(const Status& status, std::size_t appends) {
  if (appends != 1 || status.field().empty() || status.field().starts_with("appends"))
    return status;
  const std::string field = "appends[0]." + status.field();
  if (status.code() == ErrorCode::kInvalid) return Status::Invalid(field, status.message());
  if (status.code() == ErrorCode::kTooLarge) return Status::TooLarge(field, status.message());
  return status;
}

void Commit(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto body = api::CommitFromJson(exchange->request().body());
  if (!body.ok()) return exchange->RespondError(body.status());
  std::vector<AppendRequest>* appends = &body->appends;
  // The route asks for the write right somewhere; each stream named must
  // be one the caller may write, or nothing is. Events without a stream go
  // to "$dcb", and need the write right on that name (docs/DCB.md): a '$'
  // name, so the admin role's.
  if (const auto& principal = exchange->principal()) {
    const Access write = Access::OnStream(auth::Right::kWrite);
    for (const AppendRequest& append : *appends)
      if (auto denied = CheckAccess(write, *principal, {append.stream}))
        return exchange->RespondError(http::status::forbidden, *denied);
  }
  std::size_t count = 0, bytes = 0;
  for (const AppendRequest& append : *appends) {
    count += append.events.size();
    for (const EventData& e : append.events)
      bytes += e.data.size() + e.metadata.size() + e.type.size();
  }
  // Like single-stream appends: handed to the store from this I/O thread,
  // it shares their group commits (one sync) and the store's checks.
  const std::size_t streams = appends->size();
  CommitRequest commit;
  commit.appends = std::move(*appends);
  commit.options.condition = std::move(body->condition);
  internal::StoreAccess::CommitAsyncParsed(
      context.store, std::move(commit),
      [&context, exchange, count, bytes, streams,
       started = std::chrono::steady_clock::now()](Result<CommitResult> result) {
        if (!result.ok()) return exchange->RespondError(InCommitBody(result.status(), streams));
        context.metrics.RecordAppend(count, bytes, std::chrono::steady_clock::now() - started);
        Response response(http::status::created, exchange->request().version());
        response.set(http::field::content_type, "application/json");
        const bool replayed =
            std::all_of(result->appends.begin(), result->appends.end(),
                        [](const AppendResult& append) { return append.replayed; });
        if (replayed) response.set("Idempotent-Replay", "true");
        response.body() = api::CommitResultToJson(*result);
        exchange->Respond(std::move(response));
      });
}

}  // namespace

void AddCommitRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::post, "/commits", Access::Somewhere(auth::Right::kWrite),
             [&context](std::shared_ptr<Exchange> e) { Commit(context, std::move(e)); });
}

}  // namespace indelible::server
