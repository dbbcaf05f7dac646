// The store a scenario measures: by default the embedded engine in a fresh
// subfolder of --data (durability from --durability); with --store URL, a
// DynamoDB store (docs/DYNAMODB.md) under a fresh random table prefix, so
// that every run starts from empty tables, which are deleted again after
// the run unless --keep.
//
// Concurrency: Open, the destructor and Close belong to the scenario's
// thread; store() may be used from any thread in between.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "bench/common.h"

namespace indelible::bench {

// `url` with its prefix= parameter set to `prefix` (replaced, or added).
std::string WithTablePrefix(std::string_view url, std::string_view prefix);
// "HOST:PORT" of a dynamodb:// URL (what comes before the query).
std::string ServerOf(std::string_view url);

class ScenarioStore {
 public:
  // `scenario` names the scratch folder; `prefix_head` begins the table
  // prefix: "wl" makes wl_<8 hex digits>_. `url_extra`: parameters added
  // to a DynamoDB store's URL ("&indexer=0"), not to url().
  static Result<std::unique_ptr<ScenarioStore>> Open(const Context& context,
                                                     std::string_view scenario,
                                                     std::string_view prefix_head,
                                                     std::string_view url_extra = "");
  ~ScenarioStore();
  ScenarioStore(const ScenarioStore&) = delete;
  ScenarioStore& operator=(const ScenarioStore&) = delete;

  Store& store() { return *store_; }
  // A store behind a network service (DynamoDB), not the embedded engine.
  bool remote() const { return remote_; }
  // DynamoDB: the store's URL with its table prefix, without url_extra, for
  // opening more stores on the same tables.
  const std::string& url() const { return url_; }
  // The conditions every figure's line carries: durability= and transport=
  // (sync or interval_100ms and in-process; dynamodb and dynamodb), then
  // fs= for the embedded engine, server= and table_prefix= for DynamoDB.
  void AddConditions(Line& line) const;
  // Closes the store, then deletes its tables (DynamoDB, unless --keep) or
  // its folder. Returns what went wrong deleting; the destructor does the
  // same and says it on stderr.
  Status Close();

 private:
  ScenarioStore() = default;

  std::string durability_;
  std::string filesystem_;
  bool keep_ = false;
  bool remote_ = false;
  std::string url_;  // DynamoDB: the URL opened, with its table prefix
  std::string prefix_;
  std::string server_;  // DynamoDB: HOST:PORT
  std::unique_ptr<ScratchFolder> folder_;
  std::unique_ptr<Store> store_;
};

}  // namespace indelible::bench
