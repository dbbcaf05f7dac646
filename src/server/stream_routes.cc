// /streams/{stream}: append (POST), read (GET), soft delete (DELETE) or hard
// delete (DELETE ?erase=true, audited as stream.erase), head.
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <boost/url/encode.hpp>
#include <boost/url/rfc/pchars.hpp>

#include "api/commits.h"
#include "api/limits.h"
#include "api/pages.h"
#include "api/wire.h"
#include "server/request_parsing.h"
#include "server/routes.h"
#include "store/store_access.h"

namespace indelible::server {
namespace {

std::string PathOf(const std::string& stream) {
  return "/streams/" + boost::urls::encode(stream, boost::urls::pchars);
}

// The answer to a successful append or delete.
void RespondAppended(Exchange& exchange, const AppendResult& result, http::status status) {
  Response response(status, exchange.request().version());
  response.set(http::field::content_type, "application/json");
  response.set(http::field::etag, api::ETagFor(result.last_version));
  response.set(http::field::location, PathOf(result.stream));
  if (result.replayed) response.set("Idempotent-Replay", "true");
  response.body() = api::AppendResultToJson(result);
  exchange.Respond(std::move(response));
}

void Append(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  const Request& request = exchange->request();
  auto expected = ExpectedFromHeaders(request);
  if (!expected.ok()) return exchange->RespondError(expected.status());
  // One event, an array, or {"events":[...],"state":{...}} with the
  // stream's state record.
  auto body = api::AppendBodyFromJson(request.body());
  if (!body.ok()) return exchange->RespondError(body.status());
  std::size_t bytes = 0;
  for (const auto& e : body->events) bytes += e.data.size() + e.metadata.size() + e.type.size();

  // Handed to the store from this I/O thread: it joins the group commit
  // of the other connections' appends, and the answer is written once the
  // store's sync stage calls back (store.h, CommitAsync).
  CommitRequest commit;
  commit.appends.push_back(AppendRequest{exchange->params()[0], *expected, std::move(body->events),
                                         std::move(body->state)});
  const std::size_t count = commit.appends.front().events.size();
  internal::StoreAccess::CommitAsyncParsed(
      context.store, std::move(commit),
      [&context, exchange, count, bytes,
       started = std::chrono::steady_clock::now()](Result<CommitResult> result) {
        if (!result.ok()) return RespondStoreError(*exchange, result.status());
        context.metrics.RecordAppend(count, bytes, std::chrono::steady_clock::now() - started);
        RespondAppended(*exchange, result->appends.front(), http::status::created);
      });
}

// `?erase=true`: a hard delete (Store::Erase) instead of the soft one;
// `false` or none: the soft delete. invalid for anything else, so a typo
// never falls back to the reversible act.
Result<bool> EraseParam(const Exchange& exchange) {
  auto erase = exchange.Query("erase");
  if (!erase || *erase == "false") return false;
  if (*erase == "true") return true;
  return Status::Invalid("erase",
                         fmt::format("'{}' is not erase's: true for a hard delete (the events "
                                     "removed for good), false or none for a soft delete",
                                     erase->substr(0, 64)));
}

void Delete(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  // Whatever the answer, an erase asked for is on $audit as one.
  if (auto asked = exchange->Query("erase"); asked && *asked != "false")
    exchange->Audit("stream.erase", {});
  auto erase = EraseParam(*exchange);
  if (!erase.ok()) return exchange->RespondError(erase.status());
  auto expected = ExpectedFromHeaders(exchange->request());
  if (!expected.ok()) return exchange->RespondError(expected.status());
  if (expected->kind() == Expected::Kind::kNoStream)
    return exchange->RespondError(Status::Invalid(
        "If-None-Match", fmt::format("{} needs an existing stream; drop If-None-Match",
                                     *erase ? "an erase" : "a delete")));
  boost::asio::post(context.blocking, [&context, exchange, expected = *expected, erase = *erase] {
    RunGuarded(*exchange, [&] {
      const std::string& stream = exchange->params()[0];
      auto result =
          erase ? context.store.Erase(stream, expected) : context.store.Delete(stream, expected);
      if (!result.ok()) return RespondStoreError(*exchange, result.status());
      RespondAppended(*exchange, *result, http::status::ok);
    });
  });
}

// A page of a stream: up to `limit` events and, past the first, no more
// than max_page_bytes of JSON; nextVersion says where the next page starts.
void ReadPage(ServerContext& context, Exchange& exchange, ReadStreamOptions options,
              std::int64_t limit) {
  const std::string& stream = exchange.params()[0];
  // The head first: an ETag older than the events returned only costs the
  // client a conflict, one newer would let it write on what it did not see.
  auto head = context.store.Head(stream);
  if (!head.ok()) return exchange.RespondError(head.status());
  if (head->deleted && !options.include_deleted)
    return exchange.RespondError(Status::NotFound(
        fmt::format("stream '{}' was deleted; add includeDeleted=true to read it", stream), true));
  // One more than asked, to know whether a next page exists.
  options.limit = static_cast<std::size_t>(limit) + 1;
  auto cursor = context.store.ReadStream(stream, options);
  if (!cursor.ok()) return exchange.RespondError(cursor.status());
  api::StreamPageWriter page(stream, context.options.max_page_bytes);
  std::optional<StreamVersion> next;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    // Past `limit` or the byte budget: this event starts the next page.
    if (page.events() == static_cast<std::size_t>(limit) || !page.Add(event)) {
      next = event.version;
      break;
    }
  }
  if (!(*cursor)->status().ok()) return exchange.RespondError((*cursor)->status());
  std::string body = std::move(page).Finish(next);
  Response response(http::status::ok, exchange.request().version());
  response.set(http::field::content_type, "application/json");
  response.set(http::field::etag, api::ETagFor(head->version));
  response.body() = std::move(body);
  exchange.Respond(std::move(response));
}

void Read(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  ReadStreamOptions options;
  auto limit = IntegerParam(*exchange, "limit", api::kDefaultPageEvents, 1, kMaxPageEvents);
  if (!limit.ok()) return exchange->RespondError(limit.status());
  auto from = IntegerParam(*exchange, "from", -1, 0, kMaxNumberParam);
  if (!from.ok()) return exchange->RespondError(from.status());
  if (*from >= 0) options.from = StreamVersion(*from);
  if (auto direction = exchange->Query("direction")) {
    if (*direction == "backward") {
      options.direction = Direction::kBackward;
    } else if (*direction != "forward") {
      return exchange->RespondError(Status::Invalid(
          "direction",
          fmt::format("'{}' is not a direction: forward or backward", direction->substr(0, 64))));
    }
  }
  if (auto include = exchange->Query("includeDeleted")) {
    if (*include != "true" && *include != "false")
      return exchange->RespondError(
          Status::Invalid("includeDeleted", "includeDeleted is true or false"));
    options.include_deleted = *include == "true";
  }
  auto raw = RawParam(*exchange);
  if (!raw.ok()) return exchange->RespondError(raw.status());
  options.raw = *raw;
  // Off the I/O thread: a read may wait on the disk or on DynamoDB.
  boost::asio::post(context.reads, [&context, exchange, options, limit = *limit] {
    RunGuarded(*exchange, [&] { ReadPage(context, *exchange, options, limit); });
  });
}

void Head(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  auto respond = [&context, exchange] {
    RunGuarded(*exchange, [&] {
      const std::string& stream = exchange->params()[0];
      auto head = context.store.Head(stream);
      if (!head.ok()) return exchange->RespondError(head.status());
      Response response(http::status::ok, exchange->request().version());
      response.set(http::field::content_type, "application/json");
      response.set(http::field::etag, api::ETagFor(head->version));
      response.body() = api::HeadToJson(stream, *head);
      exchange->Respond(std::move(response));
    });
  };
  // A point read of a local store costs less than the hop to the read pool
  // and back (a quarter of /head's requests/s on two cores,
  // docs/BENCHMARKS.md); a remote one waits in the pool.
  if (context.store.traits().local_reads) return respond();
  boost::asio::post(context.reads, respond);
}

}  // namespace

void RespondStoreError(Exchange& exchange, const Status& status) {
  if (status.code() == ErrorCode::kConflict && status.actual_version()) {
    exchange.RecordError(status.code());
    Response response(http::status::conflict, exchange.request().version());
    response.set(http::field::content_type, "application/json");
    response.set(http::field::etag, api::ETagFor(StreamVersion(*status.actual_version())));
    response.body() = api::StatusToJson(status);
    exchange.Respond(std::move(response));
    return;
  }
  exchange.RespondError(status);
}

void AddStreamRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::post, "/streams/{}", Access::OnStream(auth::Right::kWrite),
             [&context](std::shared_ptr<Exchange> e) { Append(context, std::move(e)); });
  router.Add(http::verb::get, "/streams/{}", Access::OnStream(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { Read(context, e); });
  router.Add(http::verb::delete_, "/streams/{}",
             Access::OnStream(auth::Right::kDelete, "stream.delete"),
             [&context](std::shared_ptr<Exchange> e) { Delete(context, std::move(e)); });
  router.Add(http::verb::get, "/streams/{}/head", Access::OnStream(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { Head(context, e); });
}

}  // namespace indelible::server
