// GET /query and POST /query: the events matching a query (docs/DCB.md,
// "HTTP"), forward or backward, paged by `next` like /all.
//
// Rights as /all: the read right somewhere, and a principal who may not
// read every stream gets only the events of the streams it may read (the
// others are skipped, and `next` moves past them). Reads run on the read
// pool and stop at `limit` events and at max_page_bytes of JSON.
#include <fmt/format.h>

#include <boost/asio/post.hpp>

#include "api/limits.h"
#include "api/pages.h"
#include "api/queries.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

namespace asio = boost::asio;

// As /all's: the principal whose reads are narrowed, null for an admin or
// with authentication off.
const auth::Principal* NarrowedReader(const Exchange& exchange) {
  const auto& principal = exchange.principal();
  if (principal == nullptr || principal->grants.admin()) return nullptr;
  return principal.get();
}

// One page; blocks on the store (call on context.reads).
Result<std::string> ReadPage(ServerContext& context, const Query& query,
                             const ReadQueryOptions& options, const auth::Principal* reader) {
  auto cursor = context.store.ReadQuery(query, options);
  if (!cursor.ok()) return cursor.status();
  api::AllPageWriter events(context.options.max_page_bytes);
  std::optional<Position> next;
  for (; (*cursor)->Valid(); (*cursor)->Next()) {
    const EventView& event = (*cursor)->event();
    if (reader != nullptr && !reader->grants.Allows(auth::Right::kRead, event.stream)) continue;
    // Past the byte budget: this event starts the next page.
    if (!events.Add(event)) {
      next = event.position;
      break;
    }
  }
  if (Status s = (*cursor)->status(); !s.ok()) return s;
  if (!next) next = (*cursor)->next_position();
  return std::move(events).Finish(*next);
}

void Answer(ServerContext& context, std::shared_ptr<Exchange> exchange, Query query,
            ReadQueryOptions options) {
  asio::post(context.reads, [&context, exchange = std::move(exchange), query = std::move(query),
                             options]() mutable {
    const std::shared_ptr<Exchange> guarded = exchange;
    RunGuarded(*guarded, [&] {
      auto page = ReadPage(context, query, options, NarrowedReader(*exchange));
      if (!page.ok()) return exchange->RespondError(page.status());
      exchange->RespondJson(http::status::ok, std::move(*page));
    });
  });
}

// GET /query?q=QUERY&from=&limit=&direction=&raw=
void GetQuery(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  Query query;
  if (auto q = exchange->Query("q"); q && !q->empty()) {
    auto parsed = api::QueryFromJson(*q, "q");
    if (!parsed.ok()) return exchange->RespondError(parsed.status());
    query = std::move(*parsed);
  }
  ReadQueryOptions options;
  if (auto direction = exchange->Query("direction")) {
    if (*direction == "backward") {
      options.direction = Direction::kBackward;
    } else if (*direction != "forward") {
      return exchange->RespondError(Status::Invalid(
          "direction",
          fmt::format("'{}' is not a direction: forward or backward", direction->substr(0, 64))));
    }
  }
  // Absent: the beginning forward, the last event backward.
  if (exchange->Query("from")) {
    auto from = IntegerParam(*exchange, "from", 0, 0, kMaxNumberParam);
    if (!from.ok()) return exchange->RespondError(from.status());
    options.from = Position(static_cast<std::uint64_t>(*from));
  }
  auto limit = IntegerParam(*exchange, "limit", api::kMaxQueryPageEvents, 1,
                            static_cast<std::int64_t>(api::kMaxQueryPageEvents));
  if (!limit.ok()) return exchange->RespondError(limit.status());
  options.limit = static_cast<std::size_t>(*limit);
  auto raw = RawParam(*exchange);
  if (!raw.ok()) return exchange->RespondError(raw.status());
  options.raw = *raw;
  Answer(context, std::move(exchange), std::move(query), options);
}

// POST /query {query, from?, limit?, direction?, raw?}: for a query too
// long for a URL.
void PostQuery(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto read = api::QueryReadFromJson(exchange->request().body());
  if (!read.ok()) return exchange->RespondError(read.status());
  read->options.limit = read->limit.value_or(api::kMaxQueryPageEvents);
  Answer(context, std::move(exchange), std::move(read->query), read->options);
}

}  // namespace

void AddQueryRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/query", Access::Somewhere(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { GetQuery(context, std::move(e)); });
  router.Add(http::verb::post, "/query", Access::Somewhere(auth::Right::kRead),
             [&context](std::shared_ptr<Exchange> e) { PostQuery(context, std::move(e)); });
}

}  // namespace indelible::server
