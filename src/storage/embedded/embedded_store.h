// The embedded engine: a durable Store in one folder, on RocksDB.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "indelible/store.h"

namespace rocksdb {
class Env;
}

namespace indelible::storage {

Result<std::unique_ptr<Store>> OpenEmbeddedStore(const std::string& path,
                                                 const StoreOptions& options);

// The same on a RocksDB Env of the caller's (it must outlive the store): the
// tests' seam for holding or failing the log's syncs.
Result<std::unique_ptr<Store>> OpenEmbeddedStoreOnEnv(const std::string& path,
                                                      const StoreOptions& options,
                                                      rocksdb::Env* env);

// The folder a `file:PATH` (or `file://PATH`) store URL names; nullopt for
// other URLs.
std::optional<std::string> EmbeddedFolderOfUrl(std::string_view url);

// The format version of the data folder at `path`: 1, 2 or 3 (this
// build's), 0 when it holds no store yet. Read-only: works beside a running
// server.
Result<int> EmbeddedFolderFormat(const std::string& path);

// Whether the folder at `path` is still in format 1, for the callers that
// treat it apart (`serve` says it upgrades it, `check` checks it as format
// 1). Most folders are answered from their family names alone, without the
// read-only open (a replay of the log) EmbeddedFolderFormat needs.
Result<bool> EmbeddedFolderIsFormat1(const std::string& path);

// `indelible check` of a folder still in format 1, read-only: ok with the
// number of events, or internal naming the problems.
Result<std::uint64_t> CheckEmbeddedFolderV1(const std::string& path, const ProgressFn& progress);

// Upgrades a format 1 or 2 folder to this build's format in place,
// reporting progress (done, total; format 2 needs one write). Opening an
// older folder for writing does the same without progress; a current folder
// is left as it is. Crash-safe and restartable (docs/FORMAT.md,
// "Upgrading"). No other process may have the folder open.
Status UpgradeEmbeddedStore(const std::string& path, const ProgressFn& progress);

}  // namespace indelible::storage
