// The DynamoDB Store (docs/DYNAMODB.md): StreamTable for the streams, the
// AllIndex built by an Indexer for $all, and a checkpoint table.
#pragma once

#include <functional>
#include <memory>
#include <string_view>

#include "aws/credentials.h"
#include "indelible/store.h"
#include "storage/dynamodb/deploy.h"
#include "storage/dynamodb/index_rebuild.h"

namespace indelible::dynamodb {

// Opens the store of a dynamodb:// URL (url.h), with credentials from the
// standard AWS sources (credentials.h), making its tables if they are
// missing, or with create_tables=0 only checking them (deploy.h). Errors:
// invalid (the URL; a table not as the store needs), unauthorized (no
// credentials), unavailable (the endpoint cannot be reached), not_found (a
// table missing, with create_tables=0).
Result<std::unique_ptr<Store>> OpenDynamoDbStore(std::string_view url, const StoreOptions& options,
                                                 const aws::EnvLookup& env = aws::ProcessEnv);

// `indelible dynamodb create-tables`: makes the tables of the store at a
// dynamodb:// URL, or completes them, and turns point-in-time recovery on
// (deploy.h, CreateStoreTables). Errors: those of OpenDynamoDbStore, and
// invalid for a table that exists with other keys.
Result<std::vector<TableReport>> CreateDynamoDbTables(std::string_view url,
                                                      const CreateTablesOptions& options,
                                                      const aws::EnvLookup& env = aws::ProcessEnv);

// Rebuilds the $all index of the store at a dynamodb:// URL from a scan of
// its events table (index_rebuild.h), making the tables if missing. Online:
// writers keep writing and indexers hand the index over. Errors: those of
// OpenDynamoDbStore,
// invalid (an endpoint without change streams: dynalite), and
// RebuildIndex's.
Result<RebuildReport> RebuildDynamoDbIndex(std::string_view url, const RebuildOptions& options,
                                           const aws::EnvLookup& env = aws::ProcessEnv);

// Converts every stream of the store at a dynamodb:// URL that still has a
// tip of the earlier layout to append items (StreamTable::ConvertStream),
// online: writers of this release may keep writing. Then marks the table,
// so that appends to new streams bet again. Returns the streams converted;
// progress(done, total) after each. Errors: those of OpenDynamoDbStore and
// the conversion's.
Result<std::size_t> UpgradeDynamoDbLayout(
    std::string_view url, const std::function<void(std::size_t, std::size_t)>& progress,
    const aws::EnvLookup& env = aws::ProcessEnv);

}  // namespace indelible::dynamodb
