// /consumers: consumer groups over HTTP (docs/HTTP.md, "Consumer groups").
// Pulls that wait and waitFor long polls run on the blocking pool, the
// rest on the I/O thread (they only touch the group's memory, or write one
// checkpoint record).
#include <fmt/format.h>

#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "core/event_json.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

namespace json = boost::json;
using std::chrono::milliseconds;

constexpr std::int64_t kMaxPull = 10000;
constexpr std::int64_t kMaxWaitMs = 60000;

// Runs fn(group) for the group named by the path, or answers the error.
template <typename Fn>
void WithGroup(ServerContext& context, const std::shared_ptr<Exchange>& exchange, Fn fn) {
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  fn(**group);
}

void Create(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  ConsumerGroupOptions options;
  options.filter = FilterFromQuery(*exchange);
  auto start = IntegerParam(*exchange, "start", 0, 0, INT64_MAX);
  auto attempts = IntegerParam(*exchange, "maxAttempts", options.max_attempts, 1, 1000000);
  auto backoff =
      IntegerParam(*exchange, "initialBackoffMs", options.initial_backoff.count(), 0, 86400000);
  auto max_backoff =
      IntegerParam(*exchange, "maxBackoffMs", options.max_backoff.count(), 0, 86400000);
  auto lease = IntegerParam(*exchange, "leaseMs", options.lease.count(), 1, 86400000);
  for (const auto* r : {&start, &attempts, &backoff, &max_backoff, &lease})
    if (!r->ok()) return exchange->RespondError(r->status());
  options.start = Position(static_cast<std::uint64_t>(*start));
  options.max_attempts = static_cast<int>(*attempts);
  options.initial_backoff = milliseconds(*backoff);
  options.max_backoff = milliseconds(*max_backoff);
  options.lease = milliseconds(*lease);
  if (auto policy = exchange->Query("policy"); policy && !policy->empty()) {
    if (*policy != "block" && *policy != "park")
      return exchange->RespondError(Status::Invalid(
          "policy", fmt::format("policy is 'block' or 'park', not '{}'", policy->substr(0, 64))));
    options.policy = *policy == "park" ? FailurePolicy::kPark : FailurePolicy::kBlock;
  }
  const std::string& name = exchange->params()[0];
  auto existed = ConsumerGroup::Exists(context.store, name);
  if (!existed.ok()) return exchange->RespondError(existed.status());
  if (Status s = ConsumerGroup::Create(context.store, name, options); !s.ok())
    return exchange->RespondError(s);
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    exchange->RespondJson(*existed ? http::status::ok : http::status::created,
                          ConsumerGroupInfoToJson(group.info()));
  });
}

void List(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto names = ConsumerGroup::List(context.store);
  if (!names.ok()) return exchange->RespondError(names.status());
  std::string body = R"({"consumers":[)";
  bool first = true;
  for (const std::string& name : *names) {
    auto group = context.consumers.Get(name);
    if (!group.ok()) continue;  // deleted meanwhile
    if (!first) body += ',';
    first = false;
    body += ConsumerGroupInfoToJson((*group)->info());
  }
  body += "]}";
  exchange->RespondJson(http::status::ok, std::move(body));
}

// GET /consumers/{group}: status; ?waitFor=P&timeout=MS waits (bounded)
// until the checkpoint passes P: read-your-writes for a client that wrote
// at position P.
void Describe(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto wait_for = IntegerParam(*exchange, "waitFor", -1, 0, INT64_MAX);
  if (!wait_for.ok()) return exchange->RespondError(wait_for.status());
  auto timeout = IntegerParam(*exchange, "timeout", 5000, 0, kMaxWaitMs);
  if (!timeout.ok()) return exchange->RespondError(timeout.status());
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  if (*wait_for < 0)
    return exchange->RespondJson(http::status::ok, ConsumerGroupInfoToJson((*group)->info()));
  boost::asio::post(context.blocking, [exchange, group = *group, position = *wait_for,
                                       wait = milliseconds(*timeout)] {
    const bool reached = group->WaitFor(Position(static_cast<std::uint64_t>(position)), wait);
    std::string body = ConsumerGroupInfoToJson(group->info());
    body.insert(1, fmt::format(R"("reached":{},)", reached ? "true" : "false"));
    exchange->RespondJson(http::status::ok, std::move(body));
  });
}

void Delete(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  const std::string& name = exchange->params()[0];
  auto exists = ConsumerGroup::Exists(context.store, name);
  if (!exists.ok()) return exchange->RespondError(exists.status());
  if (!*exists)
    return exchange->RespondError(
        Status::NotFound(fmt::format("no consumer group '{}': nothing to delete", name)));
  context.consumers.Forget(name);  // closes ours first: it saves on close
  if (Status s = ConsumerGroup::Delete(context.store, name); !s.ok())
    return exchange->RespondError(s);
  exchange->RespondJson(http::status::ok, fmt::format(R"({{"deleted":{}}})", QuoteJson(name)));
}

void Pull(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto consumer = exchange->Query("consumer");
  if (!consumer || consumer->empty())
    return exchange->RespondError(
        Status::Invalid("consumer", "name the consumer: ?consumer=NAME (its lease holder)"));
  auto max = IntegerParam(*exchange, "max", 100, 1, kMaxPull);
  if (!max.ok()) return exchange->RespondError(max.status());
  auto wait_ms = IntegerParam(*exchange, "waitMs", 0, 0, kMaxWaitMs);
  if (!wait_ms.ok()) return exchange->RespondError(wait_ms.status());
  const auto ordered_param = exchange->Query("ordered");
  if (ordered_param && *ordered_param != "true" && *ordered_param != "false")
    return exchange->RespondError(Status::Invalid("ordered", "ordered is true or false"));
  const bool ordered = ordered_param && *ordered_param == "true";
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  auto run = [exchange, group = *group, consumer = *consumer, max = static_cast<std::size_t>(*max),
              wait = milliseconds(*wait_ms), ordered] {
    auto batch =
        ordered ? group->PullInOrder(consumer, max, wait) : group->Pull(consumer, max, wait);
    if (!batch.ok()) return exchange->RespondError(batch.status());
    std::string body = R"({"deliveries":[)";
    for (std::size_t i = 0; i < batch->size(); ++i) {
      if (i > 0) body += ',';
      const Delivery& delivery = (*batch)[i];
      body += fmt::format(R"({{"attempt":{},)", delivery.attempt);
      if (delivery.parked_version)
        body += fmt::format(R"("parkedVersion":{},)", delivery.parked_version->value());
      body += R"("event":)";
      AppendEventJson((*batch)[i].event.view(), &body);
      body += '}';
    }
    body += "]}";
    exchange->RespondJson(http::status::ok, std::move(body));
  };
  if (*wait_ms == 0) return run();
  boost::asio::post(context.blocking, std::move(run));
}

// A JSON object body; the caller checked the content type.
Result<json::object> BodyObject(const Exchange& exchange) {
  boost::system::error_code ec;
  json::value value = json::parse(exchange.request().body(), ec);
  if (ec || !value.is_object())
    return Status::Invalid("body", "expected a JSON object, e.g. {\"positions\":[1,2]}");
  return value.as_object();
}

Result<Position> PositionOf(const json::value& value, std::string_view field) {
  if (!value.is_int64() || value.as_int64() < 1)
    return Status::Invalid(std::string(field), "a position is an integer >= 1");
  return Position(static_cast<std::uint64_t>(value.as_int64()));
}

void Ack(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (Status s = CheckJsonContentType(exchange->request()); !s.ok())
    return exchange->RespondError(http::status::unsupported_media_type, s);
  auto body = BodyObject(*exchange);
  if (!body.ok()) return exchange->RespondError(body.status());
  const json::value* list = body->if_contains("positions");
  if (list == nullptr || !list->is_array() || list->as_array().empty())
    return exchange->RespondError(
        Status::Invalid("positions", "a non-empty array of the positions to acknowledge"));
  std::vector<Position> positions;
  for (const json::value& item : list->as_array()) {
    auto position = PositionOf(item, "positions");
    if (!position.ok()) return exchange->RespondError(position.status());
    positions.push_back(*position);
  }
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    if (Status s = group.Ack(positions); !s.ok()) return exchange->RespondError(s);
    exchange->RespondJson(http::status::ok, ConsumerGroupInfoToJson(group.info()));
  });
}

void Nack(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  if (Status s = CheckJsonContentType(exchange->request()); !s.ok())
    return exchange->RespondError(http::status::unsupported_media_type, s);
  auto body = BodyObject(*exchange);
  if (!body.ok()) return exchange->RespondError(body.status());
  const json::value* at = body->if_contains("position");
  if (at == nullptr) return exchange->RespondError(Status::Invalid("position", "required"));
  auto position = PositionOf(*at, "position");
  if (!position.ok()) return exchange->RespondError(position.status());
  std::string reason = "nacked over HTTP";
  if (const json::value* r = body->if_contains("reason"); r != nullptr) {
    if (!r->is_string()) return exchange->RespondError(Status::Invalid("reason", "a string"));
    reason = std::string(r->as_string());
  }
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    if (Status s = group.Nack(*position, reason); !s.ok()) return exchange->RespondError(s);
    exchange->RespondJson(http::status::ok, ConsumerGroupInfoToJson(group.info()));
  });
}

enum class Decision { kRetry, kSkip, kReplay };

// retry and skip: the operator's answers to a blocked group; replay: deliver
// the parked events again.
void Decide(ServerContext& context, std::shared_ptr<Exchange> exchange, Decision decision) {
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    Status s = decision == Decision::kRetry  ? group.Retry()
               : decision == Decision::kSkip ? group.Skip()
                                             : group.ReplayParked();
    if (!s.ok()) return exchange->RespondError(s);
    exchange->RespondJson(http::status::ok, ConsumerGroupInfoToJson(group.info()));
  });
}

}  // namespace

void AddConsumerRoutes(Router& router, ServerContext& context) {
  auto route = [&](http::verb method, std::string_view path,
                   void (*fn)(ServerContext&, std::shared_ptr<Exchange>)) {
    router.Add(method, path, [&context, fn](std::shared_ptr<Exchange> e) { fn(context, e); });
  };
  route(http::verb::get, "/consumers", List);
  route(http::verb::put, "/consumers/{}", Create);
  route(http::verb::get, "/consumers/{}", Describe);
  route(http::verb::delete_, "/consumers/{}", Delete);
  route(http::verb::post, "/consumers/{}/pull", Pull);
  route(http::verb::post, "/consumers/{}/ack", Ack);
  route(http::verb::post, "/consumers/{}/nack", Nack);
  for (auto [path, decision] : {std::pair{"/consumers/{}/retry", Decision::kRetry},
                                {"/consumers/{}/skip", Decision::kSkip},
                                {"/consumers/{}/replay", Decision::kReplay}})
    router.Add(http::verb::post, path,
               [&context, decision = decision](std::shared_ptr<Exchange> e) {
                 Decide(context, e, decision);
               });
}

}  // namespace indelible::server
