// /consumers: consumer groups over HTTP (docs/HTTP.md, "Consumer groups").
// Pulls (they read the store to fill the window) run on the reads pool. A
// pull that waits, or a waitFor, holds no thread while it waits: a
// LongWait registers for what could change its answer (a change of the
// group, a commit past what the group read, the end of a back-off or
// lease, its deadline) and tries again on the reads pool when one comes.
// So parked long pulls never starve the blocking pool (deletes, custom
// routes). The parked-event routes (the list, per-event retry and skip)
// read $parked-{group} and run on the reads pool too. The rest runs on the
// I/O thread (they only touch the group's memory, or write one checkpoint
// record).
#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <functional>
#include <memory>
#include <utility>

#include "api/consumers.h"
#include "api/limits.h"
#include "core/mutex.h"
#include "server/request_parsing.h"
#include "server/routes.h"

namespace indelible::server {
namespace {

using std::chrono::milliseconds;

// How often a parked wait looks whether the server is stopping, so that
// shutdown answers it at once instead of waiting out its deadline. Only a
// flag is read then: the group is tried again only when something changed.
constexpr milliseconds kStopCheck{1000};

using Clock = std::chrono::steady_clock;

// A request that waits for a consumer group without a thread (see above).
// `attempt(last)` answers and returns true when it has an answer; `last` is
// set once the deadline passed or the server is stopping (it must answer
// then). Attempts run on the reads pool, one at a time.
//
// Ownership: while waiting, the pending timer's handler (on the I/O
// context) and posted attempts hold the object; the group's and the commit
// watcher's callbacks hold it weakly and only post, so it is never
// destroyed under the group's lock. Generations tell a stale wake (a
// registration that fired while it was being cancelled) from a live one.
class LongWait : public std::enable_shared_from_this<LongWait> {
 public:
  using Attempt = std::function<bool(bool last)>;

  // `consumer`: the pulling consumer, whose member counts this wait (empty
  // for a waitFor).
  LongWait(ServerContext& context, std::shared_ptr<Exchange> exchange,
           std::shared_ptr<ConsumerGroup> group, Clock::time_point deadline, bool wants_commits,
           Attempt attempt, std::string consumer = {})
      : context_(context),
        exchange_(std::move(exchange)),
        group_(std::move(group)),
        deadline_(deadline),
        wants_commits_(wants_commits),
        attempt_(std::move(attempt)),
        consumer_(std::move(consumer)),
        strand_(boost::asio::make_strand(context.ioc)),
        timer_(strand_) {}

  ~LongWait() {
    // Only when the server stopped before an answer: the group outlives us.
    if (change_ticket_ != 0) group_->CancelNotify(change_ticket_);
    if (counted_) group_->CountWaiting(consumer_, -1);
  }

  void Start() {
    context_.consumers.AddWaiting(group_->name(), 1);
    boost::asio::post(context_.reads, [self = shared_from_this()] { self->Run(); });
  }

 private:
  void Run() {
    std::uint64_t generation;
    {
      MutexLock lock(&mu_);
      if (done_) return;
      wake_pending_ = false;
      generation = ++generation_;
    }
    // Read before the attempt: a change after it fires the registration.
    const std::uint64_t seen = group_->changes();
    const bool last = Clock::now() >= deadline_ || context_.stopping;
    bool answered = true;
    RunGuarded(*exchange_, [&] { answered = attempt_(last); });
    if (answered || last) return Finish();
    // Waiting from now on: the member shows it (attempts run one at a
    // time, Finish among them, so counted_ needs no lock).
    if (!counted_ && !consumer_.empty()) {
      group_->CountWaiting(consumer_, 1);
      counted_ = true;
    }

    const PullIdle idle = wants_commits_ ? group_->Idle() : PullIdle{};
    std::weak_ptr<LongWait> weak = weak_from_this();
    auto wake = [weak, generation, &reads = context_.reads] {
      boost::asio::post(reads, [weak, generation] {
        if (auto self = weak.lock()) self->Wake(generation);
      });
    };
    const ConsumerGroup::Ticket change = group_->NotifyChange(seen, wake);
    const CommitWatcher::Ticket commit =
        idle.commit_after ? context_.watcher.NotifyAfter(*idle.commit_after, wake) : 0;
    {
      MutexLock lock(&mu_);
      if (!done_ && generation == generation_ && !wake_pending_) {
        change_ticket_ = change;
        commit_ticket_ = commit;
        wake_at_ = idle.due ? std::min(deadline_, *idle.due) : deadline_;
        Arm(generation);
        return;
      }
    }
    // Woken while registering: that wake's attempt registers afresh.
    group_->CancelNotify(change);
    context_.watcher.Cancel(commit);
  }

  void Wake(std::uint64_t generation) {
    {
      MutexLock lock(&mu_);
      if (done_ || generation != generation_ || wake_pending_) return;
      wake_pending_ = true;
    }
    DropRegistrations();
    Run();
  }

  // Arms the timer (on the strand, its only thread) for wake_at_, or for
  // the next stop check if that comes first; a stop check that finds the
  // server running re-arms without an attempt.
  void Arm(std::uint64_t generation) {
    boost::asio::post(strand_, [self = shared_from_this(), generation] {
      Clock::time_point at;
      {
        MutexLock lock(&self->mu_);
        if (self->done_ || generation != self->generation_) return;
        at = self->wake_at_;
      }
      const bool stop_check = Clock::now() + kStopCheck < at;
      self->timer_.expires_at(stop_check ? Clock::now() + kStopCheck : at);
      self->timer_.async_wait([self, generation, stop_check](boost::system::error_code ec) {
        if (ec) return;  // cancelled or re-armed
        if (stop_check && !self->context_.stopping) return self->Arm(generation);
        boost::asio::post(self->context_.reads, [self, generation] { self->Wake(generation); });
      });
    });
  }

  void DropRegistrations() {
    ConsumerGroup::Ticket change;
    CommitWatcher::Ticket commit;
    {
      MutexLock lock(&mu_);
      change = std::exchange(change_ticket_, 0);
      commit = std::exchange(commit_ticket_, 0);
    }
    group_->CancelNotify(change);
    context_.watcher.Cancel(commit);
  }

  void Finish() {
    {
      MutexLock lock(&mu_);
      if (done_) return;
      done_ = true;
    }
    DropRegistrations();
    boost::asio::post(strand_, [self = shared_from_this()] { self->timer_.cancel(); });
    context_.consumers.AddWaiting(group_->name(), -1);
    if (std::exchange(counted_, false)) group_->CountWaiting(consumer_, -1);
  }

  ServerContext& context_;
  const std::shared_ptr<Exchange> exchange_;
  const std::shared_ptr<ConsumerGroup> group_;
  const Clock::time_point deadline_;
  const bool wants_commits_;
  const Attempt attempt_;
  const std::string consumer_;
  bool counted_ = false;  // counted in the member's waiting pulls
  boost::asio::strand<boost::asio::io_context::executor_type> strand_;
  boost::asio::steady_timer timer_;  // used on strand_ only

  Mutex mu_;
  bool done_ GUARDED_BY(mu_) = false;
  bool wake_pending_ GUARDED_BY(mu_) = false;
  std::uint64_t generation_ GUARDED_BY(mu_) = 0;
  Clock::time_point wake_at_ GUARDED_BY(mu_);
  ConsumerGroup::Ticket change_ticket_ GUARDED_BY(mu_) = 0;
  CommitWatcher::Ticket commit_ticket_ GUARDED_BY(mu_) = 0;
};

// GET /consumers/{group}: the status with the requests waiting on the group;
// `reached` answers a waitFor.
std::string StatusJson(ServerContext& context, ConsumerGroup& group,
                       std::optional<bool> reached = std::nullopt) {
  return api::ConsumerGroupStatusToJson({group.info(),
                                         static_cast<std::uint64_t>(std::max<std::int64_t>(
                                             context.consumers.Waiting(group.name()), 0)),
                                         reached});
}

// Runs fn(group) for the group named by the path, or answers the error.
template <typename Fn>
void WithGroup(ServerContext& context, const std::shared_ptr<Exchange>& exchange, Fn fn) {
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  fn(**group);
}

// A group delivers every event its filter selects to whoever pulls: with
// authentication on, only a principal who may read all of them may create
// or pull it (docs/SECURITY.md, "Consumer groups").
std::optional<Status> DeniedFilter(const Exchange& exchange, const AllFilter& filter) {
  const auto& principal = exchange.principal();
  if (principal == nullptr || principal->grants.MayReadAllOf(filter)) return std::nullopt;
  return Status::Unauthorized(fmt::format(
      "{} may not read every stream of consumer group '{}': its filter must name categories or "
      "prefixes the principal may read",
      principal->name, exchange.params()[0]));
}

void Create(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  ConsumerGroupOptions options;
  options.filter = FilterFromQuery(*exchange);
  if (auto denied = DeniedFilter(*exchange, options.filter))
    return exchange->RespondError(http::status::forbidden, *denied);
  auto start = IntegerParam(*exchange, "start", 0, 0, kMaxNumberParam);
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
  auto existed = context.consumers.Create(name, options, context.options.max_consumer_groups);
  // The cap is a limit (too_large) on the server's state, not on this
  // request's size: 409, deleting a group resolves it.
  if (!existed.ok() && existed.status().code() == ErrorCode::kTooLarge)
    return exchange->RespondError(http::status::conflict, existed.status());
  if (!existed.ok()) return exchange->RespondError(existed.status());
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    exchange->RespondJson(*existed ? http::status::ok : http::status::created,
                          api::ConsumerGroupInfoToJson(group.info(false)));
  });
}

void List(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto names = ConsumerGroup::List(context.store);
  if (!names.ok()) return exchange->RespondError(names.status());
  std::vector<ConsumerGroupInfo> groups;
  for (const std::string& name : *names) {
    // Only the groups the caller may manage.
    if (exchange->principal() != nullptr &&
        !exchange->principal()->grants.Allows(auth::Right::kConsumers, name))
      continue;
    auto group = context.consumers.Get(name);
    if (!group.ok()) continue;                // deleted meanwhile
    groups.push_back((*group)->info(false));  // the list is cheap: no members
  }
  exchange->RespondJson(http::status::ok, api::ConsumerGroupListToJson(groups));
}

// GET /consumers/{group}: status; ?waitFor=P&timeout=MS waits (bounded)
// until the checkpoint passes P: read-your-writes for a client that wrote
// at position P. Only a change of the group moves its checkpoint.
void Describe(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto wait_for = IntegerParam(*exchange, "waitFor", -1, 0, kMaxNumberParam);
  if (!wait_for.ok()) return exchange->RespondError(wait_for.status());
  auto timeout = IntegerParam(*exchange, "timeout", 5000, 0, api::kMaxWait.count());
  if (!timeout.ok()) return exchange->RespondError(timeout.status());
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  if (*wait_for < 0) return exchange->RespondJson(http::status::ok, StatusJson(context, **group));
  const Position position(static_cast<std::uint64_t>(*wait_for));
  auto attempt = [&context, exchange, group = *group, position](bool last) {
    const bool reached = !group->deleted() && group->info(false).checkpoint >= position;
    if (!reached && !last && !group->deleted()) return false;
    exchange->RespondJson(http::status::ok, StatusJson(context, *group, reached));
    return true;
  };
  std::make_shared<LongWait>(context, exchange, *group, Clock::now() + milliseconds(*timeout),
                             /*wants_commits=*/false, std::move(attempt))
      ->Start();
}

void Delete(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  const std::string& name = exchange->params()[0];
  if (Status s = context.consumers.Delete(name); !s.ok()) return exchange->RespondError(s);
  exchange->RespondJson(http::status::ok, api::ConsumerGroupDeletedToJson(name));
}

// A page of deliveries stops at max_page_bytes of JSON (one delivery at
// least); the group measures each delivery with `size`, which keeps the
// JSON it made so the answer does not encode it twice.
void Pull(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto consumer = exchange->Query("consumer");
  if (!consumer || consumer->empty())
    return exchange->RespondError(
        Status::Invalid("consumer", "name the consumer: ?consumer=NAME (its lease holder)"));
  auto max = IntegerParam(*exchange, "max", api::kDefaultPageEvents, 1, kMaxPageEvents);
  if (!max.ok()) return exchange->RespondError(max.status());
  auto wait_ms = IntegerParam(*exchange, "waitMs", 0, 0, api::kMaxWait.count());
  if (!wait_ms.ok()) return exchange->RespondError(wait_ms.status());
  const auto ordered_param = exchange->Query("ordered");
  if (ordered_param && *ordered_param != "true" && *ordered_param != "false")
    return exchange->RespondError(Status::Invalid("ordered", "ordered is true or false"));
  const bool ordered = ordered_param && *ordered_param == "true";
  if (exchange->principal() != nullptr && !exchange->principal()->grants.admin()) {
    auto filter = context.consumers.Filter(exchange->params()[0]);
    if (!filter.ok()) return exchange->RespondError(filter.status());
    if (auto denied = DeniedFilter(*exchange, *filter))
      return exchange->RespondError(http::status::forbidden, *denied);
  }
  auto group = context.consumers.Get(exchange->params()[0]);
  if (!group.ok()) return exchange->RespondError(group.status());
  const std::size_t max_bytes = context.options.max_page_bytes;
  auto attempt = [exchange, group = *group, consumer = *consumer,
                  max = static_cast<std::size_t>(*max), ordered, max_bytes](bool last) {
    std::vector<std::pair<std::uint64_t, std::string>> encoded;  // position, JSON
    PullBudget budget;
    budget.max_bytes = max_bytes;
    budget.size = [&encoded](const Delivery& delivery) {
      encoded.emplace_back(delivery.event.position.value(), api::DeliveryToJson(delivery));
      return encoded.back().second.size() + 1;  // and a comma
    };
    auto batch = ordered ? group->PullInOrder(consumer, max, milliseconds(0), budget)
                         : group->Pull(consumer, max, milliseconds(0), budget);
    if (!batch.ok()) {
      exchange->RespondError(batch.status());
      return true;
    }
    if (batch->empty() && !last) return false;
    // The size calls ran in batch order; one more may follow (left out).
    auto measured = [&](std::size_t i) {
      const bool same =
          i < encoded.size() && encoded[i].first == (*batch)[i].event.position.value();
      return same ? std::string_view(encoded[i].second) : std::string_view();
    };
    exchange->RespondJson(http::status::ok, api::DeliveriesToJson(*batch, measured));
    return true;
  };
  std::make_shared<LongWait>(context, exchange, *group, Clock::now() + milliseconds(*wait_ms),
                             /*wants_commits=*/true, std::move(attempt), *consumer)
      ->Start();
}

void Ack(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto positions = api::AckFromJson(exchange->request().body());
  if (!positions.ok()) return exchange->RespondError(positions.status());
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    if (Status s = group.Ack(*positions); !s.ok()) return exchange->RespondError(s);
    exchange->RespondJson(http::status::ok, api::ConsumerGroupInfoToJson(group.info(false)));
  });
}

void Nack(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto nack = api::NackFromJson(exchange->request().body());
  if (!nack.ok()) return exchange->RespondError(nack.status());
  const std::string reason = nack->reason.value_or("nacked over HTTP");
  WithGroup(context, exchange, [&](ConsumerGroup& group) {
    if (Status s = group.Nack(nack->position, reason); !s.ok()) return exchange->RespondError(s);
    exchange->RespondJson(http::status::ok, api::ConsumerGroupInfoToJson(group.info(false)));
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
    exchange->RespondJson(http::status::ok, api::ConsumerGroupInfoToJson(group.info(false)));
  });
}

// The parked copies deliver the events the filter selects, as a pull does:
// the same check.
std::optional<Status> DeniedParked(ServerContext& context, const Exchange& exchange) {
  if (exchange.principal() == nullptr || exchange.principal()->grants.admin()) return std::nullopt;
  auto filter = context.consumers.Filter(exchange.params()[0]);
  if (!filter.ok()) return filter.status();
  return DeniedFilter(exchange, *filter);
}

void RespondDenied(Exchange& exchange, const Status& status) {
  if (status.code() == ErrorCode::kUnauthorized)
    return exchange.RespondError(http::status::forbidden, status);
  exchange.RespondError(status);
}

// GET /consumers/{group}/parked?from=&limit=: the parked copies with their
// state, paged like a stream read (limit, max_page_bytes, nextVersion).
void ListParked(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  auto limit = IntegerParam(*exchange, "limit", api::kDefaultPageEvents, 1, kMaxPageEvents);
  if (!limit.ok()) return exchange->RespondError(limit.status());
  auto from = IntegerParam(*exchange, "from", 0, 0, kMaxNumberParam);
  if (!from.ok()) return exchange->RespondError(from.status());
  boost::asio::post(context.reads, [&context, exchange, limit = *limit, from = *from] {
    RunGuarded(*exchange, [&] {
      if (auto denied = DeniedParked(context, *exchange)) return RespondDenied(*exchange, *denied);
      auto group = context.consumers.Get(exchange->params()[0]);
      if (!group.ok()) return exchange->RespondError(group.status());
      const std::size_t max_bytes = context.options.max_page_bytes;
      auto page =
          (*group)->ReadParked(StreamVersion(from), static_cast<std::size_t>(limit), max_bytes);
      if (!page.ok()) return exchange->RespondError(page.status());
      exchange->RespondJson(http::status::ok,
                            api::ParkedPageToJson((*group)->name(), *page, max_bytes));
    });
  });
}

// POST /consumers/{group}/parked/{version}/retry and /skip: per-event
// decisions, audited with the version as their detail.
void DecideParked(ServerContext& context, const std::shared_ptr<Exchange>& exchange,
                  Decision decision) {
  const std::string& text = exchange->params()[1];
  std::int64_t version = -1;
  const bool digits =
      !text.empty() && text.size() <= 18 &&
      std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (digits) version = std::stoll(text);
  if (version < 0)
    return exchange->RespondError(Status::Invalid(
        "version", fmt::format("'{}' is not a parked event's version (an integer >= 0 in "
                               "$parked-{{group}})",
                               text.substr(0, 64))));
  exchange->SetAuditDetail(fmt::format(R"({{"parkedVersion":{}}})", version));
  boost::asio::post(context.reads, [&context, exchange, decision, version] {
    RunGuarded(*exchange, [&] {
      auto group = context.consumers.Get(exchange->params()[0]);
      if (!group.ok()) return exchange->RespondError(group.status());
      Status s = decision == Decision::kRetry ? (*group)->RetryParked(StreamVersion(version))
                                              : (*group)->SkipParked(StreamVersion(version));
      if (!s.ok()) return exchange->RespondError(s);
      exchange->RespondJson(http::status::ok, api::ConsumerGroupInfoToJson((*group)->info(false)));
    });
  });
}

void RetryParked(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  DecideParked(context, exchange, Decision::kRetry);
}
void SkipParked(ServerContext& context, std::shared_ptr<Exchange> exchange) {
  DecideParked(context, exchange, Decision::kSkip);
}

}  // namespace

void AddConsumerRoutes(Router& router, ServerContext& context) {
  auto route = [&](http::verb method, std::string_view path, Access access,
                   void (*fn)(ServerContext&, std::shared_ptr<Exchange>)) {
    router.Add(method, path, std::move(access),
               [&context, fn](std::shared_ptr<Exchange> e) { fn(context, e); });
  };
  route(http::verb::get, "/consumers", Access::Somewhere(auth::Right::kConsumers), List);
  route(http::verb::put, "/consumers/{}", Access::OnGroup("consumers.create"), Create);
  route(http::verb::get, "/consumers/{}", Access::OnGroup(), Describe);
  route(http::verb::delete_, "/consumers/{}", Access::OnGroup("consumers.delete"), Delete);
  route(http::verb::post, "/consumers/{}/pull", Access::OnGroup(), Pull);
  route(http::verb::post, "/consumers/{}/ack", Access::OnGroup(), Ack);
  route(http::verb::post, "/consumers/{}/nack", Access::OnGroup(), Nack);
  route(http::verb::get, "/consumers/{}/parked", Access::OnGroup(), ListParked);
  route(http::verb::post, "/consumers/{}/parked/{}/retry",
        Access::OnGroup("consumers.parked.retry"), RetryParked);
  route(http::verb::post, "/consumers/{}/parked/{}/skip", Access::OnGroup("consumers.parked.skip"),
        SkipParked);
  for (auto [path, decision, act] :
       {std::tuple{"/consumers/{}/retry", Decision::kRetry, "consumers.retry"},
        {"/consumers/{}/skip", Decision::kSkip, "consumers.skip"},
        {"/consumers/{}/replay", Decision::kReplay, "consumers.replay"}})
    router.Add(http::verb::post, path, Access::OnGroup(act),
               [&context, decision = decision](std::shared_ptr<Exchange> e) {
                 Decide(context, e, decision);
               });
}

}  // namespace indelible::server
