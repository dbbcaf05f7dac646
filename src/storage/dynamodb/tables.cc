#include "storage/dynamodb/tables.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <optional>
#include <thread>

#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

json::array KeySchema(const TableSpec& spec) {
  json::array keys{{{"AttributeName", spec.hash_key}, {"KeyType", "HASH"}}};
  if (!spec.range_key.empty())
    keys.push_back({{"AttributeName", spec.range_key}, {"KeyType", "RANGE"}});
  return keys;
}

json::object IndexDefinition(const TableSpec::Index& index) {
  return {{"IndexName", index.name},
          {"KeySchema", json::array{{{"AttributeName", index.hash_key}, {"KeyType", "HASH"}},
                                    {{"AttributeName", index.range_key}, {"KeyType", "RANGE"}}}},
          {"Projection", {{"ProjectionType", "KEYS_ONLY"}}}};
}

// Adds {name: type} to AttributeDefinitions unless it is there already (a
// table key that is also an index key is defined once).
void Define(json::array& attributes, const std::string& name, char type) {
  for (const auto& a : attributes)
    if (a.is_object() && StringAt(a.get_object(), "AttributeName") == name) return;
  attributes.push_back({{"AttributeName", name}, {"AttributeType", std::string(1, type)}});
}

// The description of the table's global secondary index `name`; null if
// the table has none of that name.
const json::object* FindIndex(const json::object& table, std::string_view name) {
  const auto* indexes = table.if_contains("GlobalSecondaryIndexes");
  if (indexes == nullptr || !indexes->is_array()) return nullptr;
  for (const auto& index : indexes->get_array())
    if (index.is_object() && StringAt(index.get_object(), "IndexName") == name)
      return &index.get_object();
  return nullptr;
}

json::object StreamSpecification() {
  return {{"StreamEnabled", true}, {"StreamViewType", kStreamViewType}};
}

// The described table's keys against the spec's: invalid, naming both, when
// they differ.
Status CheckKeys(const json::object& table, const TableSpec& spec) {
  const json::value* keys = table.if_contains("KeySchema");
  const std::string key_text = keys != nullptr ? json::serialize(*keys) : "none";
  const std::string expected_keys = json::serialize(KeySchema(spec));
  if (key_text == expected_keys) return Status::Ok();
  return Status::Invalid("table", fmt::format("table {} exists with keys {}, not {}", spec.name,
                                              key_text, expected_keys));
}

// Whether the described table's change stream is on: invalid when it is on
// with a view the indexer cannot use (without the old image it would index
// a state record's update of an append item as another append).
Result<bool> StreamOn(const json::object& table, const TableSpec& spec) {
  const json::object* stream = ObjectAt(table, "StreamSpecification");
  if (stream == nullptr || stream->if_contains("StreamEnabled") == nullptr ||
      stream->at("StreamEnabled") != true)
    return false;
  const std::string view = StringAt(*stream, "StreamViewType");
  if (!view.empty() && view != kStreamViewType)
    return Status::Invalid(
        "table", fmt::format("table {} has a change stream of view {}; the $all indexer needs {}: "
                             "turn the stream off and on again with that view, then rebuild $all "
                             "(docs/DYNAMODB.md, \"Rebuilding $all\")",
                             spec.name, view, kStreamViewType));
  return true;
}

// The described index's keys against the spec's.
Status CheckIndexKeys(const json::object& index, const TableSpec& spec) {
  const std::string expected = json::serialize(IndexDefinition(*spec.index).at("KeySchema"));
  const json::value* keys = index.if_contains("KeySchema");
  if (keys == nullptr || json::serialize(*keys) == expected) return Status::Ok();
  return Status::Invalid("table",
                         fmt::format("table {} has an index {} with keys {}, not {}", spec.name,
                                     spec.index->name, json::serialize(*keys), expected));
}

// Whether the table's TTL is on (ENABLED or ENABLING) for spec.ttl_attribute:
// invalid when it is on for another attribute; nullopt when the endpoint
// has no TTL at all (UnknownOperationException).
Result<std::optional<bool>> TtlOn(aws::Client& client, const TableSpec& spec) {
  aws::Reply described = client.Call("DescribeTimeToLive", {{"TableName", spec.name}});
  if (described.error_type == "UnknownOperationException") return std::optional<bool>();
  if (!described.ok()) return described.status;
  const auto* found = described.body.if_contains("TimeToLiveDescription");
  if (found == nullptr || !found->is_object()) return std::optional<bool>(false);
  const std::string status = StringAt(found->get_object(), "TimeToLiveStatus");
  const std::string attribute = StringAt(found->get_object(), "AttributeName");
  if (status != "ENABLED" && status != "ENABLING") return std::optional<bool>(false);
  if (attribute != spec.ttl_attribute)
    return Status::Invalid("table", fmt::format("table {} has TTL on attribute '{}'; indelible "
                                                "needs it on '{}'",
                                                spec.name, attribute, spec.ttl_attribute));
  return std::optional<bool>(true);
}

// Turns the table's TTL on for spec.ttl_attribute unless it is on already;
// *turned_on when this call's request did it.
Status EnableTtl(aws::Client& client, const TableSpec& spec, bool* turned_on) {
  auto on = TtlOn(client, spec);
  if (!on.ok()) return on.status();
  if (!on->has_value() || **on) return Status::Ok();
  aws::Reply updated = client.Call(
      "UpdateTimeToLive",
      {{"TableName", spec.name},
       {"TimeToLiveSpecification", {{"AttributeName", spec.ttl_attribute}, {"Enabled", true}}}});
  // dynalite knows DescribeTimeToLive (always DISABLED) but not this: it
  // keeps no TTL, and it cannot hold what needs one (snapshot items need
  // transactions, which it lacks either).
  if (updated.ok()) *turned_on = true;
  if (updated.ok() || updated.error_type == "UnknownOperationException") return Status::Ok();
  // Another process turned it on between our look and our request:
  // ValidationException "TimeToLive is already enabled" (DynamoDB and
  // DynamoDB Local), or "modified multiple times within a fixed interval",
  // or ResourceInUseException. What counts is the end state, and
  // DescribeTimeToLive may lag the other's update: ask again for a while.
  if (updated.status.code() != ErrorCode::kInvalid && updated.status.code() != ErrorCode::kConflict)
    return updated.status;
  for (int i = 0; i < 50; ++i) {
    on = TtlOn(client, spec);
    if (!on.ok()) return on.status();
    if (on->value_or(true)) return Status::Ok();
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return updated.status;
}

}  // namespace

Result<std::string> CreateOrCheckTable(aws::Client& client, const TableSpec& spec,
                                       TableChanges* changes) {
  TableChanges ignored;
  if (changes == nullptr) changes = &ignored;
  aws::Reply described = client.Call("DescribeTable", {{"TableName", spec.name}});
  bool creating = false;
  if (described.status.code() == ErrorCode::kNotFound) {
    json::array attributes{
        {{"AttributeName", spec.hash_key}, {"AttributeType", std::string(1, spec.hash_type)}}};
    if (!spec.range_key.empty())
      attributes.push_back(
          {{"AttributeName", spec.range_key}, {"AttributeType", std::string(1, spec.range_type)}});
    if (spec.index) {
      Define(attributes, spec.index->hash_key, 'S');
      Define(attributes, spec.index->range_key, 'S');
    }
    json::object request{{"TableName", spec.name},
                         {"BillingMode", "PAY_PER_REQUEST"},
                         {"AttributeDefinitions", std::move(attributes)},
                         {"KeySchema", KeySchema(spec)}};
    if (spec.change_stream) request["StreamSpecification"] = StreamSpecification();
    if (spec.index) request["GlobalSecondaryIndexes"] = json::array{IndexDefinition(*spec.index)};
    aws::Reply created = client.Call("CreateTable", request);
    // ResourceInUseException (conflict): another process created it at the
    // same moment. Ours or theirs, the checks below judge the table.
    if (!created.ok() && created.status.code() != ErrorCode::kConflict) return created.status;
    changes->created = created.ok();
    creating = true;
    described = client.Call("DescribeTable", {{"TableName", spec.name}});
  }
  bool stream_requested = false;
  int stream_refused_at = -1;   // the round whose UpdateTable was refused
  int index_requested_at = -1;  // the round whose UpdateTable asked for the index
  std::string add_index_error;  // what refused it
  for (int i = 0;; ++i) {
    // DescribeTable is eventually consistent: just after CreateTable (ours
    // or another's) it may not know the table yet. Wait as for CREATING.
    const bool not_yet = creating && described.status.code() == ErrorCode::kNotFound;
    if (!described.ok() && !not_yet) return described.status;
    if (not_yet) {
      if (i == 600) return described.status;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      described = client.Call("DescribeTable", {{"TableName", spec.name}});
      continue;
    }
    const auto* found = described.body.if_contains("Table");
    if (found == nullptr || !found->is_object())
      return Status::Internal("DescribeTable answered without a Table: " +
                              json::serialize(described.body));
    const json::object& table = found->get_object();
    if (Status s = CheckKeys(table, spec); !s.ok()) return s;
    const bool active = StringAt(table, "TableStatus") == "ACTIVE";
    std::string arn = StringAt(table, "LatestStreamArn");
    auto stream_on_or = StreamOn(table, spec);
    if (!stream_on_or.ok()) return stream_on_or.status();
    const bool stream_on = *stream_on_or;
    if (active && spec.change_stream && !stream_on && !stream_requested) {
      // An existing table without its stream (made by an older version, or
      // by hand): turn it on. Commits before this are not in $all until the
      // index is rebuilt from a scan (docs/DYNAMODB.md).
      stream_requested = true;
      aws::Reply updated =
          client.Call("UpdateTable",
                      {{"TableName", spec.name}, {"StreamSpecification", StreamSpecification()}});
      // Another process turned it on first: ValidationException "Table
      // already has an enabled stream", or ResourceInUseException while the
      // table is UPDATING. The description (once ACTIVE) says how it ended.
      if (!updated.ok() && updated.status.code() != ErrorCode::kInvalid &&
          updated.status.code() != ErrorCode::kConflict)
        return updated.status;
      if (!updated.ok()) stream_refused_at = i;
      changes->stream_turned_on = updated.ok();
      described = client.Call("DescribeTable", {{"TableName", spec.name}});
      continue;
    }
    // Refused because another process is turning the stream on: its
    // description may lag, so look again for a while before concluding
    // that the endpoint keeps none.
    if (active && spec.change_stream && !stream_on && stream_refused_at >= 0 &&
        i - stream_refused_at < 50) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      described = client.Call("DescribeTable", {{"TableName", spec.name}});
      continue;
    }
    const json::object* index = spec.index ? FindIndex(table, spec.index->name) : nullptr;
    if (index != nullptr)
      if (Status s = CheckIndexKeys(*index, spec); !s.ok()) return s;
    const std::string result = spec.change_stream ? arn : std::string();
    if (active) {
      if (!spec.ttl_attribute.empty())
        if (Status s = EnableTtl(client, spec, &changes->ttl_turned_on); !s.ok()) return s;
      if (!spec.index || index != nullptr) return result;
      if (index_requested_at < 0) {
        // A table made before the index (an older version): give the items
        // written before it what the index needs, then add it. DynamoDB
        // backfills it from the items that carry its keys; the open does
        // not wait for that (IndexStatus says when it is ACTIVE), nor for
        // the table, which may show UPDATING meanwhile.
        index_requested_at = i;
        if (spec.before_adding_index)
          if (Status s = spec.before_adding_index(); !s.ok()) return s;
        json::array attributes;
        Define(attributes, spec.index->hash_key, 'S');
        Define(attributes, spec.index->range_key, 'S');
        aws::Reply updated = client.Call(
            "UpdateTable", {{"TableName", spec.name},
                            {"AttributeDefinitions", std::move(attributes)},
                            {"GlobalSecondaryIndexUpdates",
                             json::array{json::object{{"Create", IndexDefinition(*spec.index)}}}}});
        changes->index_added = updated.ok();
        if (updated.ok()) return result;
        // Another process asked first: ValidationException (the index
        // exists), ResourceInUseException (the table is UPDATING), or on
        // AWS LimitExceededException (one index built at a time), which
        // the client retries and then calls unavailable. The description
        // (looked at again for 5 s) says how it ended.
        if (updated.status.code() != ErrorCode::kInvalid &&
            updated.status.code() != ErrorCode::kConflict &&
            updated.status.code() != ErrorCode::kUnavailable)
          return updated.status;
        add_index_error = updated.status.ToString();
      }
    }
    if (index_requested_at >= 0) {
      if (index != nullptr) return result;  // another process added it
      if (i - index_requested_at >= 50)
        return Status::Unavailable(fmt::format(
            "table {} lacks the index {} and adding it failed ({}); add it by hand (aws dynamodb "
            "update-table --table-name {} --attribute-definitions AttributeName={},"
            "AttributeType=S AttributeName={},AttributeType=S --global-secondary-index-updates "
            "'[{{\"Create\":{}}}]') and open the store again",
            spec.name, spec.index->name, add_index_error, spec.name, spec.index->hash_key,
            spec.index->range_key, json::serialize(IndexDefinition(*spec.index))));
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      described = client.Call("DescribeTable", {{"TableName", spec.name}});
      continue;
    }
    if (i == 600) return Status::Unavailable("table " + spec.name + " never became ACTIVE");
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    described = client.Call("DescribeTable", {{"TableName", spec.name}});
  }
}

Result<std::string> CheckTable(aws::Client& client, const TableSpec& spec) {
  for (int i = 0;; ++i) {
    aws::Reply described = client.Call("DescribeTable", {{"TableName", spec.name}});
    if (described.status.code() == ErrorCode::kNotFound)
      return Status::NotFound(fmt::format("table {} does not exist", spec.name));
    if (!described.ok()) return described.status;
    const json::object* table = ObjectAt(described.body, "Table");
    if (table == nullptr)
      return Status::Internal("DescribeTable answered without a Table: " +
                              json::serialize(described.body));
    if (Status s = CheckKeys(*table, spec); !s.ok()) return s;
    const std::string status = StringAt(*table, "TableStatus");
    if (status == "CREATING" && i < 600) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    // UPDATING serves reads and writes (an index or a stream on its way).
    if (status != "ACTIVE" && status != "UPDATING")
      return Status::Unavailable(fmt::format("table {} is {}", spec.name, status));
    if (spec.change_stream) {
      auto on = StreamOn(*table, spec);
      if (!on.ok()) return on.status();
      if (!*on)
        return Status::Invalid("table", fmt::format("table {} has no change stream ({}), which the "
                                                    "$all indexer reads",
                                                    spec.name, kStreamViewType));
    }
    if (spec.index) {
      const json::object* index = FindIndex(*table, spec.index->name);
      if (index == nullptr)
        return Status::Invalid("table", fmt::format("table {} lacks its global secondary index {}",
                                                    spec.name, spec.index->name));
      if (Status s = CheckIndexKeys(*index, spec); !s.ok()) return s;
    }
    if (!spec.ttl_attribute.empty()) {
      auto on = TtlOn(client, spec);
      if (!on.ok()) return on.status();
      if (on->has_value() && !**on)
        return Status::Invalid("table", fmt::format("table {} has TTL off; indelible needs it on "
                                                    "'{}'",
                                                    spec.name, spec.ttl_attribute));
    }
    return spec.change_stream ? StringAt(*table, "LatestStreamArn") : std::string();
  }
}

Result<std::string> IndexStatus(aws::Client& client, const std::string& table,
                                const std::string& index) {
  aws::Reply described = client.Call("DescribeTable", {{"TableName", table}});
  if (!described.ok()) return described.status;
  const json::object* found = ObjectAt(described.body, "Table");
  if (found == nullptr) return Status::Internal("DescribeTable answered without a Table");
  const json::object* description = FindIndex(*found, index);
  return description == nullptr ? std::string() : StringAt(*description, "IndexStatus");
}

Status BatchWrite(aws::Client& client, const std::string& table, json::array requests) {
  json::object request{{"RequestItems", json::object{{table, std::move(requests)}}}};
  // Unprocessed items are DynamoDB's throttle for a batch (and DynamoDB
  // Local's while a new index is being filled, on a loaded machine): sent
  // again with back-off up to 1.28 s, for a minute, as AWS advises.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (int attempt = 0;; ++attempt) {
    aws::Reply reply = client.Call("BatchWriteItem", request);
    if (!reply.ok()) return reply.status;
    const auto* left = reply.body.if_contains("UnprocessedItems");
    if (left == nullptr || !left->is_object() || left->get_object().empty()) return Status::Ok();
    if (std::chrono::steady_clock::now() >= give_up)
      return Status::Unavailable(
          fmt::format("BatchWriteItem on {} left items unprocessed for a minute ({} attempts)",
                      table, attempt + 1));
    request["RequestItems"] = *left;
    std::this_thread::sleep_for(std::chrono::milliseconds(10 << std::min(attempt, 7)));
  }
}

}  // namespace indelible::dynamodb
