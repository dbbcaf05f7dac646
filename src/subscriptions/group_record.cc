#include "subscriptions/group_record.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>

namespace indelible::subscriptions {
namespace json = boost::json;
namespace {

constexpr std::size_t kMaxGroupNameBytes = 200;

json::array ToArray(const std::vector<std::string>& values) {
  json::array out;
  for (const auto& v : values) out.emplace_back(v);
  return out;
}

bool FromArray(const json::value* value, std::vector<std::string>* out) {
  if (value == nullptr) return true;
  if (!value->is_array()) return false;
  for (const auto& item : value->as_array()) {
    if (!item.is_string()) return false;
    out->emplace_back(item.as_string());
  }
  return true;
}

std::int64_t Int(const json::object& object, std::string_view key, bool* ok) {
  const json::value* v = object.if_contains(key);
  if (v == nullptr || !v->is_int64()) {
    *ok = false;
    return 0;
  }
  return v->as_int64();
}

}  // namespace

Status ValidateGroupName(std::string_view name) {
  const bool valid_chars = std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.';
  });
  if (name.empty() || name.size() > kMaxGroupNameBytes || !valid_chars)
    return Status::Invalid("group",
                           fmt::format("a consumer group name has 1 to {} letters, digits, '-', "
                                       "'_' or '.'; got '{}'",
                                       kMaxGroupNameBytes, name.substr(0, 64)));
  return Status::Ok();
}

Status ValidateGroupOptions(const ConsumerGroupOptions& options) {
  if (options.max_attempts < 1)
    return Status::Invalid("maxAttempts", "a consumer group needs at least 1 attempt per event");
  if (options.initial_backoff.count() < 0 || options.max_backoff < options.initial_backoff)
    return Status::Invalid("backoff", "backoffs must be >= 0 with max >= initial");
  if (options.lease.count() < 1)
    return Status::Invalid("lease", "a consumer group lease must be at least 1 ms");
  if (options.window < 1)
    return Status::Invalid("window", "a consumer group window must hold at least 1 event");
  if (options.window_bytes < 1)
    return Status::Invalid("windowBytes", "a consumer group window must hold at least 1 byte");
  return Status::Ok();
}

std::string RecordName(std::string_view group) {
  return std::string(kGroupRecordPrefix) + std::string(group);
}

std::string EncodeGroupRecord(const GroupRecord& record) {
  const ConsumerGroupOptions& o = record.options;
  json::object filter;
  filter["categories"] = ToArray(o.filter.categories);
  filter["streamPrefixes"] = ToArray(o.filter.stream_prefixes);
  filter["types"] = ToArray(o.filter.types);
  json::object out;
  out["version"] = 1;
  out["filter"] = std::move(filter);
  out["start"] = static_cast<std::int64_t>(o.start.value());
  out["policy"] = o.policy == FailurePolicy::kPark ? "park" : "block";
  out["maxAttempts"] = o.max_attempts;
  out["initialBackoffMs"] = o.initial_backoff.count();
  out["maxBackoffMs"] = o.max_backoff.count();
  out["leaseMs"] = o.lease.count();
  out["checkpoint"] = static_cast<std::int64_t>(record.checkpoint.value());
  json::object parked;
  for (const auto& [stream, version] : record.parked)
    parked[stream] = static_cast<std::int64_t>(version);
  out["parked"] = std::move(parked);
  out["parkedEvents"] = static_cast<std::int64_t>(record.parked_events);
  out["replaying"] = record.replaying;
  // Written only when there are some, so records without per-event
  // decisions stay as older versions wrote them.
  if (!record.skipped.empty()) {
    json::array skipped;
    for (const auto& [version, copy] : record.skipped)
      skipped.push_back(
          json::object{{"version", static_cast<std::int64_t>(version)},
                       {"stream", copy.stream},
                       {"position", static_cast<std::int64_t>(copy.position.value())}});
    out["skipped"] = std::move(skipped);
  }
  if (!record.retrying.empty()) {
    json::array retrying;
    for (std::uint64_t version : record.retrying)
      retrying.emplace_back(static_cast<std::int64_t>(version));
    out["retrying"] = std::move(retrying);
  }
  return json::serialize(out);
}

Result<GroupRecord> DecodeGroupRecord(std::string_view group, std::string_view text) {
  auto corrupt = [&](std::string_view what) {
    return Status::Internal(
        fmt::format("the record of consumer group '{}' is unreadable ({}); "
                    "delete and recreate the group",
                    group, what));
  };
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec || !value.is_object()) return corrupt("not a JSON object");
  const json::object& object = value.as_object();
  bool ok = true;
  if (Int(object, "version", &ok) != 1 || !ok) return corrupt("unknown version");
  GroupRecord record;
  ConsumerGroupOptions& o = record.options;
  const json::value* filter = object.if_contains("filter");
  if (filter == nullptr || !filter->is_object()) return corrupt("no filter");
  const json::object& f = filter->as_object();
  if (!FromArray(f.if_contains("categories"), &o.filter.categories) ||
      !FromArray(f.if_contains("streamPrefixes"), &o.filter.stream_prefixes) ||
      !FromArray(f.if_contains("types"), &o.filter.types))
    return corrupt("bad filter");
  const json::value* policy = object.if_contains("policy");
  if (policy == nullptr || !policy->is_string() ||
      (policy->as_string() != "block" && policy->as_string() != "park"))
    return corrupt("unknown policy");
  o.policy = policy->as_string() == "park" ? FailurePolicy::kPark : FailurePolicy::kBlock;
  const std::int64_t start = Int(object, "start", &ok);
  o.max_attempts = static_cast<int>(Int(object, "maxAttempts", &ok));
  o.initial_backoff = std::chrono::milliseconds(Int(object, "initialBackoffMs", &ok));
  o.max_backoff = std::chrono::milliseconds(Int(object, "maxBackoffMs", &ok));
  o.lease = std::chrono::milliseconds(Int(object, "leaseMs", &ok));
  const std::int64_t checkpoint = Int(object, "checkpoint", &ok);
  if (!ok || start < 0 || checkpoint < 0) return corrupt("bad numbers");
  // Parking state: absent in records written before the park policy.
  if (const json::value* parked = object.if_contains("parked")) {
    if (!parked->is_object()) return corrupt("bad parked");
    for (const auto& [stream, version] : parked->as_object()) {
      if (!version.is_int64() || version.as_int64() < 0) return corrupt("bad parked version");
      record.parked.emplace(std::string(stream), static_cast<std::uint64_t>(version.as_int64()));
    }
    const std::int64_t count = Int(object, "parkedEvents", &ok);
    const json::value* replaying = object.if_contains("replaying");
    if (!ok || count < 0 || replaying == nullptr || !replaying->is_bool())
      return corrupt("bad parked counts");
    record.parked_events = static_cast<std::uint64_t>(count);
    record.replaying = replaying->as_bool();
  }
  // Per-event decisions: absent in records written before them.
  if (const json::value* skipped = object.if_contains("skipped")) {
    if (!skipped->is_array()) return corrupt("bad skipped");
    for (const json::value& item : skipped->as_array()) {
      if (!item.is_object()) return corrupt("bad skipped event");
      const json::object& copy = item.as_object();
      const std::int64_t version = Int(copy, "version", &ok);
      const std::int64_t position = Int(copy, "position", &ok);
      const json::value* stream = copy.if_contains("stream");
      if (!ok || version < 0 || position < 1 || stream == nullptr || !stream->is_string())
        return corrupt("bad skipped event");
      record.skipped.emplace(static_cast<std::uint64_t>(version),
                             SkippedCopy{std::string(stream->as_string()),
                                         Position(static_cast<std::uint64_t>(position))});
    }
  }
  if (const json::value* retrying = object.if_contains("retrying")) {
    if (!retrying->is_array()) return corrupt("bad retrying");
    for (const json::value& version : retrying->as_array()) {
      if (!version.is_int64() || version.as_int64() < 0) return corrupt("bad retrying version");
      record.retrying.insert(static_cast<std::uint64_t>(version.as_int64()));
    }
  }
  o.start = Position(static_cast<std::uint64_t>(start));
  record.checkpoint = Position(static_cast<std::uint64_t>(checkpoint));
  if (Status s = ValidateGroupOptions(o); !s.ok()) return corrupt(s.message());
  return record;
}

bool SameDefinition(const ConsumerGroupOptions& a, const ConsumerGroupOptions& b) {
  return a.filter.categories == b.filter.categories &&
         a.filter.stream_prefixes == b.filter.stream_prefixes && a.filter.types == b.filter.types &&
         a.start == b.start && a.policy == b.policy;
}

}  // namespace indelible::subscriptions
