// Client: the C++ client of indelible's HTTP API (docs/HTTP.md), and a Store
// that works through it (OpenRemoteStore), so code written against Store runs
// against a server as well as against a local folder.
//
// Concurrency: a Client is safe for concurrent use by many threads without
// external synchronization. Each call borrows an idle keep-alive connection
// from the client's pool (or opens one) and gives it back when the answer has
// been read, so calls from several threads run in parallel on separate
// connections. A RemoteSubscription belongs to one thread. The Store returned by
// OpenRemoteStore is thread-safe like every Store; its cursors belong to one
// thread each.
//
// Lifetime: RemoteSubscriptions and cursors copy what they need; they may outlive
// the Client or Store that made them.
//
// Errors: every call answers in the vocabulary of status.h. An HTTP error
// answer maps back to its code with the server's message, field, actual
// version (conflicts) and deleted flag, so callers cannot tell a remote error
// from a local one. The transport adds three meanings: unavailable when the
// server cannot be reached, does not answer within ClientOptions::timeout,
// or drops the connection (safe to retry with the same event ids),
// unauthorized when an https server's certificate is refused, and internal
// when the server answers something that is not the API.
//
// Retries: Append gives every event without an id a random one before
// sending, so an append is always safe to retry, and the client does so once
// by itself when a reused keep-alive connection turns out to be closed by the
// server before any answer. Deletes, erasures and metadata writes are never
// retried by the client.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "indelible/api.h"
#include "indelible/consumer_group.h"
#include "indelible/event.h"
#include "indelible/options.h"
#include "indelible/query.h"
#include "indelible/result.h"
#include "indelible/schemas.h"
#include "indelible/status.h"
#include "indelible/store.h"
#include "indelible/types.h"

namespace indelible {

struct ClientOptions {
  // The longest one request may take: connecting, sending, and reading the
  // whole answer. A long poll (ReadAll with a wait) gets its wait on top.
  // Past it the connection is closed and the call answers unavailable.
  std::chrono::milliseconds timeout{30000};
  // Idle keep-alive connections kept for reuse; a connection given back when
  // this many are idle is closed instead.
  std::size_t max_idle_connections = 8;
  // https:// only: a file of PEM certificates trusted besides the system's
  // CAs (a private CA, or a test server's own certificate). Empty: the
  // system's CAs alone. The server's certificate must also name the URL's
  // host, else every call answers unauthorized.
  std::string ca_file;
  // The credential sent with every request when the server requires one
  // (docs/SECURITY.md): an API key ("idl_...") or a JWT, as
  // "Authorization: Bearer ...". Empty: none. A missing or bad one answers
  // unauthorized (HTTP 401), a forbidden act unauthorized too (HTTP 403).
  std::string credential;
  // https:// only: the client's own certificate chain and private key (PEM
  // files), presented when the server asks for one (a server with
  // --tls-client-ca: mutual TLS). Empty: none; an empty key_file reads the
  // key from cert_file. A server that requires a certificate refuses a
  // client without one (unavailable or unauthorized).
  std::string cert_file;
  std::string key_file;
};

// Where a subscription starts. The first of these that is set wins.
struct SubscribeOptions {
  // Resume: only events after this position (sent as Last-Event-ID). Give
  // the last position your handler finished with.
  std::optional<Position> after;
  // Only events committed after the subscription starts (from=end).
  bool from_end = false;
  // Otherwise, $all: the first position (0 or 1: the beginning) ...
  Position from_position{1};
  // ... or, for a stream: the first version.
  StreamVersion from_version{0};
  // $all only: category, stream prefix and type filters.
  AllFilter filter;
  // No byte at all (not even the server's heartbeat comment, every 15 s by
  // default) for this long: the connection is taken for dead and reopened.
  std::chrono::milliseconds idle_timeout{45000};
};

// A live subscription over Server-Sent Events: stored events first, then
// new ones as they are committed, with no gap and no duplicate.
//
// Reconnection: when the connection drops (server restart, network, idle
// timeout), Next() reopens it with Last-Event-ID set to last_position() and
// goes on, so a caller never sees the seam. The server decides where a
// resumed subscription continues; the client does not filter duplicates.
//
// Concurrency: one thread. Next() blocks at most its timeout, so the owner
// can check its own stop flag between calls.
class RemoteSubscription {
 public:
  virtual ~RemoteSubscription() = default;

  // The next event, or nullopt when `timeout` passed without one.
  // Errors: not_found or invalid from the server (bad stream name or filter)
  // are final; unavailable when the server could not be reached within
  // `timeout` (call Next again to keep trying; nothing is lost).
  virtual Result<std::optional<RecordedEvent>> Next(std::chrono::milliseconds timeout) = 0;

  // The position of the last event Next() returned (the `after` given, or 0,
  // before the first): what to persist to resume later.
  virtual Position last_position() const = 0;
  // True once the server marked the switch from stored to live events on the
  // current connection (the ": caught-up" comment).
  virtual bool caught_up() const = 0;
  // How many times the connection was reopened.
  virtual std::uint64_t reconnects() const = 0;
  // Drops the current connection now; the next Next() reconnects and
  // resumes after last_position(). For callers that know the connection is
  // bad, and for tests of resumption.
  virtual void Disconnect() = 0;
};

class Client {
 public:
  // url: "http://HOST:PORT" or "https://HOST:PORT" (TLS 1.2 or later, the
  // server's certificate checked against the system's CAs and
  // options.ca_file, and against the host), optionally with a path prefix (a
  // reverse proxy's "https://HOST/events"); the port defaults to 80 or 443.
  // Opens one connection to check that the server is there. Errors: invalid
  // (a malformed URL, field "url"; a ca_file that cannot be read, field
  // "ca_file"), unavailable (cannot connect), unauthorized (the server's
  // certificate is not trusted or names another host).
  static Result<std::unique_ptr<Client>> Connect(std::string_view url,
                                                 const ClientOptions& options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // POST /streams/{stream}. `expected` travels as If-Match / If-None-Match.
  // Events are checked here first (names, JSON, ids) with the errors the
  // store gives; size limits are the server's. An idempotent retry answers
  // the original result. AppendResult::first_position is derived from the
  // answer's position (the events of one append are contiguous).
  // Errors: as Store::Commit, and conflict with the stream's actual version.
  Result<AppendResult> Append(std::string_view stream, Expected expected,
                              std::vector<EventData> events);

  // DELETE /streams/{stream}: a soft delete (tombstone). `expected` is any,
  // exists or exactly(V); no_stream is invalid.
  Result<AppendResult> Delete(std::string_view stream, Expected expected = Expected::any());

  // DELETE /streams/{stream}?erase=true: a hard delete (Store::Erase): the
  // tombstone, and the stream's events removed for good on the server.
  // Irreversible. `expected` is any, exists or exactly(V); no_stream is
  // invalid. Errors as Delete: not_found for a stream that never existed,
  // conflict with the stream's actual version, unauthorized without the
  // delete right on the stream. Never resent by the client, as a delete.
  Result<AppendResult> Erase(std::string_view stream, Expected expected = Expected::any());

  // POST /scavenge (Store::Scavenge): the server removes the bytes of the
  // events its streams' retention hides, and reports what it removed. Can
  // take minutes (it compacts): the answer is awaited for
  // ClientOptions::timeout plus kScavengeWait. Errors: unauthorized unless
  // the credential is an admin's, invalid from a server whose store cannot
  // scavenge (not the embedded engine). Resent only as reads are (a
  // second scavenge removes what is left, which is nothing).
  Result<ScavengeReport> Scavenge();

  // DELETE /subjects/{subject} (Store::ShredSubject): the server deletes the
  // subject's keys, so its events read as redacted. Irreversible. Errors:
  // unauthorized unless the credential is an admin's, invalid from a
  // server without a master key. Resent only as reads are (a second shred
  // finds no key).
  Result<ShredReport> ShredSubject(std::string_view subject);

  // GET /streams/{stream}/metadata: the stream's metadata and its version
  // (Store::ReadStreamMetadata; version nullopt when it was never written).
  Result<StoredStreamMetadata> ReadStreamMetadata(std::string_view stream);
  // PUT /streams/{stream}/metadata (Store::WriteStreamMetadata): replaces
  // the metadata; `expected` is checked against the metadata's own version
  // and travels as If-Match / If-None-Match. Returns the new version.
  // Errors: invalid (a bad value, a metadata stream's name), conflict with
  // the metadata's actual version, unauthorized without the delete right
  // on the stream. Never resent by the client, as a delete.
  Result<StreamVersion> WriteStreamMetadata(std::string_view stream, const StreamMetadata& metadata,
                                            Expected expected = Expected::any());

  // GET /streams/{stream}/head. not_found if the stream never existed.
  Result<StreamHead> Head(std::string_view stream);
  // POST /commits: several streams, each with its own expectation, events and
  // state record, all or nothing (Store::Commit's semantics). Events without
  // an id get one first, so a resent commit is an idempotent retry. An
  // append with an empty stream writes events without a stream ("$dcb");
  // `condition` (docs/DCB.md) fails the commit as a conflict whose
  // Status::condition_position() names the first matching event.
  Result<CommitResult> Commit(std::vector<AppendRequest> appends,
                              std::optional<AppendCondition> condition = std::nullopt);
  // GET /streams/{stream}/state; nullopt when the stream has no state record.
  Result<std::optional<StateRecord>> ReadState(std::string_view stream);
  // GET /events/{id}: the event with that id, in whatever stream holds it;
  // nullopt when none does (or it is in a stream the caller may not read).
  Result<std::optional<RecordedEvent>> FindEvent(const EventId& id);
  // GET /streams: a page of the listing (Store::ListStreams); with
  // options.last, GET /streams?last=true: each stream's newest event the
  // caller may read (StreamInfo::last), one more read per stream listed.
  Result<StreamList> ListStreams(const ListStreamsOptions& options = {});

  // GET /streams/{stream}: one page of at most min(options.limit,
  // kMaxPageEvents) events, upcast by the server unless options.raw
  // (docs/SCHEMAS.md). not_found as Store::ReadStream.
  Result<StreamPage> ReadStream(std::string_view stream, const ReadStreamOptions& options = {});

  // GET /all: one page of at most min(options.limit, kMaxPageEvents) events.
  // `wait` (at most 60 s) long-polls: with no event at or past options.from,
  // the server answers when one is committed or when the wait is over (an
  // empty page).
  Result<AllPage> ReadAll(const ReadAllOptions& options = {},
                          std::chrono::milliseconds wait = std::chrono::milliseconds(0));

  // POST /query: one page of at most min(options.limit, 1000) events
  // matching `query` (docs/DCB.md), forward or backward from options.from;
  // `next` is where the next page starts in the read's direction (0
  // backward: nothing is left). Upcast by the server unless options.raw.
  Result<AllPage> ReadQuery(const Query& query, const ReadQueryOptions& options = {});

  // GET /health. A server that is starting or stopping answers unavailable.
  Result<ServerHealth> Health();

  // API keys (docs/SECURITY.md, "API keys"): POST /keys, GET /keys,
  // DELETE /keys/{id or name}. CreateKey's answer holds the secret key, shown
  // this once. `expires_in`: 0 for a key that does not expire. Each answer
  // is the server's JSON document ({id, name, roles, created, ...}).
  Result<std::string> CreateKey(std::string_view name, const std::vector<std::string>& roles,
                                std::chrono::seconds expires_in = std::chrono::seconds(0));
  Result<std::string> ListKeys();
  Result<std::string> RevokeKey(std::string_view id_or_name);

  // Consumer groups held by the server (docs/HTTP.md, "Consumer groups";
  // the semantics are ConsumerGroup's). Create is ok for an existing group
  // of the same definition and a conflict for another; only the saved
  // fields of `options` travel (not window or checkpoint_interval).
  Status CreateConsumerGroup(std::string_view group, const ConsumerGroupOptions& options = {});
  Result<std::vector<ConsumerGroupInfo>> ListConsumerGroups();
  Result<ConsumerGroupInfo> ConsumerGroupStatus(std::string_view group);
  // Read-your-writes: true once the group's checkpoint is at or past
  // `position`, false when `timeout` passed first.
  Result<bool> WaitForConsumerGroup(std::string_view group, Position position,
                                    std::chrono::milliseconds timeout);
  Status DeleteConsumerGroup(std::string_view group);
  // `in_order`: ConsumerGroup::PullInOrder (`?ordered=true`).
  Result<std::vector<Delivery>> Pull(std::string_view group, std::string_view consumer,
                                     std::size_t max,
                                     std::chrono::milliseconds wait = std::chrono::milliseconds(0),
                                     bool in_order = false);
  Status Ack(std::string_view group, const std::vector<Position>& positions);
  Status Nack(std::string_view group, Position position, std::string_view reason);
  // The operator's answers to a blocked group.
  Status RetryConsumerGroup(std::string_view group);
  Status SkipConsumerGroup(std::string_view group);
  // Starts delivering the group's parked events again (policy park).
  Status ReplayParked(std::string_view group);
  // Parked events one by one (ConsumerGroup::ReadParked, RetryParked and
  // SkipParked), by the copy's version in `$parked-<group>`. A page stops
  // at `limit` copies and at the server's page byte budget; its `next`
  // says where to go on. Retry and skip are not resent on a lost answer
  // (a second one would answer a conflict for the first's success).
  Result<ParkedPage> ReadParked(std::string_view group, StreamVersion from = StreamVersion(0),
                                std::size_t limit = 100);
  Status RetryParked(std::string_view group, StreamVersion parked_version);
  Status SkipParked(std::string_view group, StreamVersion parked_version);

  // GET /subscribe/all and GET /subscribe/streams/{stream}. The connection
  // opens on the first Next(), so these fail only on bad options.
  Result<std::unique_ptr<RemoteSubscription>> SubscribeAll(const SubscribeOptions& options = {});
  Result<std::unique_ptr<RemoteSubscription>> SubscribeStream(std::string_view stream,
                                                              const SubscribeOptions& options = {});
  // GET /subscribe/query: the events matching `query`, as SubscribeAll
  // (from_position, after, from_end; options.filter must be empty).
  Result<std::unique_ptr<RemoteSubscription>> SubscribeQuery(const Query& query,
                                                             const SubscribeOptions& options = {});

  // The server's schema registry (docs/SCHEMAS.md, "HTTP"): each call one
  // request to /schemas or /schema-settings, as the same call on a
  // SchemaStore's registry would answer. Changes need an admin credential
  // when the server has authentication on (unauthorized otherwise). What
  // differs: AddUpcaster with a C++ function is invalid (it runs in the
  // process that reads, and the server reads); List, Find,
  // CategorySettings and DefaultSettings answer empty when the request
  // fails; Refresh is ok and stats() zeros (the server keeps both).
  // Valid as long as the Client.
  Schemas& schemas();

  // The URL given to Connect.
  const std::string& url() const;

 private:
  struct Impl;
  explicit Client(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A Store whose every call is a request to the server at `url` (as
// Client::Connect). What differs from a local store:
// - Commit sends one append without a state record as POST /streams/{stream}
//   and anything else (several streams, state records) as one POST
//   /commits, all or nothing on the server; ReadState is GET
//   /streams/{stream}/state and ListStreams GET /streams, so entities
//   (entity.h) work over a server. A commit of one `$deleted` event with
//   allow_reserved is sent as DELETE (what Store::Delete does); the server
//   then makes the tombstone's id itself.
// - CommitOptions::keep_timestamps is invalid: the server stamps every event
//   with its commit time and the API has no way to ask otherwise.
// - ReadStream and ReadAll cursors read page by page (kRemotePageEvents at a
//   time), upcast by the server, or as stored with the options' `raw`
//   (?raw=1). A ReadAll cursor stops at the last position the server
//   reported when the cursor was made, so it too sees no later commits.
// - ReadQuery reads POST /query page by page (and, forward, stops at the
//   last position the server reported when the cursor was made). A commit
//   with a CommitOptions::condition, or with events without a stream, is
//   one POST /commits.
// - WaitForCommit long-polls GET /all?from=after+1&limit=1&waitMs=...
// - LastPosition asks GET /health; if that fails it answers the last
//   position it knew (it has no way to report an error).
// - ReadStreamMetadata and WriteStreamMetadata are GET and PUT
//   /streams/{stream}/metadata (the server refuses commits to `$$` streams
//   from clients); retention applies on the server, to every read.
// - Erase is DELETE /streams/{stream}?erase=true and Scavenge POST
//   /scavenge (the server scavenges its own store; `progress` is never
//   called: the answer comes when it is done).
// - Check answers invalid (it verifies a local folder); stats() is zeros.
inline constexpr std::size_t kRemotePageEvents = 500;
// How much longer than ClientOptions::timeout Client::Scavenge waits for
// the server's answer: a scavenge of a large store compacts all of it.
inline constexpr std::chrono::milliseconds kScavengeWait = std::chrono::hours(1);
Result<std::unique_ptr<Store>> OpenRemoteStore(std::string_view url,
                                               const ClientOptions& options = {});

}  // namespace indelible
