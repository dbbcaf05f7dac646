#include "storage/dynamodb/deploy.h"

#include <fmt/format.h>

#include <boost/json.hpp>
#include <chrono>
#include <thread>

#include "storage/dynamodb/attributes.h"

namespace indelible::dynamodb {
namespace json = boost::json;
namespace {

// A check of a store that makes no tables failed: say what to run. Other
// errors (the endpoint, credentials) pass as they are.
Status WithCreateTablesHint(const Status& status, const StoreUrl& url) {
  const std::string hint = fmt::format(
      "; the URL says create_tables=0, so the store makes and changes no tables: run `indelible "
      "dynamodb create-tables '{}'` (docs/DYNAMODB.md, \"Deploying the tables\")",
      url.text);
  if (status.code() == ErrorCode::kNotFound) return Status::NotFound(status.message() + hint);
  if (status.code() == ErrorCode::kInvalid && status.field() == "table")
    return Status::Invalid("table", status.message() + hint);
  return status;
}

Result<bool> TableExists(aws::Client& client, const std::string& table) {
  aws::Reply described = client.Call("DescribeTable", {{"TableName", table}});
  if (described.status.code() == ErrorCode::kNotFound) return false;
  if (!described.ok()) return described.status;
  return true;
}

// Turns point-in-time recovery on unless it is: DescribeContinuousBackups
// first, so that a second run sends no update.
Result<Pitr> TurnOnPitr(aws::Client& client, const std::string& table) {
  aws::Reply described = client.Call("DescribeContinuousBackups", {{"TableName", table}});
  if (described.ok()) {
    const json::object* backups = ObjectAt(described.body, "ContinuousBackupsDescription");
    const json::object* pitr =
        backups != nullptr ? ObjectAt(*backups, "PointInTimeRecoveryDescription") : nullptr;
    if (pitr != nullptr && StringAt(*pitr, "PointInTimeRecoveryStatus") == "ENABLED")
      return Pitr::kAlreadyOn;
  } else if (described.error_type != "UnknownOperationException") {
    return described.status;
  }
  // Asked even when the description was refused as unknown: the update's
  // own answer says whether the endpoint has backups.
  const json::object request{
      {"TableName", table},
      {"PointInTimeRecoverySpecification", {{"PointInTimeRecoveryEnabled", true}}}};
  for (int attempt = 0;; ++attempt) {
    aws::Reply updated = client.Call("UpdateContinuousBackups", request);
    if (updated.ok()) return Pitr::kTurnedOn;
    if (updated.error_type == "UnknownOperationException") return Pitr::kNotSupported;
    // A table just made: "Backups are being enabled for the table".
    if (updated.error_type != "ContinuousBackupsUnavailableException" || attempt == 60)
      return updated.status;
    std::this_thread::sleep_for(std::chrono::seconds(1));
  }
}

}  // namespace

TableSpec CheckpointsTableSpec(std::string name) {
  TableSpec spec;
  spec.name = std::move(name);
  spec.hash_key = kCheckpointNameKey;
  return spec;
}

Result<std::string> SetUpStoreTables(aws::Client& client, StreamTable& events, AllIndex& all,
                                     const StoreUrl& url, std::vector<TableReport>* reports) {
  const bool create = url.create_tables;
  auto fail = [&](const Status& s) { return create ? s : WithCreateTablesHint(s, url); };
  TableReport events_report;
  events_report.table = events.table();
  auto arn = create ? CreateOrCheckTable(client, events.Spec(), &events_report.changes)
                    : CheckTable(client, events.Spec());
  if (!arn.ok()) return fail(arn.status());

  // The $all table's spec lives in AllIndex::CreateOrCheck, which also
  // writes the indexer's first state: on a table that exists it only
  // describes the table (no stream, TTL or index to turn on).
  TableReport all_report;
  all_report.table = all.table();
  auto existed = TableExists(client, all.table());
  if (!existed.ok()) return existed.status();
  if (!*existed && !create)
    return fail(Status::NotFound(fmt::format("table {} does not exist", all.table())));
  if (Status s = all.CreateOrCheck(); !s.ok()) return fail(s);
  all_report.changes.created = !*existed;

  TableReport checkpoints_report;
  checkpoints_report.table = url.table_prefix + "checkpoints";
  const TableSpec checkpoints = CheckpointsTableSpec(checkpoints_report.table);
  auto checked = create ? CreateOrCheckTable(client, checkpoints, &checkpoints_report.changes)
                        : CheckTable(client, checkpoints);
  if (!checked.ok()) return fail(checked.status());
  if (reports != nullptr) {
    reports->push_back(std::move(events_report));
    reports->push_back(std::move(all_report));
    reports->push_back(std::move(checkpoints_report));
  }
  return arn;
}

Result<std::vector<TableReport>> CreateStoreTables(aws::Client& client, const StoreUrl& url,
                                                   const CreateTablesOptions& options) {
  StoreUrl creating = url;
  creating.create_tables = true;
  StreamTableOptions table;
  table.table = url.table_prefix + "events";
  StreamTable events(client, table);
  AllIndex all(client, url.table_prefix + "all", table.table);
  std::vector<TableReport> reports;
  auto arn = SetUpStoreTables(client, events, all, creating, &reports);
  if (!arn.ok()) return arn.status();
  for (TableReport& report : reports) {
    if (options.pitr) {
      auto pitr = TurnOnPitr(client, report.table);
      if (!pitr.ok()) return pitr.status();
      report.pitr = *pitr;
    }
    if (options.each) options.each(report);
  }
  return reports;
}

}  // namespace indelible::dynamodb
