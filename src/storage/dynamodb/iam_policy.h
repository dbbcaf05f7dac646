// The AWS requests a DynamoDB store sends, and the least-privilege IAM
// policy for its tables built from them (`indelible dynamodb policy`,
// deploy/aws/iam-actions.json). StoreApiCalls() is the one list: a request
// the code starts sending must be added there, or the policy test
// (tests/dynamodb/policy_test.cc) fails. Pure functions: safe from any
// thread.
#pragma once

#include <array>
#include <boost/json/object.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "storage/dynamodb/store_url.h"

namespace indelible::dynamodb {

// Who sends a request.
enum class ApiRole {
  // A store whose tables are set up (create_tables=0): its reads, writes,
  // the $all indexer, the checks at open; also rebuild-index and upgrade.
  kServer,
  // What makes and alters tables: `indelible dynamodb create-tables`, and a
  // store's open with create_tables=1 when something is missing.
  kAdmin,
};

// What IAM grants the action on.
enum class ApiResource {
  kTables,          // the tables: arn:...:table/NAME
  kTablesAndIndex,  // and the events table's listing index: .../index/*
  kChangeStream,    // the events table's change stream: .../stream/*
};

struct ApiCall {
  // The request's name: X-Amz-Target after "DynamoDB_20120810." or, with
  // streams, "DynamoDBStreams_20120810.".
  std::string_view operation;
  bool streams = false;  // DynamoDB Streams' API rather than DynamoDB's
  ApiRole role = ApiRole::kServer;
  ApiResource resource = ApiResource::kTables;
  // The IAM actions that allow it: its own, except TransactWriteItems,
  // which IAM authorizes per element (Put, Update, ConditionCheck).
  std::array<std::string_view, 3> iam_actions{};
};

// Every request a store, create-tables, rebuild-index and upgrade send to
// a store's tables.
std::span<const ApiCall> StoreApiCalls();

// The IAM actions ("dynamodb:PutItem", ...) of the calls of `role`, sorted,
// each once.
std::vector<std::string> IamActions(ApiRole role);

struct PolicyOptions {
  std::string account = "*";  // the account id in the ARNs
  bool admin = false;         // add the kAdmin calls' actions
};

// The IAM policy (Version 2012-10-17) that allows exactly the actions of
// StoreApiCalls() (kAdmin's only with options.admin) on the tables of the
// store at `url` (its region and prefix), its listing index and its change
// stream: one statement per resource kind, and the admin actions in one of
// their own.
boost::json::object PolicyDocument(const StoreUrl& url, const PolicyOptions& options);

// deploy/aws/iam-actions.json: {"server": [...], "admin": [...],
// "index": [...], "stream": [...]}: the two roles' IAM actions, and which of
// them IAM must also grant on the listing index and on the change stream
// (the rest are on the tables).
boost::json::object IamActionsJson();

// JSON indented by two spaces, members in their order, a newline at the end:
// what a person reads and a file in git holds.
std::string PrettyJson(const boost::json::value& value);

}  // namespace indelible::dynamodb
