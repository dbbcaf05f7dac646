// GET /subscribe/all and /subscribe/streams/{stream}: where a subscription
// starts (Last-Event-ID, from, from=end), then an EventStream takes over.
#include <fmt/format.h>

#include <charconv>

#include "server/event_stream.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

// The position in Last-Event-ID, if the client sent one.
Result<std::optional<std::uint64_t>> LastEventId(const Request& request) {
  const auto it = request.find("Last-Event-ID");
  if (it == request.end()) return std::optional<std::uint64_t>();
  std::uint64_t value = 0;
  const std::string_view text = it->value();
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size())
    return Status::Invalid("Last-Event-ID", fmt::format("'{}' is not a position: send the id: of "
                                                        "the last event received",
                                                        text));
  return std::optional<std::uint64_t>(value);
}

// The first version of `stream` whose event lies past `position`: positions
// grow with versions, so a binary search of single-event reads finds it.
StreamVersion FirstVersionAfter(Store& store, const std::string& stream, const StreamHead& head,
                                std::uint64_t position) {
  std::int64_t lo = 0, hi = head.version.value() + 1;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    ReadStreamOptions options;
    options.from = StreamVersion(mid);
    options.limit = 1;
    options.include_deleted = true;
    auto cursor = store.ReadStream(stream, options);
    if (!cursor.ok() || !(*cursor)->Valid()) return StreamVersion(lo);
    if ((*cursor)->event().position.value() > position) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  return StreamVersion(lo);
}

void Begin(ServerContext& context, const std::shared_ptr<Exchange>& exchange,
           EventStream::Source source) {
  auto stream = std::make_shared<EventStream>(exchange->TakeSocket(), context, std::move(source));
  stream->Start();
}

void SubscribeAll(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  EventStream::Source source;
  source.filter = FilterFromQuery(*exchange);
  auto last_id = LastEventId(exchange->request());
  if (!last_id.ok()) return exchange->RespondError(last_id.status());
  if (*last_id) {
    source.next_position = Position(**last_id + 1);
  } else if (exchange->Query("from") == "end") {
    source.next_position = context.store.LastPosition().next();
  } else {
    auto from = IntegerParam(*exchange, "from", 1, 0, INT64_MAX);
    if (!from.ok()) return exchange->RespondError(from.status());
    source.next_position = Position(static_cast<std::uint64_t>(std::max<std::int64_t>(*from, 1)));
  }
  Begin(context, exchange, std::move(source));
}

void SubscribeStream(ServerContext& context, const std::shared_ptr<Exchange>& exchange) {
  EventStream::Source source;
  source.stream = exchange->params()[0];
  auto head = context.store.Head(source.stream);
  if (!head.ok() && head.status().code() != ErrorCode::kNotFound)
    return exchange->RespondError(head.status());  // a bad name, or storage
  auto last_id = LastEventId(exchange->request());
  if (!last_id.ok()) return exchange->RespondError(last_id.status());
  if (*last_id) {
    source.after_position = Position(**last_id);
    if (head.ok())
      source.next_version = FirstVersionAfter(context.store, source.stream, *head, **last_id);
  } else if (exchange->Query("from") == "end") {
    if (head.ok()) source.next_version = StreamVersion(head->version.value() + 1);
  } else {
    auto from = IntegerParam(*exchange, "from", 0, 0, INT64_MAX);
    if (!from.ok()) return exchange->RespondError(from.status());
    source.next_version = StreamVersion(*from);
  }
  Begin(context, exchange, std::move(source));
}

}  // namespace

void AddSubscribeRoutes(Router& router, ServerContext& context) {
  router.Add(http::verb::get, "/subscribe/all",
             [&context](std::shared_ptr<Exchange> e) { SubscribeAll(context, e); });
  router.Add(http::verb::get, "/subscribe/streams/{}",
             [&context](std::shared_ptr<Exchange> e) { SubscribeStream(context, e); });
}

}  // namespace indelible::server
