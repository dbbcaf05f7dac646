// The encoding half of api/wire.h: the documents the server sends.
#include <fmt/format.h>

#include "api/wire.h"
#include "core/event_json.h"

namespace indelible::api {
namespace {

void AppendQuoted(std::string_view text, std::string* out) { out->append(QuoteJson(text)); }

}  // namespace

std::string EventsToJson(const std::vector<EventData>& events) {
  std::string out = "[";
  for (const EventData& event : events) {
    if (out.size() > 1) out.push_back(',');
    out += R"({"id":")" + event.id.ToString() + R"(","type":)";
    AppendQuoted(event.type, &out);
    if (!event.schema.empty()) {
      out += R"(,"schema":)";
      AppendQuoted(event.schema, &out);
    }
    if (event.content_type == kJsonContentType) {
      out += R"(,"data":)";
      out += event.data;
    } else {
      out += R"(,"contentType":)";
      AppendQuoted(event.content_type, &out);
      out += R"(,"dataEncoding":"base64","data":")" + Base64Encode(event.data) + '"';
    }
    out += R"(,"metadata":)";
    out += event.metadata.empty() ? std::string_view("{}") : std::string_view(event.metadata);
    if (!event.tags.empty()) {
      out += R"(,"tags":[)";
      for (std::size_t t = 0; t < event.tags.size(); ++t) {
        if (t > 0) out.push_back(',');
        AppendQuoted(event.tags[t], &out);
      }
      out.push_back(']');
    }
    out.push_back('}');
  }
  out.push_back(']');
  return out;
}

std::string AppendResultToJson(const AppendResult& result) {
  std::string out = R"({"stream":)";
  AppendQuoted(result.stream, &out);
  out += fmt::format(R"(,"firstVersion":{},"lastVersion":{},"position":{}}})",
                     result.first_version.value(), result.last_version.value(),
                     result.position.value());
  return out;
}

std::string HeadToJson(std::string_view stream, const StreamHead& head) {
  std::string out = R"({"stream":)";
  AppendQuoted(stream, &out);
  out += fmt::format(R"(,"version":{},"position":{},"deleted":{},"firstVersion":{}}})",
                     head.version.value(), head.position.value(), head.deleted,
                     head.first_version.value());
  return out;
}

std::string StatusToJson(const Status& status) {
  std::string out = R"({"error":")";
  out += ErrorCodeName(status.code());
  out += R"(","message":)";
  AppendQuoted(status.message(), &out);
  if (!status.field().empty()) {
    out += R"(,"field":)";
    AppendQuoted(status.field(), &out);
  }
  if (status.event_id_conflict()) {
    // No actual version: the stream's version is not what went wrong.
    out += R"(,"reason":"event_id")";
    if (!status.event_id().empty()) out += R"(,"eventId":")" + status.event_id() + '"';
    if (!status.stream().empty()) {
      out += R"(,"stream":)";
      AppendQuoted(status.stream(), &out);
    }
  } else if (status.condition_position()) {
    // An append condition (docs/DCB.md): no stream and no version at fault.
    out += fmt::format(R"(,"reason":"condition","position":{})", *status.condition_position());
  } else if (status.code() == ErrorCode::kConflict) {
    if (!status.stream().empty()) out += R"(,"reason":"version")";
    out += R"(,"actualVersion":)";
    out += status.actual_version() ? std::to_string(*status.actual_version()) : "null";
    if (!status.stream().empty()) {
      out += R"(,"stream":)";
      AppendQuoted(status.stream(), &out);
    }
  }
  if (status.deleted()) out += R"(,"deleted":true)";
  out += '}';
  return out;
}

namespace {

void AppendIndexHealth(const IndexHealth& index, std::string* out) {
  *out += R"({"state":)";
  AppendQuoted(index.state, out);
  if (!index.reason.empty()) {
    *out += R"(,"reason":)";
    AppendQuoted(index.reason, out);
  }
  *out += fmt::format(R"(,"lastPosition":{},"lagEvents":{},"lagSeconds":{})",
                      index.last_position.value(), index.lag_events, index.lag_seconds);
  if (index.newest_indexed_commit_ms > 0)
    *out += fmt::format(R"(,"newestIndexedCommit":{})", index.newest_indexed_commit_ms);
  *out += R"(,"indexer":)";
  AppendQuoted(index.indexer_id, out);
  *out += fmt::format(R"(,"indexes":{},"lease":{{"owner":)", index.indexes);
  AppendQuoted(index.lease_owner, out);
  *out +=
      fmt::format(R"(,"until":{},"held":{}}},"errors":{},"consecutiveErrors":{})",
                  index.lease_until_ms, index.lease_held, index.errors, index.consecutive_errors);
  if (!index.last_error.empty()) {
    *out += R"(,"lastError":)";
    AppendQuoted(index.last_error, out);
  }
  *out += R"(,"shards":[)";
  for (std::size_t i = 0; i < index.shards.size(); ++i) {
    const IndexShardHealth& shard = index.shards[i];
    if (i > 0) out->push_back(',');
    *out += R"({"id":)";
    AppendQuoted(shard.id, out);
    *out += fmt::format(R"(,"unreadAgeSeconds":{},"nearRetention":{}}})", shard.unread_age_seconds,
                        shard.near_retention);
  }
  *out += fmt::format(R"(],"oldestUnreadAgeSeconds":{}}})", index.oldest_unread_age_seconds);
}

}  // namespace

std::string HealthToJson(const ServerHealth& health, const std::optional<IndexHealth>& index) {
  std::string out = R"({"status":)";
  AppendQuoted(health.status, &out);
  if (!health.reason.empty()) {
    out += R"(,"reason":)";
    AppendQuoted(health.reason, &out);
  }
  out += fmt::format(R"(,"lastPosition":{})", health.last_position.value());
  if (index) {
    out += R"(,"index":)";
    AppendIndexHealth(*index, &out);
  }
  out += '}';
  return out;
}

std::string ETagFor(StreamVersion version) { return fmt::format("\"{}\"", version.value()); }

}  // namespace indelible::api
