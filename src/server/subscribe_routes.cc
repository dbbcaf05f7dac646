// GET /subscribe/all and /subscribe/streams/{stream}: where a subscription
// starts (Last-Event-ID, from, from=end), then an SseSession takes over.
#include <fmt/format.h>

#include <charconv>

#include "api/queries.h"
#include "server/request_parsing.h"
#include "server/routes.h"
#include "server/sse_session.h"

namespace indelible::server {
namespace {

// The position in Last-Event-ID, if the client sent one.
Result<std::optional<std::uint64_t>> LastEventId(const Request& request) {
  const auto it = request.find("Last-Event-ID");
  if (it == request.end()) return std::optional<std::uint64_t>();
  std::uint64_t value = 0;
  const std::string_view text = it->value();
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() ||
      value > static_cast<std::uint64_t>(kMaxNumberParam))
    return Status::Invalid("Last-Event-ID", fmt::format("'{}' is not a position: send the id: of "
                                                        "the last event received",
                                                        text.substr(0, 64)));
  return std::optional<std::uint64_t>(value);
}

void Begin(ServerContext& context, const std::shared_ptr<Exchange>& exchange,
           SseSession::Source source) {
  auto raw = RawParam(*exchange);
  if (!raw.ok()) return exchange->RespondError(raw.status());
  source.raw = *raw;
  if (exchange->request().method() == http::verb::head) {
    // What the stream's answer would say, without opening it.
    Response response(http::status::ok, exchange->request().version());
    response.set(http::field::content_type, "text/event-stream");
    response.set(http::field::cache_control, "no-cache");
    return exchange->Respond(std::move(response));
  }
  if (const auto& principal = exchange->principal(); principal != nullptr) {
    const Request& request = exchange->request();
    source.credentials = std::make_shared<const auth::Credentials>(
        auth::Credentials{std::string(request[http::field::authorization]),
                          std::string(request["X-Api-Key"]), exchange->peer_subject()});
    if (!principal->grants.admin()) {
      // A query has no filter to narrow: each event is checked (`reader`).
      if (source.stream.empty() && !source.query) principal->grants.NarrowReadFilter(source.filter);
      source.reader = principal;
    }
  }
  // The 200 is written by the SseSession, not by the HttpSession that adds
  // these to every other answer.
  source.headers = exchange->AnswerHeaderLines();
  auto stream = std::make_shared<SseSession>(exchange->TakeSocket(), context, std::move(source));
  stream->Start();
}

void SubscribeAll(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  SseSession::Source source;
  source.filter = FilterFromQuery(*exchange);
  auto last_id = LastEventId(exchange->request());
  if (!last_id.ok()) return exchange->RespondError(last_id.status());
  if (*last_id) {
    source.after = Position(**last_id);
  } else if (exchange->Query("from") == "end") {
    source.from_end = true;  // the first read, on the read pool, finds where
  } else {
    auto from = IntegerParam(*exchange, "from", 1, 0, kMaxNumberParam);
    if (!from.ok()) return exchange->RespondError(from.status());
    source.after = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*from, 1) - 1));
  }
  Begin(context, exchange, std::move(source));
}

// GET /subscribe/query?q=QUERY: as /subscribe/all, with the query's
// events (docs/DCB.md, "HTTP"); the same rights and the same narrowing.
void SubscribeQuery(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  SseSession::Source source;
  source.query = Query::All();
  if (auto q = exchange->Query("q"); q && !q->empty()) {
    auto parsed = api::QueryFromJson(*q, "q");
    if (!parsed.ok()) return exchange->RespondError(parsed.status());
    source.query = std::move(*parsed);
  }
  auto last_id = LastEventId(exchange->request());
  if (!last_id.ok()) return exchange->RespondError(last_id.status());
  if (*last_id) {
    source.after = Position(**last_id);
  } else if (exchange->Query("from") == "end") {
    source.from_end = true;
  } else {
    auto from = IntegerParam(*exchange, "from", 1, 0, kMaxNumberParam);
    if (!from.ok()) return exchange->RespondError(from.status());
    source.after = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*from, 1) - 1));
  }
  Begin(context, exchange, std::move(source));
}

void SubscribeStream(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  SseSession::Source source;
  source.stream = exchange->params()[0];
  // Reserved names too: `$parked-<group>` streams are followed this way.
  if (Status valid = ValidateStreamName(source.stream, /*allow_reserved=*/true); !valid.ok())
    return exchange->RespondError(valid);
  auto last_id = LastEventId(exchange->request());
  if (!last_id.ok()) return exchange->RespondError(last_id.status());
  // Versions are turned into positions by the stream's first read, on the
  // read pool: they need the store.
  if (*last_id) {
    source.after = Position(**last_id);
  } else if (exchange->Query("from") == "end") {
    source.from_end = true;
  } else {
    auto from = IntegerParam(*exchange, "from", 0, 0, kMaxNumberParam);
    if (!from.ok()) return exchange->RespondError(from.status());
    source.from_version = StreamVersion(*from);
  }
  Begin(context, exchange, std::move(source));
}

}  // namespace

void AddSubscribeRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/subscribe/all", Access::Somewhere(auth::Right::kSubscribe),
             [&context](std::shared_ptr<Exchange> e) { SubscribeAll(context, e); });
  router.Add(http::verb::get, "/subscribe/query", Access::Somewhere(auth::Right::kSubscribe),
             [&context](std::shared_ptr<Exchange> e) { SubscribeQuery(context, e); });
  router.Add(http::verb::get, "/subscribe/streams/{}", Access::OnStream(auth::Right::kSubscribe),
             [&context](std::shared_ptr<Exchange> e) { SubscribeStream(context, e); });
}

}  // namespace indelible::server
