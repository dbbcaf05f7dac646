// SseSession: one Server-Sent Events subscription (docs/HTTP.md).
//
// Operation: the library's Subscription (include/indelible/subscription.h)
// does the reading, so the server has the one catch-up implementation every
// backend shares (DynamoDB's positions, given after the commit, included).
// The session asks it for a page at a time, on the read pool (never on an
// I/O thread, except a small live wake-up on a store with local reads),
// writes the page, and asks again only once the socket took it; when a read
// finds nothing new it waits for the next commit with the
// CommitWatcher (an entry there, not a thread). So stored events come first
// and live ones follow with no gap and no duplicate at the switch, and a
// slow reader costs one page of memory. A reader that takes no write for
// sse_write_timeout is disconnected; it resumes with Last-Event-ID.
//
// Concurrency: the state lives on the socket's strand; reads run on the
// read pool one at a time and post their page back; the watcher's callback
// posts there too.
//
// TLS: the connection (server_stream.h) comes from the HttpSession with its
// TLS state; a close ends it without close_notify (a read and a write may
// be in flight, and the client resumes with Last-Event-ID either way).
#pragma once

#include <indelible/options.h>
#include <indelible/subscription.h>

#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <optional>
#include <string>

#include "server/context.h"
#include "server/server_stream.h"

namespace indelible::server {

class SseSession : public std::enable_shared_from_this<SseSession> {
 public:
  struct Source {
    // Header lines the 200 carries beside its own ("Name: value\r\n"
    // each): the request id and, for an allowed Origin, the CORS headers.
    std::string headers;
    // Empty: $all with `filter`; else one stream.
    std::string stream;
    AllFilter filter;
    // GET /subscribe/query: $all's events matching this query, instead of `filter`.
    std::optional<Query> query;
    // Exclusive start: events at or before this position are not sent.
    Position after{0};
    // Resolved by the first read (store reads, so not on the I/O thread):
    // start at this version of the stream (`from=V`), or with the next
    // commit (`from=end`, $all too).
    std::optional<StreamVersion> from_version;
    bool from_end = false;
    // Authentication on, a principal who may not read everything: only the
    // events of streams it may read are sent.
    std::shared_ptr<const auth::Principal> reader;
    // Authentication on: the credentials it was opened with, checked again
    // before every read (through the key cache), so a revoked key or an
    // expired token ends the subscription (the connection closes; resuming
    // needs valid credentials).
    std::shared_ptr<const auth::Credentials> credentials;
    // ?raw=1: the events as stored, read from the store under the server's
    // SchemaStore (a Subscription has no raw option of its own).
    bool raw = false;
  };

  SseSession(ServerStream stream, ServerContext& context, Source source);
  ~SseSession();

  void Start();
  // Shutdown: closes the connection.
  void Stop();

 private:
  struct Read {
    Status status;
    std::string text;  // the page's messages, and `: caught-up` once
    Position last;     // the store's last position before the read
    // The read stopped at its scan budget with nothing to send: read on
    // (from the pool's queue again, so other subscribers get their turn).
    bool more = false;
  };

  void Pump();
  // Pump after a commit woke a caught-up subscriber: on a store with local
  // reads, when at most a page of events is new, they are read right here,
  // on the socket's thread, rather than after a hop to the read pool and
  // back (the delivery latency of docs/BENCHMARKS.md).
  void PumpLive();
  // On the read pool (or the socket's thread, PumpLive): the next page as
  // SSE text.
  Read ReadPage();
  // ReadPage, with an exception turned into an internal status.
  Read GuardedReadPage();
  void OnRead(Read read);
  void Write();
  void WaitForCommit(Position after);
  void Heartbeat();
  void WatchForClose();
  void Close();

  ServerStream stream_;
  ServerContext& context_;
  Source source_;
  std::optional<Subscription> subscription_;  // made by the first read
  StreamVersion min_version_{0};              // stream: earlier versions are not sent
  boost::asio::steady_timer heartbeat_;
  boost::asio::steady_timer write_timer_;  // sse_write_timeout of the write in flight
  std::string text_;                       // what is being written
  bool writing_ = false;
  std::uint64_t writes_ = 0;  // writes started
  bool reading_ = false;
  CommitWatcher::Ticket ticket_ = 0;
  bool waiting_ = false;         // registered with the watcher
  bool caught_up_sent_ = false;  // read pool only (one read at a time)
  bool closed_ = false;
  char peek_[256];
};

}  // namespace indelible::server
