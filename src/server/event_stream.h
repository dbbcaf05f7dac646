// EventStream: one Server-Sent Events subscription (docs/HTTP.md).
//
// Operation: the stream always reads from the store, a page at a time, from
// where it left off, and writes the page; only when a read comes back empty
// does it wait for the next commit (CommitWatcher). So stored events come
// first and live ones follow with no gap and no duplicate at the switch,
// and a slow reader costs one page of memory: the next page is read only
// after the socket took the last one. A reader that falls behind simply
// reads older events from the store later.
//
// Concurrency: everything runs on the socket's strand; the watcher's
// callback posts there.
#pragma once

#include <indelible/options.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <optional>
#include <string>

#include "server/context.h"

namespace indelible::server {

class EventStream : public std::enable_shared_from_this<EventStream> {
 public:
  struct Source {
    // Empty: $all with `filter`; else one stream.
    std::string stream;
    AllFilter filter;
    Position next_position{1};      // $all: the next position to send
    StreamVersion next_version{0};  // stream: the next version to send
    Position after_position{0};     // stream: skip events at or before this position
  };

  EventStream(boost::asio::ip::tcp::socket socket, ServerContext& context, Source source);
  ~EventStream();

  void Start();
  // Shutdown: closes the connection.
  void Stop();

 private:
  void Pump();
  // Reads the next page into text_; false on a store error (closes).
  bool ReadPage();
  void Write();
  void WaitForCommit(Position after);
  void Heartbeat();
  void WatchForClose();
  void Close();

  boost::asio::ip::tcp::socket socket_;
  ServerContext& context_;
  Source source_;
  boost::asio::steady_timer heartbeat_;
  std::string text_;  // what is being written
  bool writing_ = false;
  bool waiting_ = false;  // registered with the watcher
  bool caught_up_sent_ = false;
  bool closed_ = false;
  char peek_[256];
};

}  // namespace indelible::server
