#include "server/sse_session.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/write.hpp>

#include "core/clock.h"
#include "core/event_json.h"

namespace indelible::server {

namespace asio = boost::asio;

namespace {

constexpr std::size_t kPageEvents = 500;
// A page stops early past this many bytes, so big events keep memory bounded.
constexpr std::size_t kPageBytes = 1 << 20;

void AppendMessage(const EventView& event, std::string* out) {
  out->append(fmt::format("id: {}\ndata: ", event.position.value()));
  const std::size_t start = out->size();
  AppendEventJson(event, out);
  // SSE ends a field at a line break. Raw CR and LF can only be whitespace
  // between JSON tokens (inside strings they are escaped), so spaces do.
  std::replace_if(
      out->begin() + static_cast<std::ptrdiff_t>(start), out->end(),
      [](char c) { return c == '\n' || c == '\r'; }, ' ');
  out->append("\n\n");
}

}  // namespace

SseSession::SseSession(ServerStream stream, ServerContext& context, Source source)
    : stream_(std::move(stream)),
      context_(context),
      source_(std::move(source)),
      heartbeat_(stream_.get_executor()),
      write_timer_(stream_.get_executor()) {
  context_.metrics.subscribers.fetch_add(1, std::memory_order_relaxed);
  context_.metrics.open_connections.fetch_add(1, std::memory_order_relaxed);
}

SseSession::~SseSession() {
  context_.metrics.subscribers.fetch_sub(1, std::memory_order_relaxed);
  context_.metrics.open_connections.fetch_sub(1, std::memory_order_relaxed);
  MutexLock lock(&context_.live_mu);
  context_.sse_sessions.erase(this);
}

void SseSession::Start() {
  {
    MutexLock lock(&context_.live_mu);
    context_.sse_sessions[this] = weak_from_this();
  }
  asio::dispatch(stream_.get_executor(), [self = shared_from_this()] {
    // No length and no chunking: the body is the rest of the connection.
    self->text_ =
        "HTTP/1.1 200 OK\r\nServer: indelible\r\nContent-Type: text/event-stream\r\n"
        "Cache-Control: no-cache\r\nConnection: close\r\nX-Accel-Buffering: no\r\n";
    self->text_ += self->source_.headers;
    self->text_ += "\r\n";
    self->Write();
    self->WatchForClose();
    self->Heartbeat();
  });
}

void SseSession::Stop() {
  asio::post(stream_.get_executor(), [self = shared_from_this()] { self->Close(); });
}

void SseSession::Pump() {
  if (writing_ || reading_ || waiting_ || closed_) return;
  reading_ = true;
  // The I/O threads keep running until the page is back on the strand: a
  // shutdown must not leave it queued on an io_context that is gone.
  asio::post(
      context_.reads, [self = shared_from_this(), work = asio::make_work_guard(context_.ioc)] {
        Read read = self->GuardedReadPage();
        asio::post(self->stream_.get_executor(),
                   [self, read = std::move(read)]() mutable { self->OnRead(std::move(read)); });
      });
}

void SseSession::PumpLive() {
  // Inline only when the read is small: the subscriber is live and reads
  // one stream (a page from its next version), or at most a page of events
  // was committed since its position (a $all filter could otherwise scan
  // up to max_scan_events on the I/O thread).
  const bool small =
      caught_up_sent_ && subscription_ &&
      (!source_.stream.empty() ||
       context_.store.LastPosition().value() - subscription_->position().value() <= kPageEvents);
  if (!small || !context_.store.traits().local_reads) return Pump();
  if (writing_ || reading_ || waiting_ || closed_) return;
  reading_ = true;
  OnRead(GuardedReadPage());
}

SseSession::Read SseSession::GuardedReadPage() {
  Read read;
  try {
    read = ReadPage();
  } catch (const std::exception& e) {  // a bug: close this subscriber, not the server
    read.status = Status::Internal(std::string("the server failed: ") + e.what());
  } catch (...) {
    read.status = Status::Internal("the server failed");
  }
  return read;
}

SseSession::Read SseSession::ReadPage() {
  Store& store = source_.raw ? context_.schema_store.inner() : context_.store;
  Read read;
  if (source_.credentials != nullptr) {
    // From the key cache when it can (a lookup and a hash): a revocation on
    // this server emptied the cache, so it is seen before the next event.
    auto still = context_.auth->Authenticate(*source_.credentials, UnixMillisNow());
    if (!still.ok()) {
      read.status = still.status();
      return read;
    }
  }
  if (!subscription_) {
    // Where the subscription starts, as a position (the subscription's
    // `after`) and, for a stream, the first version to send.
    if (source_.from_end) {
      source_.after = store.LastPosition();  // before Head: nothing falls between
      auto head = source_.stream.empty() ? Result<StreamHead>(Status::NotFound("$all"))
                                         : store.Head(source_.stream);
      if (head.ok()) {
        min_version_ = StreamVersion(head->version.value() + 1);
      } else if (head.status().code() != ErrorCode::kNotFound) {
        read.status = head.status();
        return read;
      }
    } else if (source_.from_version && source_.from_version->value() > 0) {
      min_version_ = *source_.from_version;
      // Where positions come with the commit, start reading past the event
      // before it instead of at the stream's first.
      if (store.traits().positions_at_commit) {
        ReadStreamOptions before;
        before.from = StreamVersion(min_version_.value() - 1);
        before.limit = 1;
        before.include_deleted = true;
        auto cursor = store.ReadStream(source_.stream, before);
        if (cursor.ok() && (*cursor)->Valid()) source_.after = (*cursor)->event().position;
      }
    }
    SubscriptionOptions options;
    options.stream = source_.stream;
    options.filter = source_.filter;
    options.query = source_.query;
    options.after = source_.after;
    options.page_events = kPageEvents;
    options.page_bytes = kPageBytes;
    options.max_scan = context_.options.max_scan_events;
    subscription_.emplace(store, std::move(options));
  }
  read.last = store.LastPosition();
  // No wait: when nothing is new, the watcher tells us of the next commit.
  auto batch = subscription_->Next(std::chrono::milliseconds(0));
  if (!batch.ok()) {
    read.status = batch.status();
    return read;
  }
  for (const RecordedEvent& event : batch->events) {
    if (event.version < min_version_) continue;
    if (source_.reader != nullptr &&
        !source_.reader->grants.Allows(auth::Right::kRead, event.stream))
      continue;
    AppendMessage(event.view(), &read.text);
  }
  read.more = !batch->caught_up;
  if (batch->caught_up && !caught_up_sent_) {
    caught_up_sent_ = true;
    read.text += ": caught-up\n\n";
  }
  return read;
}

void SseSession::OnRead(Read read) {
  reading_ = false;
  if (closed_) return;
  if (!read.status.ok()) return Close();
  if (!read.text.empty()) {
    text_ = std::move(read.text);
    return Write();
  }
  if (read.more) return Pump();
  WaitForCommit(read.last);
}

void SseSession::Write() {
  writing_ = true;
  // A client that takes nothing for this long is gone or stuck: it would
  // hold its page and a connection for ever.
  // The number tells a stale expiry (queued as the last write ended) apart.
  const std::uint64_t write = ++writes_;
  write_timer_.expires_after(context_.options.sse_write_timeout);
  write_timer_.async_wait([self = shared_from_this(), write](boost::system::error_code ec) {
    if (!ec && self->writing_ && self->writes_ == write) self->Close();
  });
  asio::async_write(stream_, asio::buffer(text_),
                    [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                      self->writing_ = false;
                      self->write_timer_.cancel();
                      if (ec) return self->Close();
                      self->Pump();
                    });
}

void SseSession::WaitForCommit(Position after) {
  waiting_ = true;
  std::weak_ptr<SseSession> weak = shared_from_this();
  auto executor = stream_.get_executor();
  ticket_ = context_.watcher.NotifyAfter(after, [weak, executor] {
    asio::post(executor, [weak] {
      if (auto self = weak.lock()) {
        self->ticket_ = 0;
        if (!self->waiting_) return;  // a second call after Cancel (see Cancel)
        self->waiting_ = false;
        self->PumpLive();
      }
    });
  });
}

void SseSession::Heartbeat() {
  heartbeat_.expires_after(context_.options.heartbeat);
  heartbeat_.async_wait([self = shared_from_this()](boost::system::error_code ec) {
    if (ec || self->closed_) return;
    // Not while a read is out: its page will be written next.
    if (!self->writing_ && !self->reading_) {
      self->text_ = ": heartbeat\n\n";
      self->Write();
    }
    self->Heartbeat();
  });
}

// Subscribers send nothing after the request; a read that ends means the
// client went away, and only then do we learn it while idle.
void SseSession::WatchForClose() {
  stream_.async_read_some(asio::buffer(peek_),
                          [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                            if (ec) return self->Close();
                            self->WatchForClose();
                          });
}

void SseSession::Close() {
  if (closed_) return;
  closed_ = true;
  heartbeat_.cancel();
  write_timer_.cancel();
  // A closed subscriber leaves no waiter behind.
  context_.watcher.Cancel(ticket_);
  ticket_ = 0;
  waiting_ = false;
  boost::system::error_code ec;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_both, ec);
  stream_.socket().close(ec);
}

}  // namespace indelible::server
