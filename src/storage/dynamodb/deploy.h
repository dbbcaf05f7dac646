// Setting up a DynamoDB store's tables: what a store does with them when it
// opens (create_tables=1: make what is missing; 0: check only), and what
// `indelible dynamodb create-tables` does besides: point-in-time recovery.
// One list of tables, their specs from the classes that use them
// (StreamTable::Spec, AllIndex::CreateOrCheck, CheckpointsTableSpec).
// Functions of a client: as thread-safe as the client (aws/client.h).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "aws/client.h"
#include "indelible/result.h"
#include "storage/dynamodb/all_index.h"
#include "storage/dynamodb/store_url.h"
#include "storage/dynamodb/stream_table.h"
#include "storage/dynamodb/tables.h"

namespace indelible::dynamodb {

// The checkpoints table (consumer groups', projections' records): one item
// per record, its name the partition key.
inline constexpr std::string_view kCheckpointNameKey = "name";
TableSpec CheckpointsTableSpec(std::string name);

// Point-in-time recovery (continuous backups) of one table, as
// create-tables left it.
enum class Pitr {
  kNotAsked,      // --no-pitr, or the store's own open (never touches it)
  kAlreadyOn,     // DescribeContinuousBackups said ENABLED: nothing sent
  kTurnedOn,      // UpdateContinuousBackups turned it on
  kNotSupported,  // the endpoint knows neither request (DynamoDB Local, dynalite)
};

// What setting up one table found and did.
struct TableReport {
  std::string table;
  TableChanges changes;  // all false: it was there and complete
  Pitr pitr = Pitr::kNotAsked;
};

// The store's tables, made or checked in the order a store opening them
// needs: the events table (change stream, listing index, TTL), the $all
// table with its indexer's state, the checkpoints table. With
// url.create_tables, CreateOrCheckTable makes what is missing and turns on
// what is off; without, CheckTable changes nothing, and a table that is
// missing or lacks something fails naming it and `indelible dynamodb
// create-tables`. (The $all indexer's state is written either way, if
// missing: an item, not a table.) Returns the events table's
// LatestStreamArn, empty where the endpoint keeps no change streams
// (dynalite). Appends one TableReport per table to *reports if not null.
Result<std::string> SetUpStoreTables(aws::Client& client, StreamTable& events, AllIndex& all,
                                     const StoreUrl& url,
                                     std::vector<TableReport>* reports = nullptr);

struct CreateTablesOptions {
  bool pitr = true;  // turn point-in-time recovery on for each table
  // Called after each table is done, with its report.
  std::function<void(const TableReport&)> each;
};

// `indelible dynamodb create-tables`: SetUpStoreTables as with
// create_tables=1 (whatever the URL says), then point-in-time recovery for
// each table: asked with DescribeContinuousBackups, turned on with
// UpdateContinuousBackups unless on (on AWS a table just made answers
// ContinuousBackupsUnavailableException for a while: asked again for up to
// a minute). Idempotent: run again, every report says nothing changed.
Result<std::vector<TableReport>> CreateStoreTables(aws::Client& client, const StoreUrl& url,
                                                   const CreateTablesOptions& options);

}  // namespace indelible::dynamodb
