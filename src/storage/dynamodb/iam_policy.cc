#include "storage/dynamodb/iam_policy.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/json.hpp>
#include <set>

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

constexpr ApiRole kServer = ApiRole::kServer;
constexpr ApiRole kAdmin = ApiRole::kAdmin;
constexpr ApiResource kTables = ApiResource::kTables;
constexpr ApiResource kTablesAndIndex = ApiResource::kTablesAndIndex;
constexpr ApiResource kChangeStream = ApiResource::kChangeStream;

// Which code sends each request. A request added to the code goes here too:
// the policy test fails on one sent and missing, or listed and never sent.
constexpr ApiCall kCalls[] = {
    // One stream's commit (stream_table_commit.cc), a $all chunk and the
    // indexer's state (all_index.cc), the layout marker and checkpoints
    // (dynamodb_store.cc: MarkLayout, SaveRecord).
    {"PutItem", false, kServer, kTables, {"dynamodb:PutItem"}},
    // Heads, tips and append items (stream_table*.cc), the indexer's state
    // (all_index.cc), checkpoints and the layout marker (dynamodb_store.cc).
    {"GetItem", false, kServer, kTables, {"dynamodb:GetItem"}},
    // Superseded snapshot items' expiry (stream_table.cc: MarkSuperseded),
    // the listing key of older tips (stream_table_list.cc: AddListKeys), a
    // tip's events moving out (stream_table_move.cc), a scavenge's copy of
    // the listing key (scavenge.cc).
    {"UpdateItem", false, kServer, kTables, {"dynamodb:UpdateItem"}},
    // A checkpoint (DeleteRecord), a converted tip (stream_table_move.cc).
    {"DeleteItem", false, kServer, kTables, {"dynamodb:DeleteItem"}},
    // Stream reads (stream_table.cc), $all (all_index.cc), and the stream
    // listing on the events table's index (stream_table_list.cc).
    {"Query", false, kServer, kTablesAndIndex, {"dynamodb:Query"}},
    // Checkpoint listings (ListRecords) and the layout check at open
    // (dynamodb_store.cc), heads for rebuild-index (stream_table_scan.cc),
    // tips for upgrade and the listing key (stream_table_move.cc,
    // stream_table_list.cc), $all chunks holding copies after a scavenge
    // (all_index.cc: DropInline).
    {"Scan", false, kServer, kTables, {"dynamodb:Scan"}},
    // Many append items at once (append_item.cc, batch_get.cc), the tips of
    // listed streams (stream_table_list.cc), scavenge floors (scavenge.cc).
    {"BatchGetItem", false, kServer, kTables, {"dynamodb:BatchGetItem"}},
    // tables.cc BatchWrite: a tip's events moving out (stream_table_move.cc),
    // the items past a cut of $all (all_index.cc, rebuild-index), the items
    // a scavenge removes (scavenge.cc).
    {"BatchWriteItem", false, kServer, kTables, {"dynamodb:BatchWriteItem"}},
    // A commit to several streams, a state record in snapshot items
    // (stream_table_commit.cc): Put, Update and ConditionCheck elements, each
    // allowed by its own IAM action (TransactWriteItems is none).
    {"TransactWriteItems",
     false,
     kServer,
     kTables,
     {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:ConditionCheckItem"}},
    // The tables' checks at open (tables.cc: CreateOrCheckTable, CheckTable)
    // and the listing index's status (IndexStatus).
    {"DescribeTable", false, kServer, kTables, {"dynamodb:DescribeTable"}},
    // The events table's TTL, checked at open (tables.cc).
    {"DescribeTimeToLive", false, kServer, kTables, {"dynamodb:DescribeTimeToLive"}},
    // The $all indexer and rebuild-index reading the change stream
    // (indexer.cc, change_stream.cc). Its ARN comes from DescribeTable, so
    // ListStreams is never sent.
    {"DescribeStream", true, kServer, kChangeStream, {"dynamodb:DescribeStream"}},
    {"GetShardIterator", true, kServer, kChangeStream, {"dynamodb:GetShardIterator"}},
    {"GetRecords", true, kServer, kChangeStream, {"dynamodb:GetRecords"}},
    // Making a missing table (tables.cc: CreateOrCheckTable).
    {"CreateTable", false, kAdmin, kTables, {"dynamodb:CreateTable"}},
    // Turning on an existing events table's change stream, adding its
    // listing index (tables.cc).
    {"UpdateTable", false, kAdmin, kTables, {"dynamodb:UpdateTable"}},
    // TTL on the events table's expires_at (tables.cc: EnableTtl).
    {"UpdateTimeToLive", false, kAdmin, kTables, {"dynamodb:UpdateTimeToLive"}},
    // Point-in-time recovery, by create-tables only (deploy.cc: TurnOnPitr).
    {"DescribeContinuousBackups", false, kAdmin, kTables, {"dynamodb:DescribeContinuousBackups"}},
    {"UpdateContinuousBackups", false, kAdmin, kTables, {"dynamodb:UpdateContinuousBackups"}},
};

// IAM's partition of a region: its ARNs say arn:aws-cn:... in China.
std::string Partition(std::string_view region) {
  if (region.starts_with("cn-")) return "aws-cn";
  if (region.starts_with("us-gov-")) return "aws-us-gov";
  return "aws";
}

json::array Sorted(std::set<std::string> actions) {
  json::array out;
  for (const auto& a : actions) out.emplace_back(a);
  return out;
}

std::set<std::string> Actions(ApiRole role, std::initializer_list<ApiResource> resources) {
  std::set<std::string> out;
  for (const ApiCall& call : kCalls) {
    if (call.role != role ||
        std::find(resources.begin(), resources.end(), call.resource) == resources.end())
      continue;
    for (std::string_view action : call.iam_actions)
      if (!action.empty()) out.emplace(action);
  }
  return out;
}

json::object Statement(std::string sid, std::set<std::string> actions, json::array resources) {
  return {{"Sid", std::move(sid)},
          {"Effect", "Allow"},
          {"Action", Sorted(std::move(actions))},
          {"Resource", std::move(resources)}};
}

void Pretty(std::string& out, const json::value& value, int indent) {
  const std::string pad(indent + 2, ' ');
  if (value.is_object() && !value.get_object().empty()) {
    out += "{\n";
    bool first = true;
    for (const auto& [key, member] : value.get_object()) {
      out += (first ? "" : ",\n") + pad + json::serialize(json::string(key)) + ": ";
      Pretty(out, member, indent + 2);
      first = false;
    }
    out += "\n" + std::string(indent, ' ') + "}";
  } else if (value.is_array() && !value.get_array().empty()) {
    out += "[\n";
    bool first = true;
    for (const auto& element : value.get_array()) {
      out += (first ? "" : ",\n") + pad;
      Pretty(out, element, indent + 2);
      first = false;
    }
    out += "\n" + std::string(indent, ' ') + "]";
  } else {
    out += json::serialize(value);
  }
}

}  // namespace

std::span<const ApiCall> StoreApiCalls() { return kCalls; }

std::vector<std::string> IamActions(ApiRole role) {
  const auto actions = Actions(role, {kTables, kTablesAndIndex, kChangeStream});
  return {actions.begin(), actions.end()};
}

json::object PolicyDocument(const StoreUrl& url, const PolicyOptions& options) {
  const std::string table_arn = fmt::format("arn:{}:dynamodb:{}:{}:table/", Partition(url.region),
                                            url.region, options.account);
  const std::string events = table_arn + url.table_prefix + "events";
  json::array tables{events, table_arn + url.table_prefix + "all",
                     table_arn + url.table_prefix + "checkpoints"};
  json::array statements{
      Statement("IndelibleTables", Actions(kServer, {kTables, kTablesAndIndex}), tables),
      Statement("IndelibleListingIndex", Actions(kServer, {kTablesAndIndex}),
                {events + "/index/*"}),
      Statement("IndelibleChangeStream", Actions(kServer, {kChangeStream}),
                {events + "/stream/*"})};
  if (options.admin)
    statements.push_back(
        Statement("IndelibleCreateTables", Actions(kAdmin, {kTables}), std::move(tables)));
  return {{"Version", "2012-10-17"}, {"Statement", std::move(statements)}};
}

json::object IamActionsJson() {
  return {{"server", Sorted(Actions(kServer, {kTables, kTablesAndIndex, kChangeStream}))},
          {"admin", Sorted(Actions(kAdmin, {kTables, kTablesAndIndex, kChangeStream}))},
          {"index", Sorted(Actions(kServer, {kTablesAndIndex}))},
          {"stream", Sorted(Actions(kServer, {kChangeStream}))}};
}

std::string PrettyJson(const json::value& value) {
  std::string out;
  Pretty(out, value, 0);
  return out + "\n";
}

}  // namespace indelible::dynamodb
