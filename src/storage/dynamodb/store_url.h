// Where a DynamoDB store lives: `dynamodb://` store URLs (docs/DYNAMODB.md, "Store URLs"):
//
//   dynamodb://HOST[:PORT][?region=R&prefix=P&tls=0|1&connect_timeout_ms=N
//                          &request_timeout_ms=N&max_attempts=N&deadline_ms=N&ca_file=PATH
//                          &indexer=0|1&index_poll_ms=N&index_lease_ms=N
//                          &commit_threads=N&index_batch_ms=N&head_cache=N
//                          &create_tables=0|1]
//
//   dynamodb://dynamodb.eu-west-1.amazonaws.com?prefix=shop_
//   dynamodb://127.0.0.1:8000?region=us-east-1&prefix=ib_&tls=0
//
// Values, parsed by pure functions: safe from any thread.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "aws/client.h"
#include "aws/credentials.h"
#include "indelible/result.h"
#include "net/url.h"

namespace indelible::dynamodb {

struct StoreUrl {
  std::string text;        // the URL as given (it holds no credentials)
  net::Endpoint endpoint;  // tls=0: http://, else https:// (net/url.h)
  // From region=, else from an AWS host name (dynamodb.REGION.amazonaws.com),
  // else AWS_REGION, else AWS_DEFAULT_REGION, else the AWS profile's
  // `region`, else the instance's metadata (IMDSv2).
  std::string region;
  // Put before the name of every table the store uses (prefix= , default
  // "indelible_"), so that several stores share one account.
  std::string table_prefix = "indelible_";
  // Unset: the client's defaults (client.h).
  std::optional<std::chrono::milliseconds> connect_timeout;
  std::optional<std::chrono::milliseconds> request_timeout;
  std::optional<int> max_attempts;
  // deadline_ms: the longest one of the store's calls (an append's write, a
  // read's page) may take, retries and back-off included; then it fails
  // unavailable (an append may have been written: retry it with the same
  // event ids). Not the $all indexer's, which retries on its own.
  std::chrono::milliseconds deadline{10000};
  std::string ca_file;  // extra trusted certificates (PEM) for https
  // indexer=1 (default): this store runs a $all indexer (one of them holds
  // the lease at a time); 0: it only follows the index others build.
  bool indexer = true;
  // index_poll_ms: how often an idle indexer asks the change stream again.
  std::chrono::milliseconds index_poll{50};
  // index_lease_ms: how long the indexer that wrote last keeps the work; a
  // crashed one's is taken over after this long.
  std::chrono::milliseconds index_lease{10000};
  // commit_threads: how many commits of one Store::CommitEach (a server's
  // batch of appends) are in flight at once, each on its own connection.
  int commit_threads = 16;
  // index_batch_ms: how long the indexer lets change records gather before
  // it writes a chunk of $all that is not full (docs/DYNAMODB.md, "$all").
  std::chrono::milliseconds index_batch{100};
  // head_cache: how many streams' heads a process remembers, so that an
  // append to a stream it knows is one PutItem (storage/dynamodb/head_cache.h).
  int head_cache = 10000;
  // create_tables=1 (default): opening the store makes the tables that are
  // missing and turns on what they lack (tables.h, CreateOrCheckTable); 0:
  // it only checks them and fails naming `indelible dynamodb create-tables`,
  // so that a server's role needs no CreateTable or UpdateTable (deploy.h).
  bool create_tables = true;
  // tip_appends, tip_bytes: the tip item of the earlier layout (tip.h).
  // This release writes no tips (it converts them); the parameters are
  // still accepted, so that URLs written for earlier releases open.
  int tip_appends = 64;
  int tip_bytes = 64 * 1024;
};

// Errors: invalid (field "url"), naming the parameter at fault; an unknown
// parameter is an error, so that a typo does not go unnoticed.
Result<StoreUrl> ParseStoreUrl(std::string_view url, const aws::EnvLookup& env = aws::ProcessEnv);

// The AWS client options a store URL asks for; unset values keep their
// defaults (aws/client.h).
aws::ClientOptions ClientOptionsFromUrl(const StoreUrl& url,
                                        std::shared_ptr<aws::CredentialsProvider> credentials);
aws::ClientOptions ClientOptionsFromUrl(const StoreUrl& url, aws::Credentials credentials);

}  // namespace indelible::dynamodb
