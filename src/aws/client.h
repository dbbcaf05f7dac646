// Client: a synchronous client of AWS's JSON protocol, as DynamoDB speaks it
// (API version 2012-08-10): every operation is `POST /` with
// `X-Amz-Target: <target_prefix><Operation>`, a JSON body
// (application/x-amz-json-1.0) and a SigV4 signature (`service`, default
// `dynamodb`). Requests and answers are boost::json objects shaped as the
// service's API reference has them; this class knows no operation by name.
// HTTP(S) and the connection pool are net/'s HttpClient; the retry loop,
// AWS's own, is here.
//
// Concurrency: thread-safe. A call borrows a keep-alive connection from a
// small pool, or opens one when none is idle, and hands it back after: N
// threads calling at once use N connections, and up to
// `max_idle_connections` stay open between calls.
//
// Retries: the AWS SDKs' "standard" mode (retry_strategy.h): throttles,
// transient failures (no answer within `request_timeout`, a lost
// connection, HTTP 5xx) and passing troubles (a transaction conflict, a body
// that fails its checksum) are tried again, up to `retry.max_attempts`
// attempts, after a full-jitter back-off, while the client's retry quota
// holds tokens and the call's deadline (`retry.deadline`) allows. A request
// whose connection was lost may have been applied before the answer was
// lost, so a retried write may meet its own effect (a failed condition,
// say): callers make writes idempotent or recognise their own item. Every
// other error is returned at once, an https server whose certificate is not
// trusted too (unauthorized).
//
// Credentials: each attempt is signed with what the credentials provider
// hands out at that moment (credentials.h): refreshed temporary credentials
// take over without a pause, and a provider whose credentials expired
// unrefreshed fails the call (unavailable) before anything is sent.
//
// Lifetime: a Client must outlive its calls; destroying it closes the idle
// connections.
#pragma once

#include <boost/json/object.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "aws/credentials.h"
#include "aws/retry_strategy.h"
#include "indelible/result.h"
#include "net/url.h"

namespace indelible::aws {

// 10 attempts (DynamoDB's in the SDKs, whose other services default to 3),
// the SDKs' back-off and quota (retry_strategy.h), no deadline.
RetryOptions DefaultRetryOptions();

struct ClientOptions {
  net::Endpoint endpoint;  // net::ParseUrl("http://127.0.0.1:8000")
  std::string region;
  // The signing name of the service.
  std::string service = "dynamodb";
  // What signs the requests: the provider when set (credentials.h,
  // DefaultCredentialsChain), else these fixed credentials.
  std::shared_ptr<CredentialsProvider> credentials_provider;
  Credentials credentials;
  // Resolving, connecting and the TLS handshake, together.
  std::chrono::milliseconds connect_timeout{3000};
  // Sending one request and reading its whole answer (each attempt).
  std::chrono::milliseconds request_timeout{10000};
  // Attempts, back-off, quota and deadline (see Retries above).
  RetryOptions retry = DefaultRetryOptions();
  std::size_t max_idle_connections = 16;
  // PEM certificates trusted besides the system's (https only): a private
  // CA, or a test server's own. Empty: the system's store alone.
  std::string ca_file;
  // The X-Amz-Target before the operation's name: DynamoDB's, or
  // "DynamoDBStreams_20120810." for the Streams API (same signing name).
  std::string target_prefix = "DynamoDB_20120810.";
  // Ask every item and table-read operation for its consumed capacity
  // (capacity.h) and add it to the counters. Costs a few bytes per answer.
  bool count_capacity = true;
};

// The outcome of one call, retries included.
struct [[nodiscard]] Reply {
  Status status;
  // The answer when ok; otherwise DynamoDB's error document, whose extra
  // members (Item, CancellationReasons: errors.h) callers may use. Empty when
  // there was no answer (transport errors).
  boost::json::object body;
  // DynamoDB's error type without its namespace
  // ("ConditionalCheckFailedException"); empty when ok or without answer.
  std::string error_type;
  int attempts = 0;

  bool ok() const { return status.ok(); }
};

// One operation's share of a client's calls ("PutItem", "GetRecords", ...).
struct OperationCounters {
  std::string operation;
  std::uint64_t calls = 0;  // Call()s, failed ones included
  // Capacity units its answers reported (count_capacity).
  double read_units = 0;
  double write_units = 0;
  // Writes refused by their condition, and the write units AWS bills for
  // them by estimate (capacity.h, RefusedWriteEstimate): DynamoDB reports
  // none, so they are not in write_units.
  std::uint64_t condition_failures = 0;
  double estimated_write_units = 0;
};

// What a client has done since it was made. Monotonic; read at any time.
struct ClientCounters {
  std::uint64_t calls = 0;      // Call()s
  std::uint64_t requests = 0;   // HTTP requests sent, every attempt counted
  std::uint64_t retries = 0;    // attempts after the first
  std::uint64_t throttles = 0;  // attempts refused as throttled
  // Retries not made because the retry quota was spent, and calls that gave
  // up at their deadline with attempts left.
  std::uint64_t quota_refusals = 0;
  std::uint64_t deadline_failures = 0;
  // Calls that failed before sending anything because the credentials
  // provider had none to sign with (expired, refresh failing).
  std::uint64_t credential_failures = 0;
  std::uint64_t connects = 0;  // connections opened
  std::uint64_t failures = 0;  // calls that returned an error
  // Capacity units the answers reported (count_capacity; capacity.h): what
  // DynamoDB bills. Failed conditional writes are billed too but report
  // nothing, so they are not in these: `operations` has them by estimate.
  double read_units = 0;
  double write_units = 0;
  // Per operation, in the order of their names: the operations called.
  std::vector<OperationCounters> operations{};
};

class Client {
 public:
  // Errors: invalid when ca_file cannot be loaded.
  static Result<std::unique_ptr<Client>> Create(ClientOptions options);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Calls `operation` ("PutItem", "TransactWriteItems", ...) with `request`.
  // Errors are mapped as errors.h says.
  Reply Call(std::string_view operation, const boost::json::object& request);

  ClientCounters counters() const;
  const ClientOptions& options() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace indelible::aws
