#include "indelible/read_store.h"

#include "projections/stores.h"

namespace indelible {

std::int64_t SqlInt(const SqlValue& value, std::int64_t fallback) {
  if (const auto* i = std::get_if<std::int64_t>(&value)) return *i;
  if (const auto* d = std::get_if<double>(&value)) return static_cast<std::int64_t>(*d);
  return fallback;
}

std::string SqlText(const SqlValue& value, std::string fallback) {
  if (const auto* s = std::get_if<std::string>(&value)) return *s;
  if (const auto* i = std::get_if<std::int64_t>(&value)) return std::to_string(*i);
  return fallback;
}

Result<std::unique_ptr<ReadStore>> ReadStore::Open(std::string_view url) {
  if (url.starts_with("sqlite:")) {
    url.remove_prefix(7);
    if (url.empty()) return Status::Invalid("read store", "sqlite:PATH needs a file path");
    return projections::OpenSqliteStore(url);
  }
  if (url.starts_with("postgresql://") || url.starts_with("postgres://"))
    return projections::OpenPostgresStore(url);
  return Status::Invalid("read store", "unknown read store URL '" + std::string(url) +
                                           "': use sqlite:PATH or postgresql://USER@HOST:PORT/DB");
}

Result<std::string> ReadStore::DefaultUrlFor(std::string_view store_url) {
  if (store_url.starts_with("dynamodb:")) {
    // The servers of a DynamoDB store keep nothing of their own: this file
    // in the working directory suits one process (examples, tests); several
    // share a PostgreSQL read store instead. Named after the table prefix.
    std::string prefix = "indelible_";
    if (auto at = store_url.find("prefix="); at != std::string_view::npos) {
      const auto begin = at + 7;
      prefix = std::string(store_url.substr(begin, store_url.find('&', begin) - begin));
    }
    return "sqlite:./" + prefix + "read.db";
  }
  if (!store_url.starts_with("file:"))
    return Status::Invalid("read store", "no default read store for '" + std::string(store_url) +
                                             "': pass one (sqlite:PATH or postgresql://...)");
  std::string dir(store_url.substr(5));
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return "sqlite:" + dir + ".read.db";
}

}  // namespace indelible
