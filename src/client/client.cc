// Client: one method per route of docs/HTTP.md.
#include "indelible/client.h"

#include <algorithm>

#include "api/commits.h"
#include "api/keys.h"
#include "api/limits.h"
#include "api/queries.h"
#include "api/scavenge.h"
#include "api/stream_metadata.h"
#include "api/wire.h"
#include "client/client_impl.h"
#include "core/event_json.h"
#include "store/append_validation.h"

namespace indelible {
namespace {

namespace http = net::http;
using net::PercentEncode;

std::string StreamPath(std::string_view stream) { return "/streams/" + PercentEncode(stream); }

void AddQuery(std::string* target, std::string_view key, std::string_view value) {
  target->push_back(target->find('?') == std::string::npos ? '?' : '&');
  target->append(key);
  target->push_back('=');
  target->append(PercentEncode(value));
}

void AddFilterQuery(std::string* target, const AllFilter& filter) {
  for (const auto& c : filter.categories) AddQuery(target, "category", c);
  for (const auto& p : filter.stream_prefixes) AddQuery(target, "prefix", p);
  for (const auto& t : filter.types) AddQuery(target, "type", t);
}

void SetExpected(net::Request& request, Expected expected) {
  switch (expected.kind()) {
    case Expected::Kind::kAny:
      break;
    case Expected::Kind::kNoStream:
      request.set(http::field::if_none_match, "*");
      break;
    case Expected::Kind::kExists:
      request.set(http::field::if_match, "*");
      break;
    case Expected::Kind::kExactly:
      request.set(http::field::if_match, api::ETagFor(expected.version()));
      break;
  }
}

// ok when the answer has the status `want`, else the error the answer says.
Status Expect(const net::Response& answer, http::status want) {
  if (answer.result() == want) return Status::Ok();
  return api::StatusFromAnswer(answer.result_int(), answer.body());
}

}  // namespace

Result<std::unique_ptr<Client>> Client::Connect(std::string_view url,
                                                const ClientOptions& options) {
  auto endpoint = net::ParseUrl(url);
  if (!endpoint.ok()) return endpoint.status();
  net::HttpClientOptions http_options;
  http_options.endpoint = std::move(*endpoint);
  http_options.ca_file = options.ca_file;
  http_options.cert_file = options.cert_file;
  http_options.key_file = options.key_file;
  http_options.connect_timeout = options.timeout;
  http_options.request_timeout = options.timeout;
  http_options.max_idle_connections = options.max_idle_connections;
  http_options.refused_hint = "is `indelible serve` running?";
  if (!options.credential.empty()) http_options.authorization = "Bearer " + options.credential;
  auto http = net::HttpClient::Create(std::move(http_options));
  if (!http.ok()) return http.status();
  // One connection now, to say at once whether the server is there.
  if (Status s = (*http)->Connect(); !s.ok()) return s;
  auto impl = std::make_unique<Impl>(std::move(*http), options);
  impl->schemas = client::MakeRemoteSchemas(impl->http);
  return std::unique_ptr<Client>(new Client(std::move(impl)));
}

Client::Client(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Client::~Client() = default;

const std::string& Client::url() const { return impl_->http->endpoint().url; }

Schemas& Client::schemas() { return *impl_->schemas; }

Result<AppendResult> Client::Append(std::string_view stream, Expected expected,
                                    std::vector<EventData> events) {
  std::vector<AppendRequest> appends;
  appends.push_back(AppendRequest{std::string(stream), expected, std::move(events)});
  // The store's own checks, so bad input gets the errors it gets locally,
  // events get their ids here (which makes the request safe to resend), and
  // data and metadata are known to be JSON before they are copied into the
  // body. Sizes are left to the server, whose limits may not be the defaults.
  const Limits unlimited{SIZE_MAX, SIZE_MAX, SIZE_MAX};
  CommitOptions options;
  if (Status s = store::ValidateCommit(appends, unlimited, options); !s.ok()) return s;
  net::Request request = impl_->MakeRequest(http::verb::post, StreamPath(stream));
  SetExpected(request, expected);
  request.set(http::field::content_type, kJsonContentType);
  request.body() = api::EventsToJson(appends.front().events);
  request.prepare_payload();
  auto answer = impl_->Call(request, /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::created); !s.ok()) return s;
  return api::AppendResultFromJson(answer->body());
}

Result<AppendResult> Client::Delete(std::string_view stream, Expected expected) {
  if (expected.kind() == Expected::Kind::kNoStream)
    return Status::Invalid("expected", "delete expects any, exists or a version, not no_stream");
  if (Status s = ValidateStreamName(stream); !s.ok()) return s;
  net::Request request = impl_->MakeRequest(http::verb::delete_, StreamPath(stream));
  SetExpected(request, expected);
  // Not resent: without event ids a second tombstone could follow the first.
  auto answer = impl_->Call(request, /*retry_safe=*/false);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::AppendResultFromJson(answer->body());
}

Result<AppendResult> Client::Erase(std::string_view stream, Expected expected) {
  if (expected.kind() == Expected::Kind::kNoStream)
    return Status::Invalid("expected", "erase expects any, exists or a version, not no_stream");
  if (Status s = ValidateStreamName(stream); !s.ok()) return s;
  net::Request request =
      impl_->MakeRequest(http::verb::delete_, StreamPath(stream) + "?erase=true");
  SetExpected(request, expected);
  // Not resent, as a delete: a second tombstone could follow the first.
  auto answer = impl_->Call(request, /*retry_safe=*/false);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::AppendResultFromJson(answer->body());
}

Result<ScavengeReport> Client::Scavenge() {
  // No body: the route takes none. A reused connection closed before the
  // server read the request may be resent; a second scavenge finds
  // nothing more to remove.
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::post, "/scavenge"), /*retry_safe=*/true,
                            kScavengeWait);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ScavengeReportFromJson(answer->body());
}

Result<ShredReport> Client::ShredSubject(std::string_view subject) {
  auto answer =
      impl_->Call(impl_->MakeRequest(http::verb::delete_, "/subjects/" + PercentEncode(subject)),
                  /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ShredReportFromJson(answer->body());
}

Result<StoredStreamMetadata> Client::ReadStreamMetadata(std::string_view stream) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, StreamPath(stream) + "/metadata"),
                            /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::StoredStreamMetadataFromJson(answer->body());
}

Result<StreamVersion> Client::WriteStreamMetadata(std::string_view stream,
                                                  const StreamMetadata& metadata,
                                                  Expected expected) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  // Through the parser first, as the store does: `custom` is copied into
  // the body as it is, so it must be a JSON object before it is sent, and
  // a bad value gets the error it gets locally.
  auto checked = StreamMetadataFromJson(StreamMetadataToJson(metadata));
  if (!checked.ok()) return checked.status();
  net::Request request = impl_->MakeRequest(http::verb::put, StreamPath(stream) + "/metadata");
  SetExpected(request, expected);
  request.set(http::field::content_type, kJsonContentType);
  request.body() = StreamMetadataToJson(*checked);
  request.prepare_payload();
  // Not resent, as a delete: a second write would take another version.
  auto answer = impl_->Call(request, /*retry_safe=*/false);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::StreamMetadataWrittenFromJson(answer->body());
}

Result<CommitResult> Client::Commit(std::vector<AppendRequest> appends,
                                    std::optional<AppendCondition> condition) {
  // As Append: the store's checks here (the condition's query too), ids
  // made before the first send.
  const Limits unlimited{SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX};
  CommitOptions options;
  options.condition = std::move(condition);
  if (Status s = store::ValidateCommit(appends, unlimited, options); !s.ok()) return s;
  net::Request request = impl_->MakeRequest(http::verb::post, "/commits");
  request.set(http::field::content_type, kJsonContentType);
  request.body() = api::CommitToJson(appends, options.condition);
  request.prepare_payload();
  auto answer = impl_->Call(request, /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::created); !s.ok()) return s;
  return api::CommitResultFromJson(answer->body());
}

Result<std::optional<StateRecord>> Client::ReadState(std::string_view stream) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, StreamPath(stream) + "/state"),
                            /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (answer->result() == http::status::not_found) {
    Status missing = Expect(*answer, http::status::ok);
    // An unknown route is a server without state records, not a missing one.
    if (missing.message().find("state record") == std::string::npos) return missing;
    return std::optional<StateRecord>();
  }
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  auto record = api::StateRecordFromJson(answer->body());
  if (!record.ok()) return record.status();
  return std::optional<StateRecord>(std::move(*record));
}

Result<std::optional<RecordedEvent>> Client::FindEvent(const EventId& id) {
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, "/events/" + id.ToString()),
                            /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (answer->result() == http::status::not_found) {
    Status missing = Expect(*answer, http::status::ok);
    // An unknown route is a server without the route, not a missing event.
    if (missing.message().starts_with("no route for")) return missing;
    return std::optional<RecordedEvent>();
  }
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  auto event = api::StoredEventFromJson(answer->body());
  if (!event.ok()) return event.status();
  return std::optional<RecordedEvent>(std::move(*event));
}

Result<StreamList> Client::ListStreams(const ListStreamsOptions& options) {
  std::string target = "/streams";
  AddQuery(&target, "limit", std::to_string(std::min(options.limit, api::kMaxListedStreams)));
  if (!options.prefix.empty()) AddQuery(&target, "prefix", options.prefix);
  if (!options.category.empty()) AddQuery(&target, "category", options.category);
  if (!options.after.empty()) AddQuery(&target, "after", options.after);
  if (options.last) AddQuery(&target, "last", "true");
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, target), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::StreamListFromJson(answer->body());
}

Result<StreamHead> Client::Head(std::string_view stream) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, StreamPath(stream) + "/head"),
                            /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::HeadFromJson(answer->body());
}

Result<StreamPage> Client::ReadStream(std::string_view stream, const ReadStreamOptions& options) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  std::string target = StreamPath(stream);
  if (options.from) AddQuery(&target, "from", std::to_string(options.from->value()));
  AddQuery(&target, "limit", std::to_string(std::min(options.limit, kMaxPageEvents)));
  if (options.direction == Direction::kBackward) AddQuery(&target, "direction", "backward");
  if (options.include_deleted) AddQuery(&target, "includeDeleted", "true");
  if (options.raw) AddQuery(&target, "raw", "1");
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, target), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  auto page = api::StreamPageFromJson(answer->body());
  if (!page.ok()) return page.status();
  auto etag = api::VersionFromETag((*answer)[http::field::etag]);
  if (!etag.ok()) return etag.status();
  page->last_version = *etag;
  return page;
}

Result<AllPage> Client::ReadAll(const ReadAllOptions& options, std::chrono::milliseconds wait) {
  std::string target = "/all";
  AddQuery(&target, "from", std::to_string(std::max<std::uint64_t>(options.from.value(), 1)));
  AddQuery(&target, "limit", std::to_string(std::min(options.limit, kMaxPageEvents)));
  AddFilterQuery(&target, options.filter);
  if (options.raw) AddQuery(&target, "raw", "1");
  wait = std::clamp(wait, std::chrono::milliseconds(0), api::kMaxWait);
  if (wait.count() > 0) AddQuery(&target, "waitMs", std::to_string(wait.count()));
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, target), /*retry_safe=*/true, wait);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::AllPageFromJson(answer->body());
}

Result<AllPage> Client::ReadQuery(const Query& query, const ReadQueryOptions& options) {
  if (Status s = ValidateQuery(query); !s.ok()) return s;
  ReadQueryOptions page = options;
  page.limit = std::min(options.limit, api::kMaxQueryPageEvents);
  // POST rather than GET: a query of many items does not fit a URL.
  net::Request request = impl_->MakeRequest(http::verb::post, "/query");
  request.set(http::field::content_type, kJsonContentType);
  request.body() = api::QueryReadToJson(query, page);
  request.prepare_payload();
  auto answer = impl_->Call(request, /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::AllPageFromJson(answer->body());
}

Result<ServerHealth> Client::Health() {
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, "/health"), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  // 503 says "starting" or "stopping": an answer, not a failure, here.
  if (answer->result() == http::status::service_unavailable) {
    if (auto health = api::HealthFromJson(answer->body()); health.ok()) return health;
  }
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::HealthFromJson(answer->body());
}

Result<std::string> Client::CreateKey(std::string_view name, const std::vector<std::string>& roles,
                                      std::chrono::seconds expires_in) {
  std::string body = api::KeyRequestToJson(
      {std::string(name), roles, std::max<std::int64_t>(expires_in.count(), 0)});
  net::Request request = impl_->MakeRequest(http::verb::post, "/keys");
  request.set(http::field::content_type, "application/json");
  request.body() = std::move(body);
  request.prepare_payload();
  // Not resent: a second key would be made.
  auto answer = impl_->Call(request, /*retry_safe=*/false);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::created); !s.ok()) return s;
  // The document is the caller's to show; it must be one.
  if (auto made = api::NewKeyFromJson(answer->body()); !made.ok()) return made.status();
  return answer->body();
}

Result<std::string> Client::ListKeys() {
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, "/keys"), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  if (auto listed = api::KeyListFromJson(answer->body()); !listed.ok()) return listed.status();
  return answer->body();
}

Result<std::string> Client::RevokeKey(std::string_view id_or_name) {
  auto answer =
      impl_->Call(impl_->MakeRequest(http::verb::delete_, "/keys/" + PercentEncode(id_or_name)),
                  /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  if (auto revoked = api::RevokedKeyFromJson(answer->body()); !revoked.ok())
    return revoked.status();
  return answer->body();
}

namespace {

std::string GroupPath(std::string_view group) { return "/consumers/" + PercentEncode(group); }

// The status answer of a consumer group route, or its error.
Result<ConsumerGroupInfo> GroupAnswer(const Result<net::Response>& answer) {
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ConsumerGroupInfoFromJson(answer->body());
}

}  // namespace

Status Client::CreateConsumerGroup(std::string_view group, const ConsumerGroupOptions& options) {
  std::string target = GroupPath(group);
  AddFilterQuery(&target, options.filter);
  AddQuery(&target, "start", std::to_string(options.start.value()));
  AddQuery(&target, "maxAttempts", std::to_string(options.max_attempts));
  AddQuery(&target, "initialBackoffMs", std::to_string(options.initial_backoff.count()));
  AddQuery(&target, "maxBackoffMs", std::to_string(options.max_backoff.count()));
  AddQuery(&target, "leaseMs", std::to_string(options.lease.count()));
  AddQuery(&target, "policy", options.policy == FailurePolicy::kPark ? "park" : "block");
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::put, target), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (answer->result() == http::status::created) return Status::Ok();
  return Expect(*answer, http::status::ok);
}

Result<std::vector<ConsumerGroupInfo>> Client::ListConsumerGroups() {
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, "/consumers"), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ConsumerGroupListFromJson(answer->body());
}

Result<ConsumerGroupInfo> Client::ConsumerGroupStatus(std::string_view group) {
  return GroupAnswer(
      impl_->Call(impl_->MakeRequest(http::verb::get, GroupPath(group)), /*retry_safe=*/true));
}

Result<bool> Client::WaitForConsumerGroup(std::string_view group, Position position,
                                          std::chrono::milliseconds timeout) {
  timeout = std::clamp(timeout, std::chrono::milliseconds(0), api::kMaxWait);
  std::string target = GroupPath(group);
  AddQuery(&target, "waitFor", std::to_string(position.value()));
  AddQuery(&target, "timeout", std::to_string(timeout.count()));
  auto answer =
      impl_->Call(impl_->MakeRequest(http::verb::get, target), /*retry_safe=*/true, timeout);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  auto status = api::ConsumerGroupStatusFromJson(answer->body());
  if (!status.ok()) return status.status();
  if (!status->reached) return Status::Internal("the server's waitFor answer has no 'reached'");
  return *status->reached;
}

Status Client::DeleteConsumerGroup(std::string_view group) {
  auto answer =
      impl_->Call(impl_->MakeRequest(http::verb::delete_, GroupPath(group)), /*retry_safe=*/false);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ConsumerGroupDeletedFromJson(answer->body()).status();
}

Result<std::vector<Delivery>> Client::Pull(std::string_view group, std::string_view consumer,
                                           std::size_t max, std::chrono::milliseconds wait,
                                           bool in_order) {
  wait = std::clamp(wait, std::chrono::milliseconds(0), api::kMaxWait);
  std::string target = GroupPath(group) + "/pull";
  if (in_order) AddQuery(&target, "ordered", "true");
  AddQuery(&target, "consumer", consumer);
  AddQuery(&target, "max", std::to_string(max));
  if (wait.count() > 0) AddQuery(&target, "waitMs", std::to_string(wait.count()));
  // Not resent: a lost answer's events are in flight and come again when
  // their lease expires.
  auto answer =
      impl_->Call(impl_->MakeRequest(http::verb::post, target), /*retry_safe=*/false, wait);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::DeliveriesFromJson(answer->body());
}

Status Client::Ack(std::string_view group, const std::vector<Position>& positions) {
  net::Request request = impl_->MakeRequest(http::verb::post, GroupPath(group) + "/ack");
  request.set(http::field::content_type, kJsonContentType);
  request.body() = api::AckToJson(positions);
  request.prepare_payload();
  return GroupAnswer(impl_->Call(request, /*retry_safe=*/true)).status();
}

Status Client::Nack(std::string_view group, Position position, std::string_view reason) {
  net::Request request = impl_->MakeRequest(http::verb::post, GroupPath(group) + "/nack");
  request.set(http::field::content_type, kJsonContentType);
  request.body() = api::NackToJson({position, std::string(reason)});
  request.prepare_payload();
  return GroupAnswer(impl_->Call(request, /*retry_safe=*/false)).status();
}

Status Client::RetryConsumerGroup(std::string_view group) {
  return GroupAnswer(impl_->Call(impl_->MakeRequest(http::verb::post, GroupPath(group) + "/retry"),
                                 /*retry_safe=*/false))
      .status();
}

Status Client::ReplayParked(std::string_view group) {
  return GroupAnswer(impl_->Call(impl_->MakeRequest(http::verb::post, GroupPath(group) + "/replay"),
                                 /*retry_safe=*/true))
      .status();
}

Result<ParkedPage> Client::ReadParked(std::string_view group, StreamVersion from,
                                      std::size_t limit) {
  std::string target = GroupPath(group) + "/parked";
  AddQuery(&target, "from", std::to_string(from.value()));
  AddQuery(&target, "limit", std::to_string(limit));
  auto answer = impl_->Call(impl_->MakeRequest(http::verb::get, target), /*retry_safe=*/true);
  if (!answer.ok()) return answer.status();
  if (Status s = Expect(*answer, http::status::ok); !s.ok()) return s;
  return api::ParkedPageFromJson(answer->body());
}

Status Client::RetryParked(std::string_view group, StreamVersion parked_version) {
  const std::string target =
      GroupPath(group) + "/parked/" + std::to_string(parked_version.value()) + "/retry";
  return GroupAnswer(impl_->Call(impl_->MakeRequest(http::verb::post, target),
                                 /*retry_safe=*/false))
      .status();
}

Status Client::SkipParked(std::string_view group, StreamVersion parked_version) {
  const std::string target =
      GroupPath(group) + "/parked/" + std::to_string(parked_version.value()) + "/skip";
  return GroupAnswer(impl_->Call(impl_->MakeRequest(http::verb::post, target),
                                 /*retry_safe=*/false))
      .status();
}

Status Client::SkipConsumerGroup(std::string_view group) {
  return GroupAnswer(impl_->Call(impl_->MakeRequest(http::verb::post, GroupPath(group) + "/skip"),
                                 /*retry_safe=*/false))
      .status();
}

Result<std::unique_ptr<RemoteSubscription>> Client::SubscribeAll(const SubscribeOptions& options) {
  std::string target = "/subscribe/all";
  AddQuery(&target, "from",
           std::to_string(std::max<std::uint64_t>(options.from_position.value(), 1)));
  AddFilterQuery(&target, options.filter);
  return client::MakeSseSubscription(impl_->http, std::move(target), options);
}

Result<std::unique_ptr<RemoteSubscription>> Client::SubscribeQuery(
    const Query& query, const SubscribeOptions& options) {
  if (Status s = ValidateQuery(query); !s.ok()) return s;
  if (!options.filter.empty())
    return Status::Invalid("filter", "a query subscription takes no filter beside its query");
  std::string target = "/subscribe/query";
  AddQuery(&target, "q", api::QueryToJson(query));
  AddQuery(&target, "from",
           std::to_string(std::max<std::uint64_t>(options.from_position.value(), 1)));
  return client::MakeSseSubscription(impl_->http, std::move(target), options);
}

Result<std::unique_ptr<RemoteSubscription>> Client::SubscribeStream(
    std::string_view stream, const SubscribeOptions& options) {
  if (Status s = ValidateStreamName(stream, /*allow_reserved=*/true); !s.ok()) return s;
  if (options.from_version.value() < 0)
    return Status::Invalid("from_version", "a stream subscription starts at version 0 or later");
  std::string target = "/subscribe/streams/" + PercentEncode(stream);
  AddQuery(&target, "from", std::to_string(options.from_version.value()));
  return client::MakeSseSubscription(impl_->http, std::move(target), options);
}

// The requests.

net::Request Client::Impl::MakeRequest(http::verb method, const std::string& target) const {
  return client::MakeRequest(*http, method, target);
}

Result<net::Response> Client::Impl::Call(const net::Request& request, bool retry_safe,
                                         std::chrono::milliseconds extra) {
  return client::Call(*http, request, retry_safe, extra);
}

net::Request client::MakeRequest(net::HttpClient& http, http::verb method,
                                 const std::string& target) {
  return http.MakeRequest(method, target, "indelible-client/0.1");
}

Result<net::Response> client::Call(net::HttpClient& http, const net::Request& request,
                                   bool retry_safe, std::chrono::milliseconds extra) {
  // One attempt: a request the server may have handled is never sent twice
  // (an append's ids make it safe for the caller to retry, not for us to
  // guess). A keep-alive connection the server closed while it sat in the
  // pool (its idle timeout) fails on first use without the request being
  // read: that one is resent when the request is safe to resend.
  net::RetryPolicy policy;
  policy.max_attempts = 1;
  policy.resend_on_stale_connection = retry_safe;
  net::Exchange exchange = http.Send(request, policy, extra);
  if (!exchange.ok()) return exchange.status;
  return std::move(exchange.response);
}

}  // namespace indelible
